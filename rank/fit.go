package rank

import (
	"errors"
	"math"
)

// ratingScale converts natural-log strengths to rating points: with
// θ = R·ln10/400, P(a beats b) = σ(θ_a − θ_b) = 1/(1+10^((R_b−R_a)/400)).
const ratingScale = 400 / math.Ln10

// problem is a Bradley-Terry likelihood over m models: per pair, n battles
// of which the first model scored s (wins + ties/2).
type problem struct {
	m      int
	pi, pj []int32
	n, s   []float64
}

// solver holds the work space of Newton's method for one problem size, so
// that bootstrap rounds allocate nothing.
type solver struct {
	m                         int
	grad, delta, trial, gamma []float64
	hess, chol                []float64 // m×m, lower triangle used
}

// newSolver makes the work space of m models. The m×m matrices come on
// first use: a bootstrap worker that never falls back to Newton's method
// never holds them.
func newSolver(m int) *solver {
	return &solver{
		m: m, grad: make([]float64, m), delta: make([]float64, m), trial: make([]float64, m), gamma: make([]float64, m),
	}
}

var errNotConnected = errors.New("rank: the comparison graph is not connected")

const (
	stepTol   = 1e-12 // natural-log units; 2e-10 rating points
	quadStep  = 1e-3  // steps below this are taken in full (quadratic phase)
	looseStep = 1e-6  // a bootstrap round ends after a full step below this
	chordTol  = 1e-10 // a bootstrap round's chord iteration ends below this
	maxNewton = 200
)

// eval computes the gradient and the Fisher information (the negative
// Hessian: the weighted Laplacian of the comparison graph) at theta, and the
// log-likelihood when wantLL.
func (sv *solver) eval(p *problem, theta []float64, wantLL bool) (ll float64) {
	m := sv.m
	if sv.hess == nil {
		sv.hess, sv.chol = make([]float64, m*m), make([]float64, m*m)
	}
	g, h := sv.grad, sv.hess
	clear(g)
	clear(h)
	gamma, top, fast := sv.strengths(theta)
	for k := range p.pi {
		n := p.n[k]
		if n == 0 {
			continue
		}
		i, j, s := int(p.pi[k]), int(p.pj[k]), p.s[k]
		var pr, q float64
		if fast {
			inv := 1 / (gamma[i] + gamma[j])
			pr, q = gamma[i]*inv, gamma[j]*inv
			if wantLL { // log p_ij = θ_i − top − log(γ_i + γ_j)
				ll += s*(theta[i]-top) + (n-s)*(theta[j]-top) + n*math.Log(inv)
			}
		} else {
			d := theta[i] - theta[j]
			e := math.Exp(-math.Abs(d))
			if d >= 0 {
				pr = 1 / (1 + e)
				q = e * pr
			} else {
				q = 1 / (1 + e)
				pr = e * q
			}
			if wantLL {
				l := math.Log1p(e)
				ll -= n*l + math.Max(d, 0)*(n-s) + math.Max(-d, 0)*s
			}
		}
		r := s - n*pr
		g[i] += r
		g[j] -= r
		w := n * pr * q
		h[i*m+i] += w
		h[j*m+j] += w
		if i > j {
			h[i*m+j] -= w
		} else {
			h[j*m+i] -= w
		}
	}
	return ll
}

// strengths returns γ = e^(θ − max θ) so that p_ij = γ_i/(γ_i + γ_j) costs a
// division instead of an exponential per pair, and max θ. It reports false
// when θ spreads so wide (over 600 natural units, 100,000 rating points)
// that some γ would underflow; callers then take the exponential per pair.
func (sv *solver) strengths(theta []float64) ([]float64, float64, bool) {
	top, bottom := math.Inf(-1), math.Inf(1)
	for _, t := range theta {
		top, bottom = math.Max(top, t), math.Min(bottom, t)
	}
	if !(top-bottom <= 600) {
		return nil, top, false
	}
	for v, t := range theta {
		sv.gamma[v] = math.Exp(t - top)
	}
	return sv.gamma, top, true
}

// gradient computes the gradient alone.
func (sv *solver) gradient(p *problem, theta []float64) {
	g := sv.grad
	clear(g)
	gamma, _, fast := sv.strengths(theta)
	for k := range p.pi {
		i, j := p.pi[k], p.pj[k]
		var r float64
		if fast {
			r = p.s[k] - p.n[k]*gamma[i]/(gamma[i]+gamma[j])
		} else {
			r = p.s[k] - p.n[k]/(1+math.Exp(theta[j]-theta[i]))
		}
		g[i] += r
		g[j] -= r
	}
}

