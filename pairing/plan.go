package pairing

import (
	"cmp"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
)

// PlanOptions tune MakePlan; the zero value of each field has a default.
type PlanOptions struct {
	// Sims is the number of simulated futures (200).
	Sims int
	// Check is how often, in votes, the simulated board is looked at (250,
	// the benchmark's checkpoints).
	Check int
	// MaxVotes bounds each simulated future (100,000 further votes).
	MaxVotes int
	// PriorSD is the spread of the models' ratings, in rating points,
	// assumed before any vote (100).
	PriorSD float64
	// BoardRounds is the leaderboard's bootstrap rounds (rank.bootstrap,
	// 1,000): its intervals' ends are estimated from that many rounds, and
	// the simulated board has their Monte Carlo error. Negative: exact
	// normal intervals.
	BoardRounds int
	// Fresh starts each simulated future from no votes, drawn again while
	// its board is separated by the current count, instead of continuing
	// the votes so far: wider intervals, better calibrated early on when
	// several boundaries are alike, worse centred later (see the package
	// comment and docs/performance.md).
	Fresh bool
	// Seed makes the plan reproducible.
	Seed uint64
	// ties is the share of the votes so far that were ties, which the
	// simulated judges keep (MakePlan sets it).
	ties float64
}

func (o *PlanOptions) defaults() {
	if o.Sims <= 0 {
		o.Sims = 200
	}
	if o.Check <= 0 {
		o.Check = 250
	}
	if o.MaxVotes <= 0 {
		o.MaxVotes = 100_000
	}
	if o.BoardRounds == 0 {
		o.BoardRounds = 1000
	}
	if o.PriorSD <= 0 {
		o.PriorSD = 100
	}
}

// Plan says how many more votes the decision needs.
type Plan struct {
	// Votes are the votes counted so far; FromPrior is set when there were
	// none and the plan rests on the prior and the number of models.
	Votes     int  `json:"votes"`
	FromPrior bool `json:"from_prior"`
	Models    int  `json:"models"`
	FocusTop  int  `json:"focus_top"`
	Adaptive  bool `json:"adaptive"`
	// Separated is whether the decision is made on the current fit.
	Separated bool `json:"separated"`
	// Likely, Median, Low and High are the further votes until the
	// decision over the simulated futures: the most likely number (the
	// middle, in ratio terms, of the shortest interval holding half of
	// them; see likeliest), their median, and the 80 % interval, the
	// shortest in ratio terms that holds 80 % of them (see shortest).
	// Unreached counts the futures not decided within MaxVotes; when they
	// pass 20 %, High is -1 (unbounded), and past half Likely is too.
	Likely    int `json:"likely"`
	Median    int `json:"median"`
	Low       int `json:"low"`
	High      int `json:"high"`
	Unreached int `json:"unreached"`
	Sims      int `json:"sims"`
	// Undecided are the boundaries whose intervals still overlap.
	Undecided []Boundary `json:"undecided"`
	Ratings   []Rating   `json:"ratings"`
}

