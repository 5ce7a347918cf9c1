package rank

import (
	"errors"
	"math"
)

// ctxProblem is the contextual Bradley-Terry likelihood of a style- or
// cost-controlled leaderboard: over m models and p features,
//
//	logit P(i beats j) = θ_i − θ_j + Σ_f γ_f z_f
//
// Each battle has its own z, so battles cannot be collapsed into pair
// counts as in problem; they are kept grouped by pair instead, so that a
// pass reads the pair's strengths once and each battle's p features in
// sequence.
type ctxProblem struct {
	m, p   int
	pi, pj []int32   // per pair, as in problem
	off    []int32   // pair k's battles are off[k] to off[k+1]
	s      []float64 // per battle: the first model's score, 1, 0 or ½, or a split battle's share (units.go)
	z      []float64 // per battle: p standardised features, oriented to the pair's first model
	cnt    []int32   // per battle: how often it is drawn (nil: once)
	p0     []float64 // per battle: the first model's win probability at the full-data fit (a round's first pass, ctrlWorker.compact)
}

// ctxSolver is the work space of one problem size.
type ctxSolver struct {
	n, m, p            int
	grad, delta, trial []float64 // m + p: θ then γ
	hess, chol         []float64 // n×n over the free unknowns, lower triangle
	sums               ctxSums
	tri                [][2]uint8 // the feature pairs (f, e ≤ f) of ctxSums.zz, in its order
	zz0                *[NumControls * (NumControls + 1) / 2]float64
	base               []float64 // the beta of cp.p0 (nearBase)
	dgam               [NumControls]float64
}

func newCtxSolver(m, p int) *ctxSolver {
	n := m - 1 + p
	sv := &ctxSolver{n: n, m: m, p: p, grad: make([]float64, m+p), delta: make([]float64, m+p),
		trial: make([]float64, m+p)}
	for f := range p {
		for e := 0; e <= f; e++ {
			sv.tri = append(sv.tri, [2]uint8{uint8(f), uint8(e)})
		}
	}
	return sv
}

// What an eval pass computes besides the gradient.
const (
	wantHess = 1 << iota // the Fisher information over the free unknowns
	wantLL               // the log-likelihood (for the line search)
	fullZZ               // (finish) the features' block of the Hessian from sv.zz0
	nearBase             // near sv.base, expand cp.p0 instead of an exponential
)

// baseMax bounds the change of a battle's log-odds since sv.base over which
// nearBase expands σ to fourth order instead of computing it: the error, at
// most Δ⁵·max|σ⁽⁵⁾|/120 = Δ⁵/480, is below 3e-8 (a round's exact pass
// moves most log-odds by a few hundredths). A variable so that
// TestCtrlRoundStop can compare with rounds that expand nothing.
var baseMax = 0.1

// ctxSums are one eval pass's sums over battles, kept in fixed arrays (the
// features are few) and added to the gradient and Hessian at the end.
type ctxSums struct {
	gz [NumControls]float64                         // Σ r·z
	zz [NumControls * (NumControls + 1) / 2]float64 // Σ v·z·zᵀ, lower triangle by rows
	vz [NumControls]float64                         // the current pair's Σ v·z
	ll float64
}

// begin starts a pass: the gradient, and the Hessian when want asks, at 0.
func (sv *ctxSolver) begin(want int) {
	n := sv.n
	if want&wantHess != 0 {
		if sv.hess == nil {
			sv.hess, sv.chol = make([]float64, n*n), make([]float64, n*n)
		}
		clear(sv.hess)
	}
	clear(sv.grad)
	sv.sums = ctxSums{}
}

// finish ends a pass: the features' sums go to the gradient and Hessian
// (the Hessian's feature block from sv.zz0 when want has fullZZ).
func (sv *ctxSolver) finish(want int) {
	m, n, g, h := sv.m, sv.n, sv.grad, sv.hess
	if want&fullZZ != 0 {
		sv.sums.zz = *sv.zz0
	}
	t := 0
	for f := 0; f < sv.p; f++ {
		g[m+f] = sv.sums.gz[f]
		for e := 0; e <= f && want&wantHess != 0; e++ {
			h[(m-1+f)*n+m-1+e] = sv.sums.zz[t]
			t++
		}
	}
}

