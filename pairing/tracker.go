package pairing

import (
	"errors"
	"math"
	"slices"
)

// Scale converts natural-log strengths to rating points, as rank does:
// P(a beats b) = 1/(1+10^((R_b−R_a)/400)).
const Scale = 400 / math.Ln10

// priorSD is the standard deviation, in natural-log units (about 400 rating
// points), of the weak prior that keeps the fit finite from the first vote
// and with a model that won every battle. Against a few dozen votes it
// moves a rating by less than a point.
const priorSD = 2.3

// z is the normal quantile of the leaderboard's 95 % intervals.
const z = 1.959963984540054

// Tracker is the Bradley-Terry fit of the votes so far, kept as per-pair
// counts that each vote updates in O(1). The fit (ratings and covariance)
// is refreshed from the counts, not from the votes, once enough votes came
// in since the last refresh. It is not safe for concurrent use.
type Tracker struct {
	names   []string
	index   map[string]int
	n, s    []float64 // m×m; n symmetric, s[i*m+j] what i scored against j
	ties    []float64 // m×m, symmetric: the ties among n
	battles []float64 // per model
	total   float64
	tied    float64 // ties in all

	theta, cov []float64 // the fit, natural-log units; cov is m×m
	sinceFit   float64
	fitted     bool
}

// NewTracker returns a tracker of the models, with no votes.
func NewTracker(models []string) *Tracker {
	t := &Tracker{index: map[string]int{}}
	for _, m := range models {
		t.model(m)
	}
	return t
}

// Models lists the tracked models, in the order they were added.
func (t *Tracker) Models() []string { return append([]string(nil), t.names...) }

// Len is the number of tracked models.
func (t *Tracker) Len() int { return len(t.names) }

// Index is the model's position in Models, or -1.
func (t *Tracker) Index(model string) int {
	if i, ok := t.index[model]; ok {
		return i
	}
	return -1
}

// Votes is the number of votes counted (ties count once).
func (t *Tracker) Votes() float64 { return t.total }

// Battles is how many votes the model took part in.
func (t *Tracker) Battles(i int) float64 { return t.battles[i] }

// model returns the model's index, adding it (with no battles, so that it
// is placed first) when it is new.
func (t *Tracker) model(name string) int {
	if i, ok := t.index[name]; ok {
		return i
	}
	m := len(t.names)
	grow := func(old []float64) []float64 {
		out := make([]float64, (m+1)*(m+1))
		for i := range m {
			copy(out[i*(m+1):i*(m+1)+m], old[i*m:i*m+m])
		}
		return out
	}
	t.n, t.s, t.ties = grow(t.n), grow(t.s), grow(t.ties)
	t.battles = append(t.battles, 0)
	t.theta = append(t.theta, 0)
	t.names = append(t.names, name)
	t.index[name] = m
	t.fitted = false
	return m
}

// Add counts count votes between a and b in which a scored scoreA each (1 a
// won, 0 b won, ½ a tie). A model not tracked yet is added.
func (t *Tracker) Add(a, b string, scoreA, count float64) {
	if a == b {
		return
	}
	i, j := t.model(a), t.model(b)
	if count <= 0 {
		return
	}
	m := len(t.names)
	t.n[i*m+j] += count
	t.n[j*m+i] += count
	t.s[i*m+j] += scoreA * count
	t.s[j*m+i] += (1 - scoreA) * count
	if scoreA == 0.5 {
		t.ties[i*m+j] += count
		t.ties[j*m+i] += count
		t.tied += count
	}
	t.battles[i] += count
	t.battles[j] += count
	t.total += count
	t.sinceFit += count
}

// stale says whether the fit is due a refresh: after every vote at first,
// then after a share of the votes so far, so that refitting costs a fixed
// fraction of the votes however many there are.
func (t *Tracker) stale() bool {
	return !t.fitted || t.sinceFit >= 1+t.total/100
}

// Refresh refits when stale and reports whether it did.
func (t *Tracker) Refresh() bool {
	if !t.stale() {
		return false
	}
	t.fit()
	return true
}

// fit runs Newton's method from the previous fit on the counts with the
// prior, and keeps the inverse information as the covariance.
func (t *Tracker) fit() {
	m := len(t.names)
	h := make([]float64, m*m)
	g := make([]float64, m)
	for iter := 0; iter < 50; iter++ {
		t.information(h, g)
		step, err := solve(h, g, m)
		if err != nil {
			break
		}
		big := 0.0
		for _, d := range step {
			big = max(big, math.Abs(d))
		}
		// Far from the optimum a full step can overshoot; one nat (174
		// points) a step is plenty.
		f := 1.0
		if big > 1 {
			f = 1 / big
		}
		for i := range t.theta {
			t.theta[i] += f * step[i]
		}
		if big < 1e-9 {
			break
		}
	}
	t.information(h, g)
	t.cov = inverse(h, m)
	if t.tied > 0 {
		t.cov = t.sandwich(h, t.cov)
	}
	t.sinceFit, t.fitted = 0, true
}

// sandwich is the covariance of the fit when some votes were ties, given
// the information h and its inverse. Counting a tie as half a win, as the
// board does, the model's variance of a vote's score, p(1−p), overstates
// it by τ/4 for a pair that ties a share τ of the time (a tie is ½ for
// sure; the wins then make up p − τ/2), so the fit is surer than the
// inverse information says: its covariance is h⁻¹ J h⁻¹ with J the
// information less ¼ of each pair's ties, which is what the board's
// bootstrap over battles measures. A pair's variance is kept at a tenth of
// the model's at least, against ties that a model far from ½ could not
// have made.
func (t *Tracker) sandwich(h, hinv []float64) []float64 {
	m := len(t.names)
	j := slices.Clone(h)
	for a := range m {
		for b := a + 1; b < m; b++ {
			ties := t.ties[a*m+b]
			if ties == 0 {
				continue
			}
			p := sigmoid(t.theta[a] - t.theta[b])
			addPair(j, m, a, b, -min(ties/4, 0.9*t.n[a*m+b]*p*(1-p)))
		}
	}
	return matMul(matMul(hinv, j, m), hinv, m)
}

