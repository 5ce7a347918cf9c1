package rank

import (
	"math"
	"sort"
)

// Method describes how a leaderboard was computed (docs/formats.md,
// "Leaderboard JSON"). Interval is ringside's addition: bootstrap, sandwich or none.
type Method struct {
	Model           string  `json:"model"`
	Scale           float64 `json:"scale"`
	Base            float64 `json:"base"`
	Init            float64 `json:"init"`
	Ties            string  `json:"ties"`
	BootstrapRounds int     `json:"bootstrap_rounds"`
	CI              float64 `json:"ci"`
	Seed            uint64  `json:"seed"`
	Anchor          *Anchor `json:"anchor"`
	Interval        string  `json:"interval"`
	// Controls are the features the ratings are controlled for (absent:
	// a plain fit). See docs/style-control.md.
	Controls []string `json:"controls,omitempty"`
	// Judges is whose votes the board counts: human, auto, all, or the
	// judges named (Options.Judges).
	Judges string `json:"judges"`
	// Weighting is "propensity" when each vote weighed the inverse of the
	// probability its pair was dealt with (Options.Weighting); absent when
	// every vote weighed 1.
	Weighting string `json:"weighting,omitempty"`
}

// Leaderboard is the JSON shape of docs/formats.md: models sorted by rating,
// highest first, plus ringside's optional parts. Models without a finite
// rating are never in Models; they are in Flagged with the reason.
type Leaderboard struct {
	Method Method `json:"method"`
	// Battles counts battles: the votes of several judges on one battle
	// share one unit of weight. CountedVotes counts the votes behind them, and
	// ExcludedVotes those of the selected judges left out because the judge
	// was flagged or excluded (ExcludedJudges).
	Battles        int            `json:"battles"`
	CountedVotes   int            `json:"counted_votes"`
	ExcludedVotes  int            `json:"excluded_votes,omitempty"`
	ExcludedJudges []string       `json:"excluded_judges,omitempty"`
	Models         []ModelRating  `json:"models"`
	Flagged        []FlaggedModel `json:"flagged,omitempty"`
	Matrix         *Matrix        `json:"matrix,omitempty"`
	Notes          []string       `json:"notes,omitempty"`
	// Coefficients are the control features' fitted effects, in the order
	// of Method.Controls.
	Coefficients []Coefficient `json:"coefficients,omitempty"`
	// By names the slicing (Options.By); Slices holds one leaderboard per
	// value, each with its own fit and intervals.
	By     string                  `json:"by,omitempty"`
	Slices map[string]*Leaderboard `json:"slices,omitempty"`
}

// ModelRating is one rated model. CILow and CIHigh are null without an
// interval, or when the bound is infinite: CIUnbounded then says which side
// ("low", "high" or "both") and NonfiniteRounds how many bootstrap rounds gave
// the model no finite rating.
type ModelRating struct {
	Model  string   `json:"model"`
	Rating float64  `json:"rating"`
	CILow  *float64 `json:"ci_low"`
	CIHigh *float64 `json:"ci_high"`
	// Rank is Rank(UB): 1 + the number of models whose ci_low is above this
	// model's ci_high (without intervals: whose rating is above).
	Rank int `json:"rank"`
	Counts
	CIUnbounded     string `json:"ci_unbounded,omitempty"`
	NonfiniteRounds int    `json:"nonfinite_rounds,omitempty"`
	// UncontrolledRating and UncontrolledRank are the plain fit's, on a
	// controlled leaderboard.
	UncontrolledRating *float64 `json:"uncontrolled_rating,omitempty"`
	UncontrolledRank   *int     `json:"uncontrolled_rank,omitempty"`
	Elo                *float64 `json:"elo,omitempty"`
	*Perf
}

// FlaggedModel is a model with no finite maximum-likelihood rating: Reason
// is one of the Flag constants, Detail says it in words.
type FlaggedModel struct {
	Model  string `json:"model"`
	Reason string `json:"reason"`
	Detail string `json:"detail"`
	Counts
	Elo *float64 `json:"elo,omitempty"`
	*Perf
}

// Matrix is the pairwise record: WinRate[r][c] is the row model's score
// against the column model, (wins + ties/2) / battles, null when they never
// met; Battles[r][c] how often they met. Models are in leaderboard order,
// flagged models last.
type Matrix struct {
	Models  []string     `json:"models"`
	WinRate [][]*float64 `json:"win_rate"`
	Battles [][]int      `json:"battles"`
}

// Rank computes the leaderboard of the stored battles (without identity
// leaks unless asked). It returns EINVALID for bad options or an anchor
// that has no battles or no finite rating, and EINTERNAL if a fit fails.
func Rank(bs *Battles, opts Options) (*Leaderboard, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	sub, sel, left := bs.selectJudges(bs.all(opts.IncludeIdentityLeaks), &opts)
	a, err := analyse(bs, sub, &opts, true)
	if err != nil {
		return nil, err
	}
	lb := a.board(&opts)
	lb.Method.Judges, lb.ExcludedVotes = sel, left
	if left > 0 {
		lb.ExcludedJudges = opts.ExcludeJudges
	}
	if opts.By == "" {
		return lb, nil
	}
	sl := bs.slicesOf(sub, opts.By)
	lb.By = opts.By
	lb.Slices = map[string]*Leaderboard{}
	if sl.missing > 0 {
		lb.Notes = append(lb.Notes, sl.note(opts.By))
	}
	for k, key := range sl.keys {
		sa, err := analyse(bs, sl.subs[k], &opts, false)
		if err != nil {
			return nil, err
		}
		lb.Slices[key] = sa.board(&opts)
		lb.Slices[key].Method.Judges = sel
	}
	return lb, nil
}