// eval computes the gradient at beta (θ then γ) and what want asks for.
func (sv *ctxSolver) eval(cp *ctxProblem, beta []float64, want int) (ll float64) {
	m := sv.m
	hess := want&wantHess != 0
	sv.begin(want)
	g := sv.grad
	theta, gamma := beta[:m], beta[m:]
	var bt []float64
	if want&nearBase != 0 {
		bt = sv.base[:m]
		for f := range sv.p {
			sv.dgam[f] = gamma[f] - sv.base[m+f]
		}
	}
	for k := range cp.pi {
		i, j := int(cp.pi[k]), int(cp.pj[k])
		var dd float64 // the change of θ_i − θ_j since sv.base
		if bt != nil {
			dd = theta[i] - theta[j] - (bt[i] - bt[j])
		}
		rsum, vsum := sv.pairTerms(cp, k, theta[i]-theta[j], dd, gamma, want)
		g[i] += rsum
		g[j] -= rsum
		if hess {
			sv.addPair(i, j, vsum)
		}
	}
	sv.finish(want)
	return sv.sums.ll
}

// pairTerms adds pair k's battles to sv.sums and returns their Σ r (the
// residual, weighted) and Σ v (the variance), with d = θ_i − θ_j (dd its
// change since sv.base).
func (sv *ctxSolver) pairTerms(cp *ctxProblem, k int, d, dd float64, gamma []float64, want int) (rsum, vsum float64) {
	hess, lls, near := want&wantHess != 0, want&wantLL != 0, want&nearBase != 0
	p, sums := sv.p, &sv.sums
	sums.vz = [NumControls]float64{}
	for b := int(cp.off[k]); b < int(cp.off[k+1]); b++ {
		w := 1.0
		if cp.cnt != nil {
			if cp.cnt[b] == 0 {
				continue
			}
			w = float64(cp.cnt[b])
		}
		z := cp.z[b*p : b*p+p : b*p+p]
		var pr, q, eta, e float64
		exact := true
		if near {
			delta := dd
			for f, x := range z {
				delta += sv.dgam[f] * x
			}
			if math.Abs(delta) <= baseMax {
				pr = expandSigma(cp.p0[b], delta)
				q, exact = 1-pr, false
			}
		}
		if exact {
			eta = d
			for f, x := range z {
				eta += gamma[f] * x
			}
			e = math.Exp(-math.Abs(eta))
			inv := 1 / (1 + e)
			pr, q = inv, e*inv
			if eta < 0 {
				pr, q = q, pr
			}
		}
		s := cp.s[b]
		r := w * (s - pr)
		rsum += r
		for f, x := range z {
			sums.gz[f] += r * x
		}
		if lls {
			// log σ(η) = −log(1 + e^−|η|) − max(−η, 0)
			sums.ll -= w * (math.Log1p(e) + math.Max(eta, 0)*(1-s) + math.Max(-eta, 0)*s)
		}
		if !hess {
			continue
		}
		v := w * pr * q
		vsum += v
		// One flat loop over the triangle (sv.tri), indices masked into
		// arrays of 8 so that no bound is checked.
		var vx, zb [8]float64
		for f, x := range z {
			vx[f&7], zb[f&7] = v*x, x
			sums.vz[f] += v * x
		}
		for t, fe := range sv.tri {
			sums.zz[t] += vx[fe[0]&7] * zb[fe[1]&7]
		}
	}
	return rsum, vsum
}

// expandSigma is σ(η+Δ) from s = σ(η) to fourth order: with v = s(1−s),
// σ' = v, σ” = v(1−2s), σ”' = v(1−6v), σ”” = v(1−2s)(1−12v).
func expandSigma(s, delta float64) float64 {
	v, h := s*(1-s), 1-2*s
	return s + delta*v*(1+delta*(h/2+delta*((1-6*v)/6+delta*h*(1-12*v)/24)))
}

// addPair adds one pair's Laplacian block and its cross terms with the
// features (sv.sums.vz) to the Hessian; the grounded model has no row.
func (sv *ctxSolver) addPair(i, j int, v float64) {
	m, n, h := sv.m, sv.n, sv.hess
	ground := m - 1
	if i != ground {
		h[i*n+i] += v
	}
	if j != ground {
		h[j*n+j] += v
	}
	if i != ground && j != ground {
		h[max(i, j)*n+min(i, j)] -= v
	}
	for f, x := range sv.sums.vz[:sv.p] {
		row := (m - 1 + f) * n
		if i != ground {
			h[row+i] += x
		}
		if j != ground {
			h[row+j] -= x
		}
	}
}

// step solves H δ = g over the free unknowns with factor chol, into
// sv.delta (θ then γ, the grounded model's δ 0), and returns max |δ|.
func (sv *ctxSolver) step(chol []float64) float64 {
	m, n := sv.m, sv.n
	rhs := sv.trial[:n]
	copy(rhs, sv.grad[:m-1])
	copy(rhs[m-1:], sv.grad[m:])
	cholSolve(chol, rhs, n, n)
	copy(sv.delta[:m-1], rhs[:m-1])
	sv.delta[m-1] = 0
	copy(sv.delta[m:], rhs[m-1:])
	big := 0.0
	for _, d := range sv.delta {
		big = math.Max(big, math.Abs(d))
	}
	return big
}