// MakePlan simulates the rest of the evaluation Sims times under policy p,
// dealing among pairs. Each future draws true ratings from the fit's normal
// approximation (before any vote, from the prior), continues the votes so
// far (o.Fresh: starts from none) with judges voting by Bradley-Terry with
// those ratings, and counts the votes past the current count to the first
// checkpoint at which the simulated board, with the Monte Carlo error of
// the leaderboard's bootstrap, separates the top models. t is not changed.
func MakePlan(t *Tracker, p Policy, pairs []Pair, o PlanOptions) *Plan {
	o.defaults()
	o.ties = t.TieShare()
	t.fit()
	bounds := p.Boundaries(t)
	plan := &Plan{Votes: int(t.total), FromPrior: t.total == 0, Models: t.Len(), FocusTop: p.FocusTop,
		Adaptive: p.Adaptive, Separated: Separated(bounds), Sims: o.Sims, Ratings: t.Ratings()}
	for _, b := range bounds {
		if b.Margin <= 0 {
			plan.Undecided = append(plan.Undecided, b)
		}
	}
	if t.Len() < 2 || len(pairs) == 0 || plan.Separated {
		return plan
	}
	r := rand.New(rand.NewPCG(o.Seed, 0x91a2))
	var chol []float64
	if !plan.FromPrior {
		chol, _ = cholesky(t.cov, t.Len())
	}
	further := make([]int, 0, o.Sims)
	for range o.Sims {
		var n int
		var st simStatus
		for try := 0; try <= retries; try++ {
			truth := t.drawTruth(r, chol, o.PriorSD/Scale)
			start := t.clone()
			if o.Fresh {
				start = NewTracker(t.names)
			}
			n, st = start.simulate(r, p, pairs, truth, o, int(t.total), try == retries)
			if st != simEarly {
				break
			}
		}
		if st == simUnreached {
			plan.Unreached++
			n = math.MaxInt
		}
		further = append(further, n)
	}
	slices.Sort(further)
	at := func(q float64) int {
		v := further[min(len(further)-1, int(q*float64(len(further))))]
		if v == math.MaxInt {
			return -1
		}
		return v
	}
	plan.Median = at(0.5)
	plan.Likely = likeliest(further)
	plan.Low, plan.High = shortest(further, 0.8)
	return plan
}

// retries is how often a fresh future whose board was separated by the
// current count is drawn again (the board we have is not); the last draw
// is kept, counted from the current count.
const retries = 10

// drawTruth draws true strengths: from the fit's normal approximation, or
// independently from the prior when chol is nil (no votes yet).
func (t *Tracker) drawTruth(r *rand.Rand, chol []float64, priorSD float64) []float64 {
	m := t.Len()
	e := make([]float64, m)
	for i := range e {
		e[i] = r.NormFloat64()
	}
	out := make([]float64, m)
	for i := range m {
		if chol == nil {
			out[i] = priorSD * e[i]
			continue
		}
		out[i] = t.theta[i]
		for k := 0; k <= i; k++ {
			out[i] += chol[i*m+k] * e[k]
		}
	}
	return out
}

func (t *Tracker) clone() *Tracker {
	c := *t
	c.names, c.index = slices.Clone(t.names), maps.Clone(t.index)
	c.n, c.s, c.ties = slices.Clone(t.n), slices.Clone(t.s), slices.Clone(t.ties)
	c.battles, c.theta = slices.Clone(t.battles), slices.Clone(t.theta)
	c.cov = slices.Clone(t.cov)
	return &c
}

type simStatus int

const (
	simDecided simStatus = iota
	simEarly
	simUnreached
)

// simulate deals and votes on t, from the votes it holds, until the board,
// looked at every o.Check votes of all as a board refreshed every so many
// votes would be, separates the top models after now votes, and returns
// the votes past now it took. A board separated at or before now (a fresh
// future) makes the future early: given up unless keep, in which case it
// runs on to the first separated look past now.
func (t *Tracker) simulate(r *rand.Rand, p Policy, pairs []Pair, truth []float64, o PlanOptions, now int, keep bool) (int, simStatus) {
	var probs []float64
	for n := int(t.total) + 1; n <= now+o.MaxVotes; n++ {
		if t.Refresh() || probs == nil {
			probs = p.Probabilities(t, pairs)
		}
		k, _ := Sample(probs, nil, r.Float64())
		a, b := pairs[k].I, pairs[k].J
		t.Add(t.names[a], t.names[b], judgeScore(r, sigmoid(truth[a]-truth[b]), o.ties), 1)
		if n%o.Check != 0 {
			continue
		}
		t.fit()
		if !t.boardSeparated(r, p.FocusTop, o.kappa()) {
			continue
		}
		if n > now {
			return n - now, simDecided
		}
		if !keep {
			return 0, simEarly
		}
	}
	return 0, simUnreached
}