// newtonStep solves H δ = g with the last model grounded (δ_{m-1} = 0: the
// likelihood does not change when all strengths shift together).
func (sv *solver) newtonStep() error {
	n := sv.m - 1
	if n == 0 {
		sv.delta[0] = 0
		return nil
	}
	if err := cholesky(sv.hess, sv.chol, n, sv.m); err != nil {
		return err
	}
	copy(sv.delta, sv.grad[:n])
	cholSolve(sv.chol, sv.delta[:n], n, sv.m)
	sv.delta[n] = 0
	return nil
}

// fit maximises the likelihood from theta (updated in place) and returns
// the number of Newton iterations. Far from the optimum each step is
// checked against the likelihood (backtracking, Armijo); once steps are
// below quadStep Newton is in its quadratic phase and full steps are taken
// without evaluating the likelihood.
//
// The full-data fit runs until the step is below stepTol or stops shrinking
// at the rounding floor. A bootstrap round (loose) stops after applying a
// quadratic-phase step below looseStep: quadratic convergence leaves an
// error of the order of its square, 1e-12, far below what percentiles show.
func (sv *solver) fit(p *problem, theta []float64, loose bool) (int, error) {
	ll := sv.eval(p, theta, true)
	haveLL := true
	prevStep := math.Inf(1)
	for it := 1; it <= maxNewton; it++ {
		if err := sv.newtonStep(); err != nil {
			return it, err
		}
		dec, step := 0.0, 0.0
		for v, d := range sv.delta {
			dec += d * sv.grad[v]
			step = math.Max(step, math.Abs(d))
		}
		if step <= stepTol || step < 1e-9 && step > prevStep/2 {
			return it, nil
		}
		prevStep = step
		if step <= quadStep {
			for v := range theta {
				theta[v] += sv.delta[v]
			}
			if loose && step <= looseStep {
				return it, nil
			}
			sv.eval(p, theta, false)
			haveLL = false
			continue
		}
		if !haveLL {
			ll = sv.eval(p, theta, true)
		}
		alpha := 1.0
		for {
			for v := range theta {
				sv.trial[v] = theta[v] + alpha*sv.delta[v]
			}
			llt := sv.eval(p, sv.trial, true)
			if llt >= ll+1e-4*alpha*dec {
				copy(theta, sv.trial)
				ll, haveLL = llt, true
				break
			}
			if alpha /= 2; alpha < 1e-12 {
				return it, errors.New("rank: line search failed")
			}
		}
	}
	return maxNewton, errors.New("rank: Newton's method did not converge")
}

// gradMax is the largest gradient component relative to the model's
// battles: how far from a stationary point the fit stopped.
func gradMax(p *problem, theta []float64) float64 {
	g := make([]float64, p.m)
	n := make([]float64, p.m)
	for k := range p.pi {
		i, j := p.pi[k], p.pj[k]
		pr := 1 / (1 + math.Exp(theta[j]-theta[i]))
		r := p.s[k] - p.n[k]*pr
		g[i] += r
		g[j] -= r
		n[i] += p.n[k]
		n[j] += p.n[k]
	}
	worst := 0.0
	for v := range g {
		worst = math.Max(worst, math.Abs(g[v])/math.Max(1, n[v]))
	}
	return worst
}

// cholesky factors the leading n×n block of the symmetric matrix a (lower
// triangle, row stride stride) into l.
func cholesky(a, l []float64, n, stride int) error {
	for j := 0; j < n; j++ {
		lj := l[j*stride : j*stride+j+1]
		s := a[j*stride+j]
		for k := 0; k < j; k++ {
			s -= lj[k] * lj[k]
		}
		if !(s > 0) {
			return errNotConnected
		}
		d := math.Sqrt(s)
		lj[j] = d
		for i := j + 1; i < n; i++ {
			li := l[i*stride : i*stride+j]
			s := a[i*stride+j]
			s -= dot(li, lj[:j])
			l[i*stride+j] = s / d
		}
	}
	return nil
}

func dot(x, y []float64) float64 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float64
	k := 0
	for ; k+4 <= len(x); k += 4 {
		s0 += x[k] * y[k]
		s1 += x[k+1] * y[k+1]
		s2 += x[k+2] * y[k+2]
		s3 += x[k+3] * y[k+3]
	}
	for ; k < len(x); k++ {
		s0 += x[k] * y[k]
	}
	return (s0 + s1) + (s2 + s3)
}

// cholSolve solves L Lᵀ x = b in place.
func cholSolve(l, b []float64, n, stride int) {
	for i := 0; i < n; i++ {
		b[i] = (b[i] - dot(l[i*stride:i*stride+i], b[:i])) / l[i*stride+i]
	}
	for i := n - 1; i >= 0; i-- {
		s := b[i]
		for k := i + 1; k < n; k++ {
			s -= l[k*stride+i] * b[k]
		}
		b[i] = s / l[i*stride+i]
	}
}
