package rank

import (
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"

	"github.com/ringside-eval/ringside"
)

// Interval methods (Options.Interval).
const (
	IntervalBootstrap = "bootstrap"
	IntervalSandwich  = "sandwich"
	IntervalNone      = "none"
)

// CI is the coverage of every interval: the 2.5th and 97.5th percentiles.
const CI = 0.95

// z is the normal quantile of a 95 % two-sided interval (sandwich).
const z = 1.959963984540054

// Anchor pins one model's rating; all others shift with it.
type Anchor struct {
	Model  string  `json:"model"`
	Rating float64 `json:"rating"`
}

// ParseAnchor reads "MODEL=RATING" (as in --anchor). Model names may
// themselves contain '=': the last one separates the rating.
func ParseAnchor(s string) (*Anchor, error) {
	i := strings.LastIndexByte(s, '=')
	if i <= 0 {
		return nil, ringside.FieldError("anchor", "%q: want MODEL=RATING", s)
	}
	r, err := strconv.ParseFloat(strings.TrimSpace(s[i+1:]), 64)
	if err != nil || math.IsNaN(r) || math.IsInf(r, 0) {
		return nil, ringside.FieldError("anchor", "%q: the rating is not a number", s)
	}
	return &Anchor{Model: strings.TrimSpace(s[:i]), Rating: r}, nil
}

// Options choose what Rank and Compare compute. The zero value is a point
// fit without intervals, mean 1000.
type Options struct {
	// Rounds is the number of bootstrap rounds; 0 runs none.
	Rounds int
	// Seed makes the bootstrap reproducible: round r draws from a stream
	// derived from (Seed, r) alone, whatever the number of workers.
	Seed uint64
	// Anchor pins a model's rating; nil means mean 1000 over rated models.
	Anchor *Anchor
	// Interval is IntervalBootstrap, IntervalSandwich or IntervalNone; empty
	// means bootstrap when Rounds > 0, else none.
	Interval string
	// By slices the leaderboard: one of SliceBy.
	By string
	// Elo adds the online Elo rating (K = 4, in time order) to every model.
	Elo bool
	// Matrix adds the pairwise win-rate matrix.
	Matrix bool
	// IncludeIdentityLeaks keeps battles marked identity_leak.
	IncludeIdentityLeaks bool
	// Judges chooses whose votes count: JudgesHuman, JudgesAuto, JudgesAll,
	// or judge labels or names separated by commas; "" means human votes
	// when there are any, else automatic ones (see judges.go).
	Judges string
	// ExcludeJudges are judge labels whose votes are left out (flagged or
	// excluded by hand); the board says how many votes that left out.
	ExcludeJudges []string
	// Workers bounds the bootstrap's goroutines; 0 means GOMAXPROCS.
	Workers int
	// Memo, when set, keeps bootstrap results for sets of battles that
	// come again unchanged (see Memo).
	Memo *Memo
	// Controls are the features a style- or cost-controlled leaderboard
	// holds constant (see ParseControls); empty ranks plainly.
	Controls []string
	// Weighting is WeightingPropensity to weigh each vote by the inverse of
	// the probability its pair was dealt with (weights.go), in the fit and
	// in every bootstrap round; "" or WeightingNone weighs every vote 1.
	Weighting string
}

func (o *Options) interval() string {
	if o.Interval != "" {
		return o.Interval
	}
	if o.Rounds > 0 {
		return IntervalBootstrap
	}
	return IntervalNone
}

func (o *Options) validate() error {
	switch o.interval() {
	case IntervalBootstrap:
		if o.Rounds <= 0 {
			return ringside.FieldError("bootstrap", "the bootstrap interval needs at least one round")
		}
	case IntervalSandwich, IntervalNone:
	default:
		return ringside.FieldError("interval", "%q is not one of bootstrap, sandwich, none", o.Interval)
	}
	if o.Rounds < 0 {
		return ringside.FieldError("bootstrap", "must not be negative")
	}
	if o.By != "" && !validBy(o.By) {
		return ringside.FieldError("by", "%q is not one of %s", o.By, strings.Join(SliceBy, ", "))
	}
	if err := ValidateJudges(o.Judges); err != nil {
		return err
	}
	if o.Anchor != nil && o.Anchor.Model == "" {
		return ringside.FieldError("anchor", "the anchor needs a model")
	}
	for _, c := range o.Controls {
		if controlIndex(c) < 0 {
			return ringside.FieldError("control", "%q is not one of %s", c, strings.Join(Controls, ", "))
		}
	}
	if err := ValidateWeighting("weighting", o.Weighting); err != nil {
		return err
	}
	if len(o.Controls) > 0 && o.interval() == IntervalSandwich {
		return ringside.FieldError("interval", "a controlled leaderboard takes its intervals from the bootstrap, not the sandwich")
	}
	return nil
}