func (a *analysis) method(opts *Options) Method {
	return Method{
		Model: "bradley-terry", Scale: 400, Base: 10, Init: 1000, Ties: "half",
		BootstrapRounds: a.rounds, CI: CI, Seed: opts.Seed, Anchor: a.usedAnch, Interval: a.interval,
		Weighting: map[bool]string{true: WeightingPropensity}[opts.weighted()],
	}
}

func (a *analysis) leaderboard(opts *Options) *Leaderboard {
	lb := &Leaderboard{Method: a.method(opts), Battles: a.c.battles, CountedVotes: a.bs.votesIn(a.sub), Models: []ModelRating{}, Notes: a.notes}
	var elo []float64
	if opts.Elo {
		elo = a.bs.elo(a.sub, a.c)
	}
	eloOf := func(v int32) *float64 {
		if elo == nil {
			return nil
		}
		return ptr(elo[v])
	}
	for f, v := range a.fit {
		mr := ModelRating{Model: a.names[v], Rating: a.rating[f], Counts: a.counts[v], Elo: eloOf(v)}
		lo, hi := a.low[f], a.high[f]
		if a.interval != IntervalNone {
			if math.IsNaN(lo) { // every round undetermined
				lo, hi = math.Inf(-1), math.Inf(1)
			}
			if !math.IsInf(lo, 0) {
				mr.CILow = ptr(lo)
			}
			if !math.IsInf(hi, 0) {
				mr.CIHigh = ptr(hi)
			}
			switch {
			case math.IsInf(lo, 0) && math.IsInf(hi, 0):
				mr.CIUnbounded = "both"
			case math.IsInf(lo, 0):
				mr.CIUnbounded = "low"
			case math.IsInf(hi, 0):
				mr.CIUnbounded = "high"
			}
		}
		if a.nonfinite != nil {
			mr.NonfiniteRounds = a.nonfinite[f]
		}
		lb.Models = append(lb.Models, mr)
	}
	for f := range lb.Models {
		lb.Models[f].Rank = 1 + a.above(f)
	}
	sort.SliceStable(lb.Models, func(x, y int) bool {
		mx, my := lb.Models[x], lb.Models[y]
		return mx.Rating > my.Rating || mx.Rating == my.Rating && mx.Model < my.Model
	})
	for v, reason := range a.flags {
		if reason != "" {
			lb.Flagged = append(lb.Flagged, FlaggedModel{
				Model: a.names[v], Reason: reason, Detail: flagDetails[reason], Counts: a.counts[v], Elo: eloOf(int32(v)),
			})
		}
	}
	sort.SliceStable(lb.Flagged, func(x, y int) bool {
		fx, fy := lb.Flagged[x], lb.Flagged[y]
		if ox, oy := flagOrder[fx.Reason], flagOrder[fy.Reason]; ox != oy {
			return ox < oy
		}
		return fx.Model < fy.Model
	})
	if opts.Matrix {
		lb.Matrix = a.matrix(lb)
	}
	return lb
}

// flagOrder lists flagged models roughly from the top of the table down.
var flagOrder = map[string]int{
	FlagUndefeated: 0, FlagAbove: 1, FlagDisconnected: 2, FlagUnresolved: 3, FlagBelow: 4, FlagWinless: 5,
	FlagNoBattles: 6,
}

// above counts the models whose interval lies wholly above model f's:
// Rank(UB) − 1. Without intervals it compares ratings.
func (a *analysis) above(f int) int {
	n := 0
	if a.interval == IntervalNone {
		for g := range a.rating {
			if a.rating[g] > a.rating[f] {
				n++
			}
		}
		return n
	}
	hi := a.high[f]
	if math.IsNaN(hi) {
		hi = math.Inf(1)
	}
	for g := range a.low {
		if lo := a.low[g]; !math.IsNaN(lo) && lo > hi {
			n++
		}
	}
	return n
}

func (a *analysis) matrix(lb *Leaderboard) *Matrix {
	order := make([]string, 0, len(a.names))
	for _, m := range lb.Models {
		order = append(order, m.Model)
	}
	for _, m := range lb.Flagged {
		order = append(order, m.Model)
	}
	row := map[string]int{}
	for r, name := range order {
		row[name] = r
	}
	n := len(order)
	mx := &Matrix{Models: order, WinRate: make([][]*float64, n), Battles: make([][]int, n)}
	for r := range mx.WinRate {
		mx.WinRate[r] = make([]*float64, n)
		mx.Battles[r] = make([]int, n)
	}
	for k := range a.c.i {
		x, y := row[a.names[a.c.i[k]]], row[a.names[a.c.j[k]]]
		nb := float64(a.c.wi[k] + a.c.wj[k] + a.c.t[k])
		si := a.c.score(k)
		mx.Battles[x][y], mx.Battles[y][x] = int(nb), int(nb)
		mx.WinRate[x][y] = ptr(si / nb)
		mx.WinRate[y][x] = ptr((nb - si) / nb)
	}
	return mx
}

func ptr[T any](v T) *T { return &v }