var errNoControlledFit = errors.New("the controlled fit has no finite maximum (a feature separates wins from losses)")

// fit maximises the likelihood from beta (updated in place) by Newton's
// method with a backtracking line search, to a step below tol.
func (sv *ctxSolver) fit(cp *ctxProblem, beta []float64, tol float64) (int, error) {
	ll := sv.eval(cp, beta, wantHess|wantLL)
	prevStep := math.Inf(1)
	for it := 1; it <= maxNewton; it++ {
		if err := cholesky(sv.hess, sv.chol, sv.n, sv.n); err != nil {
			return it, errNoControlledFit
		}
		step := sv.step(sv.chol)
		dec := 0.0
		for v, d := range sv.delta {
			dec += d * sv.grad[v]
		}
		if math.IsNaN(step) || step > 1e6 {
			return it, errNoControlledFit
		}
		if step <= tol || step < 1e-9 && step > prevStep/2 {
			return it, nil
		}
		prevStep = step
		if math.IsNaN(ll) && step > quadStep {
			ll = sv.eval(cp, beta, wantHess|wantLL) // the same gradient and Hessian, with ll
		}
		// A full step in the quadratic phase is taken whatever the
		// likelihood, which is then not computed.
		wantT := wantHess | wantLL
		if step <= quadStep {
			wantT = wantHess
		}
		trial := make([]float64, len(beta))
		alpha := 1.0
		for {
			for v := range beta {
				trial[v] = beta[v] + alpha*sv.delta[v]
			}
			llt := sv.eval(cp, trial, wantT)
			if wantT&wantLL == 0 {
				llt = math.NaN()
			}
			if llt >= ll+1e-4*alpha*dec || step <= quadStep && alpha == 1 {
				copy(beta, trial)
				ll = llt
				break
			}
			if alpha /= 2; alpha < 1e-12 {
				return it, errors.New("rank: line search failed in the controlled fit")
			}
		}
	}
	return maxNewton, errNoControlledFit
}

// fullProbabilities sets cp.p0 from beta, the full-data fit.
func (cp *ctxProblem) fullProbabilities(beta []float64) {
	theta, gamma := beta[:cp.m], beta[cp.m:]
	cp.p0 = make([]float64, len(cp.s))
	for k := range cp.pi {
		d := theta[cp.pi[k]] - theta[cp.pj[k]]
		for b := int(cp.off[k]); b < int(cp.off[k+1]); b++ {
			eta := d
			for f, x := range cp.z[b*cp.p : b*cp.p+cp.p] {
				eta += gamma[f] * x
			}
			cp.p0[b] = 1 / (1 + math.Exp(-eta))
		}
	}
}

// ctrlRoundStop ends a controlled bootstrap round after a full Newton step
// with the round's own Hessian below it: Newton's error after such a step
// is of the order of its square (the next step, measured on 200,000 and on
// 1,000,000 battles, is about 0.3 times its square: below 3e-6 log-odds
// after a step of 3e-3, 5e-4 rating points), far below the 0.1 points the
// intervals are printed to. At a million battles nearly every round stops
// after its first exact pass. TestCtrlRoundStop checks the intervals
// against rounds run to a step below looseStep.
var ctrlRoundStop = 3e-3

// round solves one bootstrap round (cp with its draw counts) by Newton's
// method from beta, the full-data fit, whose pass the caller has made
// (ctrlWorker.compact); a resample's optimum is near enough for full
// steps. That first pass borrows the full data's feature block of the
// Hessian, so its step is not quite Newton's; the round ends after a later
// step below ctrlRoundStop (or any step below looseStep), typically after
// the caller's pass and one exact pass. False when the steps stop
// shrinking, for the caller to fall back to the damped fit.
func (sv *ctxSolver) round(cp *ctxProblem, beta []float64) bool {
	prev := math.Inf(1)
	for it := 0; it < 30; it++ {
		if it > 0 { // the first pass is the caller's
			sv.eval(cp, beta, wantHess|nearBase)
		}
		if cholesky(sv.hess, sv.chol, sv.n, sv.n) != nil {
			return false
		}
		step := sv.step(sv.chol)
		if math.IsNaN(step) || step > prev/2 {
			return false
		}
		for v, d := range sv.delta {
			beta[v] += d
		}
		if step <= looseStep || it > 0 && step <= ctrlRoundStop {
			return true
		}
		prev = step
	}
	return false
}