// matMul is the product of two m×m matrices.
func matMul(a, b []float64, m int) []float64 {
	out := make([]float64, m*m)
	for i := range m {
		for k := range m {
			x := a[i*m+k]
			if x == 0 {
				continue
			}
			for j := range m {
				out[i*m+j] += x * b[k*m+j]
			}
		}
	}
	return out
}

// TieShare is the share of the votes so far that were ties.
func (t *Tracker) TieShare() float64 {
	if t.total == 0 {
		return 0
	}
	return t.tied / t.total
}

// information fills h with the Fisher information (with the prior) at the
// current fit, and g with the gradient of the log-posterior.
func (t *Tracker) information(h, g []float64) {
	m := len(t.names)
	clear(h)
	for i := range m {
		g[i] = -t.theta[i] / (priorSD * priorSD)
		h[i*m+i] = 1 / (priorSD * priorSD)
	}
	for i := range m {
		for j := i + 1; j < m; j++ {
			n := t.n[i*m+j]
			if n == 0 {
				continue
			}
			p := sigmoid(t.theta[i] - t.theta[j])
			r := t.s[i*m+j] - n*p
			g[i] += r
			g[j] -= r
			addPair(h, m, i, j, n*p*(1-p))
		}
	}
}

// addPair adds to the m×m information h what votes of weight w between a
// and b add: w(e_a−e_b)(e_a−e_b)ᵀ.
func addPair(h []float64, m, a, b int, w float64) {
	h[a*m+a] += w
	h[b*m+b] += w
	h[a*m+b] -= w
	h[b*m+a] -= w
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

var errSingular = errors.New("pairing: singular matrix")

// cholesky factors the symmetric positive definite m×m matrix a into its
// lower triangle l.
func cholesky(a []float64, m int) ([]float64, error) {
	l := make([]float64, m*m)
	for i := range m {
		for j := 0; j <= i; j++ {
			sum := a[i*m+j]
			for k := range j {
				sum -= l[i*m+k] * l[j*m+k]
			}
			if i == j {
				if sum <= 0 {
					return nil, errSingular
				}
				l[i*m+i] = math.Sqrt(sum)
			} else {
				l[i*m+j] = sum / l[j*m+j]
			}
		}
	}
	return l, nil
}

// cholSolve solves l·lᵀ·x = b.
func cholSolve(l, b []float64, m int) []float64 {
	x := append([]float64(nil), b...)
	for i := range m {
		for k := range i {
			x[i] -= l[i*m+k] * x[k]
		}
		x[i] /= l[i*m+i]
	}
	for i := m - 1; i >= 0; i-- {
		for k := i + 1; k < m; k++ {
			x[i] -= l[k*m+i] * x[k]
		}
		x[i] /= l[i*m+i]
	}
	return x
}

func solve(a, b []float64, m int) ([]float64, error) {
	l, err := cholesky(a, m)
	if err != nil {
		return nil, err
	}
	return cholSolve(l, b, m), nil
}

// inverse of a symmetric positive definite matrix (the prior makes the
// information one).
func inverse(a []float64, m int) []float64 {
	l, err := cholesky(a, m)
	out := make([]float64, m*m)
	if err != nil {
		for i := range m {
			out[i*m+i] = priorSD * priorSD
		}
		return out
	}
	e := make([]float64, m)
	for j := range m {
		clear(e)
		e[j] = 1
		col := cholSolve(l, e, m)
		for i := range m {
			out[i*m+j] = col[i]
		}
	}
	return out
}

// Rating is one model as the fit sees it, in rating points (mean 1000).
type Rating struct {
	Model   string  `json:"model"`
	Rating  float64 `json:"rating"`
	Low     float64 `json:"low"`
	High    float64 `json:"high"`
	Battles float64 `json:"battles"`
}

// Ratings returns the current fit, best first, with 95 % normal intervals
// of the centred ratings (close to the bootstrap's with enough votes).
func (t *Tracker) Ratings() []Rating {
	t.Refresh()
	m := len(t.names)
	mean, sd := t.centred()
	out := make([]Rating, m)
	for i := range m {
		r := 1000 + (t.theta[i]-mean)*Scale
		out[i] = Rating{Model: t.names[i], Rating: r, Low: r - z*sd[i]*Scale, High: r + z*sd[i]*Scale, Battles: t.battles[i]}
	}
	sortRatings(out)
	return out
}

// centred returns the mean strength and each model's standard deviation
// relative to the mean of all (the leaderboard's anchoring).
func (t *Tracker) centred() (float64, []float64) {
	m := len(t.names)
	mean := 0.0
	for _, th := range t.theta {
		mean += th
	}
	mean /= float64(m)
	colMean := make([]float64, m)
	total := 0.0
	for i := range m {
		for j := range m {
			colMean[j] += t.cov[i*m+j] / float64(m)
		}
	}
	for _, c := range colMean {
		total += c / float64(m)
	}
	sd := make([]float64, m)
	for i := range m {
		// Var(θ_i − θ̄) = Σ_ii − 2·mean_j Σ_ij + mean Σ.
		sd[i] = math.Sqrt(max(0, t.cov[i*m+i]-2*colMean[i]+total))
	}
	return mean, sd
}

// Clone returns an independent copy, for planning while votes go on.
func (t *Tracker) Clone() *Tracker { return t.clone() }