// judgeScore is a simulated judge's vote, as a's score, when a beats b
// with probability p counting a tie as half a win: a tie with probability
// ties (the share of the real votes that were ties, so that the futures
// are as sure of each vote as the votes so far were), as far as p allows,
// else a win or a loss, so that the expected score stays p.
func judgeScore(r *rand.Rand, p, ties float64) float64 {
	if ties > 0 {
		tie := min(ties, 2*p, 2*(1-p))
		if r.Float64() < tie {
			return 0.5
		}
		p = (p - tie/2) / (1 - tie)
	}
	if r.Float64() < p {
		return 1
	}
	return 0
}

// kappa is the standard deviation of a bootstrap percentile interval's end,
// in units of the rating's standard deviation, when the board estimates
// its 2.5th and 97.5th percentiles from BoardRounds rounds: the sampling
// error of a sample quantile, √(p(1−p)/R)/φ(z).
func (o PlanOptions) kappa() float64 {
	if o.BoardRounds < 0 {
		return 0
	}
	const p = 0.025
	phi := math.Exp(-z*z/2) / math.Sqrt(2*math.Pi)
	return math.Sqrt(p*(1-p)/float64(o.BoardRounds)) / phi
}

// boardSeparated says whether the board a reader would see separates the
// top focusTop models: the fit's 95 % intervals with each end moved by the
// Monte Carlo error of the board's bootstrap (kappa standard deviations),
// which lets a board cross the line a checkpoint or two before the exact
// intervals would.
func (t *Tracker) boardSeparated(r *rand.Rand, focusTop int, kappa float64) bool {
	m := t.Len()
	_, sd := t.centred()
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(t.theta[y], t.theta[x]) })
	low, high := make([]float64, m), make([]float64, m)
	for i := range m {
		low[i] = t.theta[i] - (z-kappa*r.NormFloat64())*sd[i]
		high[i] = t.theta[i] + (z+kappa*r.NormFloat64())*sd[i]
	}
	k := focusTop
	if k <= 0 || k >= m {
		k = m - 1
	}
	for rk := range k {
		for _, x := range order[rk+1:] {
			if high[x] >= low[order[rk]] {
				return false
			}
		}
	}
	return m >= 2
}

// likeliest is the further votes where the sorted futures are densest in
// ratio terms: the geometric middle of the shortest interval holding half
// of them (the shorth of their logarithms, a robust estimate of the mode);
// -1 when that interval is unbounded. With a long right tail the median
// sits above where most futures end: in the benchmark the median was two
// to four times the actual number at 1,000 votes, this 1.2 to 2.2 times.
func likeliest(v []int) int {
	lo, hi := shortest(v, 0.5)
	if hi < 0 {
		return -1
	}
	return int(math.Round(math.Sqrt(float64(max(1, lo)) * float64(max(1, hi)))))
}

// shortest returns the shortest interval in ratio terms (on the log scale)
// that holds share of the sorted futures: its ends are futures. An upper
// end of -1 is unbounded: more than 1−share of the futures never decided,
// and the interval runs from the lowest start that still holds share.
//
// Why not the 10th to 90th percentiles: the futures' votes span orders of
// magnitude and have a long right tail (a draw that puts two models close
// needs many times the votes; docs/performance.md), so the central
// interval is pushed up by the tail. The shortest interval in ratio terms,
// the highest-density interval of the log of the votes, holds as many
// futures, sits where they are densest, and is unbounded far less often.
func shortest(v []int, share float64) (int, int) {
	k := int(math.Ceil(share*float64(len(v)))) - 1
	best, lo, hi := math.Inf(1), 0, -1
	for i := 0; i+k < len(v); i++ {
		if v[i+k] == math.MaxInt {
			break
		}
		w := math.Log(float64(max(1, v[i+k]))) - math.Log(float64(max(1, v[i])))
		if w < best {
			best, lo, hi = w, v[i], v[i+k]
		}
	}
	if hi < 0 {
		first := v[len(v)-1-k]
		return first, -1
	}
	return lo, hi
}
