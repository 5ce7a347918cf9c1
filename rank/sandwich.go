package rank

import (
	"math"

	"github.com/ringside-eval/ringside"
)

// sandwich computes robust (Huber-White) standard errors of the ratings:
// Cov = H⁻¹ M H⁻¹ with H the Fisher information and M the sum over battles of
// the outer products of their scores, (y − p)² (e_i − e_j)(e_i − e_j)ᵀ, a tie
// scoring y = ½. Unlike H⁻¹ alone it stays honest when ties or judges make
// the outcomes less (or more) variable than Bradley-Terry assumes. The
// interval is rating ± 1.96 standard errors.
func (a *analysis) sandwich() error {
	mf := len(a.fit)
	a.cov = make([]float64, mf*mf)
	if mf < 2 {
		for f := range a.rating {
			a.low[f], a.high[f] = a.rating[f], a.rating[f]
		}
		return nil
	}
	sv := newSolver(mf)
	sv.eval(a.prob, a.theta, false) // H in sv.hess (lower triangle)
	meat := a.meat()
	// Ground the last model: H is singular along the all-ones direction.
	n := mf - 1
	inv, err := groundedInverse(sv, n, mf)
	if err != nil {
		return err
	}
	a.reidentify(sandwichProduct(inv, meat, n, mf))
	for f := range a.rating {
		se := math.Sqrt(math.Max(0, a.cov[f*mf+f]))
		a.low[f], a.high[f] = a.rating[f]-z*se, a.rating[f]+z*se
	}
	return nil
}

// meat is M, the sum over battles of the outer products of their scores, as
// a dense mf×mf matrix.
func (a *analysis) meat() []float64 {
	mf := len(a.fit)
	meat := make([]float64, mf*mf)
	x := 0 // a.pfrac is in cell order: walk it beside the cells
	for k := range a.prob.pi {
		i, j := int(a.prob.pi[k]), int(a.prob.pj[k])
		p := 1 / (1 + math.Exp(a.theta[j]-a.theta[i]))
		w := float64(a.pwi[k])*(1-p)*(1-p) + float64(a.pwj[k])*p*p + float64(a.pt[k])*(0.5-p)*(0.5-p)
		// Split and weighted battles: residual w·(share − p), not that of
		// their slot.
		for ; x < len(a.pfrac) && int(a.pfrac[x].k) == k; x++ {
			fc := a.pfrac[x]
			b := slotScore(fc.slot)
			w += float64(fc.n) * (fc.w*fc.w*(fc.s-p)*(fc.s-p) - (b-p)*(b-p))
		}
		meat[i*mf+i] += w
		meat[j*mf+j] += w
		meat[i*mf+j] -= w
		meat[j*mf+i] -= w
	}
	return meat
}

// groundedInverse inverts the solver's H on its first n coordinates (rows of
// stride mf), column by column, into a dense n×n matrix.
func groundedInverse(sv *solver, n, mf int) ([]float64, error) {
	if err := cholesky(sv.hess, sv.chol, n, mf); err != nil {
		return nil, ringside.Errorf(ringside.EINTERNAL, "sandwich: %v", err)
	}
	inv := make([]float64, n*n)
	col := make([]float64, n)
	for c := 0; c < n; c++ {
		clear(col)
		col[c] = 1
		cholSolve(sv.chol, col, n, mf)
		for r := 0; r < n; r++ {
			inv[r*n+c] = col[r]
		}
	}
	return inv, nil
}

// sandwichProduct is inv · meat · inv over the n grounded coordinates, in
// rating units, as an mf×mf matrix whose grounded row and column are zero.
func sandwichProduct(inv, meat []float64, n, mf int) []float64 {
	tmp := make([]float64, n*n)
	for r := 0; r < n; r++ {
		for c := 0; c < n; c++ {
			var s float64
			for k := 0; k < n; k++ {
				s += inv[r*n+k] * meat[k*mf+c]
			}
			tmp[r*n+c] = s
		}
	}
	full := make([]float64, mf*mf)
	for r := 0; r < n; r++ {
		for c := 0; c < n; c++ {
			var s float64
			for k := 0; k < n; k++ {
				s += tmp[r*n+k] * inv[k*n+c]
			}
			full[r*mf+c] = s * ratingScale * ratingScale
		}
	}
	return full
}

// reidentify sets a.cov from the covariance of the grounded ratings, moved
// to the identification in use: ratings r = θ − wᵀθ with w the anchor's unit
// vector or uniform weights, so Cov_r = P Cov Pᵀ.
func (a *analysis) reidentify(full []float64) {
	mf := len(a.fit)
	w := make([]float64, mf)
	if a.anchor >= 0 {
		w[a.anchor] = 1
	} else {
		for f := range w {
			w[f] = 1 / float64(mf)
		}
	}
	colMean := make([]float64, mf)
	var total float64
	for c := 0; c < mf; c++ {
		for r := 0; r < mf; r++ {
			colMean[c] += w[r] * full[r*mf+c]
		}
		total += w[c] * colMean[c]
	}
	for r := 0; r < mf; r++ {
		for c := 0; c < mf; c++ {
			a.cov[r*mf+c] = full[r*mf+c] - colMean[c] - colMean[r] + total
		}
	}
	if f := int(a.anchor); f >= 0 { // zero by construction; make it exact
		for g := 0; g < mf; g++ {
			a.cov[f*mf+g], a.cov[g*mf+f] = 0, 0
		}
	}
}
