package pairing

import (
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
	// Seed makes the plan reproducible.
	Seed uint64
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
	// Median, Low and High are the further votes until the decision: the
	// median and the 80 % interval (10th and 90th percentiles) over the
	// simulated futures. Unreached counts the futures not decided within
	// MaxVotes; when they pass 10 %, High is -1 (unbounded).
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
// dealing among pairs, from the current fit: each future draws true ratings
// from the fit's uncertainty (before any vote, from the prior), has judges
// vote by Bradley-Terry with them, and stops at the first checkpoint at
// which the top models are separated. t is not changed.
func MakePlan(t *Tracker, p Policy, pairs []Pair, o PlanOptions) *Plan {
	o.defaults()
	t.fit()
	bounds := p.Boundaries(t)
	plan := &Plan{Votes: int(t.total), FromPrior: t.total == 0, Models: t.Len(), FocusTop: p.FocusTop,
		Adaptive: p.Adaptive, Separated: Separated(bounds), Sims: o.Sims, Ratings: t.Ratings()}
	for _, b := range bounds {
		if b.Margin <= 0 {
			plan.Undecided = append(plan.Undecided, b)
		}
	}
	if t.Len() < 2 || len(pairs) == 0 {
		return plan
	}
	r := rand.New(rand.NewPCG(o.Seed, 0x91a2))
	var chol []float64
	if !plan.FromPrior {
		chol, _ = cholesky(t.cov, t.Len())
	}
	further := make([]int, 0, o.Sims)
	for range o.Sims {
		truth := t.drawTruth(r, chol, o.PriorSD/Scale)
		n, ok := t.clone().simulate(r, p, pairs, truth, o)
		if !ok {
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
	plan.Median, plan.Low, plan.High = at(0.5), at(0.1), at(0.9)
	return plan
}

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
	c.n, c.s = slices.Clone(t.n), slices.Clone(t.s)
	c.battles, c.theta = slices.Clone(t.battles), slices.Clone(t.theta)
	c.cov = slices.Clone(t.cov)
	return &c
}

// simulate deals and votes on t until the decision is made at a checkpoint
// (a multiple of o.Check of all votes, as a board refreshed every so many
// votes would see it), and returns the further votes it took.
func (t *Tracker) simulate(r *rand.Rand, p Policy, pairs []Pair, truth []float64, o PlanOptions) (int, bool) {
	start := int(t.total)
	var probs []float64
	for n := 1; n <= o.MaxVotes; n++ {
		if t.Refresh() || probs == nil {
			probs = p.Probabilities(t, pairs)
		}
		k, _ := Sample(probs, nil, r.Float64())
		a, b := pairs[k].I, pairs[k].J
		score := 0.0
		if r.Float64() < sigmoid(truth[a]-truth[b]) {
			score = 1
		}
		t.Add(t.names[a], t.names[b], score, 1)
		if (start+n)%o.Check == 0 {
			t.fit()
			if Separated(p.Boundaries(t)) {
				return n, true
			}
		}
	}
	return 0, false
}