func (o *Options) workers() int {
	if o.Workers > 0 {
		return o.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// analysis is the fit of one set of battles with everything derived from
// it; a leaderboard and a comparison are views of it.
type analysis struct {
	bs     *Battles
	sub    subset
	c      *cells
	names  []string // local index → model
	counts []Counts
	flags  []string // local; "" when rated
	// side places each flagged model against the rated group: +1 above,
	// -1 below, 0 undetermined (nil when nobody is rated).
	side []int8
	fit  []int32 // local indices of the rated models
	pos  []int32 // local → position in fit, or -1

	// The likelihood over fit positions, and its integer counts for the
	// bootstrap. other counts the battles outside it (with flagged models).
	prob          *problem
	pwi, pwj, pt  []int32
	pfrac         []fracCell // split and weighted battles by pair (k is the pair)
	other         int
	theta, rating []float64
	anchor        int32 // fit position of the anchor, or -1
	anchorRating  float64
	iters         int
	gradMax       float64

	interval  string
	rounds    int
	reps      []float64 // rounds × len(fit)
	low, high []float64 // per fit position; NaN when not computed or undetermined
	nonfinite []int
	cov       []float64 // sandwich covariance of the ratings, len(fit)²
	notes     []string
	usedAnch  *Anchor
}

// analyse fits a subset. strictAnchor makes an anchor that cannot be used an
// error (the whole leaderboard); otherwise (a slice) it falls back to mean
// 1000 with a note.
func analyse(bs *Battles, sub subset, opts *Options, strictAnchor bool) (*analysis, error) {
	a := &analysis{bs: bs, sub: sub, anchor: -1, interval: opts.interval()}
	a.c = bs.cellsOf(sub, opts.weighted())
	if opts.weighted() && a.c.drawn == 0 && a.c.battles > 0 {
		a.notes = append(a.notes, "weighting propensity: no vote of this board was dealt with a stored propensity, so every vote weighs 1")
	}
	a.names = make([]string, len(a.c.models))
	for v, id := range a.c.models {
		a.names[v] = bs.models.list[id]
	}
	a.counts = a.c.counts()
	a.chooseFitted()
	if err := a.useAnchor(opts.Anchor, strictAnchor); err != nil {
		return nil, err
	}
	a.buildProblem()
	if err := a.fitRatings(); err != nil {
		return nil, err
	}
	if err := a.intervals(opts); err != nil {
		return nil, err
	}
	return a, nil
}

// chooseFitted picks the models that get a finite rating (the main strongly
// connected group of the win graph), flags the others, and numbers the
// fitted ones in a.pos.
func (a *analysis) chooseFitted() {
	c := a.c
	m := len(c.models)
	weight := make([]float64, m)
	for v := range weight {
		weight[v] = float64(a.counts[v].Battles)
	}
	g := buildGraph(m, c.i, c.j, c.wi, c.wj, c.t)
	comp, nc := g.scc()
	group := mainGroup(comp, nc, weight, -1)
	a.flags = g.flags(group)
	if len(group) > 0 {
		a.side = g.sides(group)
	}
	a.fit = group
	a.pos = make([]int32, m)
	for v := range a.pos {
		a.pos[v] = -1
	}
	for f, v := range group {
		a.pos[v] = int32(f)
	}
}

// useAnchor sets the anchor when its model has a finite rating; otherwise
// it is an error when strict, or a note.
func (a *analysis) useAnchor(an *Anchor, strict bool) error {
	if an == nil {
		return nil
	}
	v := a.local(an.Model)
	var problem string
	switch {
	case v < 0:
		problem = fmt.Sprintf("model %q has no battles", an.Model)
	case a.pos[v] < 0:
		problem = fmt.Sprintf("model %q has no finite rating (%s)", an.Model, a.flags[v])
	}
	if problem == "" {
		a.anchor, a.anchorRating, a.usedAnch = a.pos[v], an.Rating, an
	} else if strict {
		return ringside.FieldError("anchor", "%s", problem)
	} else {
		a.notes = append(a.notes, "anchor not used: "+problem+"; ratings have mean 1000")
	}
	return nil
}

// buildProblem keeps the cells between two fitted models as the fitting
// problem, and counts the other battles in a.other.
func (a *analysis) buildProblem() {
	c := a.c
	a.prob = &problem{m: len(a.fit)}
	// kept[k] is cell k's place among the kept cells, -1 when dropped.
	var kept []int32
	if c.adj != nil {
		kept = make([]int32, len(c.i))
	}
	for k := range c.i {
		fi, fj := a.pos[c.i[k]], a.pos[c.j[k]]
		if fi < 0 || fj < 0 {
			a.other += int(c.wi[k] + c.wj[k] + c.t[k])
			if kept != nil {
				kept[k] = -1
			}
			continue
		}
		if c.adj != nil {
			kept[k] = int32(len(a.pwi))
		}
		a.prob.pi = append(a.prob.pi, fi)
		a.prob.pj = append(a.prob.pj, fj)
		a.pwi = append(a.pwi, c.wi[k])
		a.pwj = append(a.pwj, c.wj[k])
		a.pt = append(a.pt, c.t[k])
	}
	// Split and weighted battles follow their cells; c.frac is in cell
	// order, so one pass keeps the order a walk per cell gave.
	for _, fc := range c.frac {
		if kept[fc.k] >= 0 {
			fc.k = kept[fc.k]
			a.pfrac = append(a.pfrac, fc)
		}
	}
	a.prob.n, a.prob.s = pairStats(a.pwi, a.pwj, a.pt, nil, nil)
	for _, fc := range a.pfrac {
		a.prob.s[fc.k] += float64(fc.n) * fc.dS()
		a.prob.n[fc.k] += float64(fc.n) * fc.dN()
	}
}

// fitRatings finds the maximum-likelihood strengths and places them as
// ratings.
func (a *analysis) fitRatings() error {
	mf := len(a.fit)
	a.theta = make([]float64, mf)
	if mf > 0 {
		sv := newSolver(mf)
		iters, err := sv.fit(a.prob, a.theta, false)
		if err != nil {
			return ringside.Errorf(ringside.EINTERNAL, "fit: %v", err)
		}
		a.iters, a.gradMax = iters, gradMax(a.prob, a.theta)
	}
	a.rating = make([]float64, mf)
	a.place(a.theta, nil, a.rating)
	return nil
}

// intervals fills a.low and a.high by the chosen method (NaN without one).
func (a *analysis) intervals(opts *Options) error {
	mf := len(a.fit)
	a.low, a.high = nanSlice(mf), nanSlice(mf)
	switch a.interval {
	case IntervalBootstrap:
		a.rounds = opts.Rounds
		return a.bootstrap(opts.Rounds, opts.Seed, opts.workers(), opts.Memo)
	case IntervalSandwich:
		return a.sandwich()
	}
	return nil
}

// place converts strengths of the models in members (fit positions; nil
// means all) to ratings: the anchor gets its rating, or else the members'
// mean equals the mean of their full-data ratings (1000 for all of them).
func (a *analysis) place(theta []float64, members []int32, out []float64) {
	if len(out) == 0 {
		return
	}
	all := members == nil
	n := len(members)
	if all {
		n = len(out)
	}
	member := func(x int) int {
		if all {
			return x
		}
		return int(members[x])
	}
	var shift float64
	if a.anchor >= 0 {
		shift = a.anchorRating - ratingScale*theta[a.anchor]
	} else {
		// The full-data fit (a.rating not yet filled, or all members) has
		// mean 1000; a partial round matches its members' full-data mean.
		target, have := 0.0, 0.0
		for x := 0; x < n; x++ {
			f := member(x)
			have += ratingScale * theta[f]
			if all {
				target += 1000
			} else {
				target += a.rating[f]
			}
		}
		shift = (target - have) / float64(n)
	}
	for x := 0; x < n; x++ {
		f := member(x)
		out[f] = ratingScale*theta[f] + shift
	}
	if a.anchor >= 0 {
		out[a.anchor] = a.anchorRating // exactly, not to rounding
	}
}

// local is the local index of a model, or -1.
func (a *analysis) local(model string) int32 {
	id, ok := a.bs.models.ids[model]
	if !ok {
		return -1
	}
	for v, x := range a.c.models {
		if x == id {
			return int32(v)
		}
	}
	return -1
}

// pairStats fills per-pair battles and first-model scores from counts.
func pairStats(wi, wj, t []int32, n, s []float64) ([]float64, []float64) {
	if n == nil {
		n, s = make([]float64, len(wi)), make([]float64, len(wi))
	}
	for k := range wi {
		n[k] = float64(wi[k] + wj[k] + t[k])
		s[k] = float64(wi[k]) + float64(t[k])/2
	}
	return n, s
}

func nanSlice(n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = math.NaN()
	}
	return s
}
