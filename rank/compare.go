package rank

import (
	"fmt"
	"math"
	"slices"

	"github.com/ringside-eval/ringside"
)

// Verdicts of a comparison.
const (
	VerdictWorse        = "worse"         // below −margin, interval excludes zero (or unbounded below)
	VerdictBetter       = "better"        // above +margin, interval excludes zero (or unbounded above)
	VerdictWithinMargin = "within_margin" // interval excludes zero, difference within the margin
	VerdictInconclusive = "inconclusive"  // interval includes zero
	VerdictUnrated      = "unrated"       // one of the two has no finite rating here, and the battles do not order them
)

// CompareOptions are Options plus the margin, in rating points, by which a
// candidate must fall behind to be called worse.
type CompareOptions struct {
	Options
	Margin float64
	// MinSliceBattles: a slice with fewer battles is reported, marked
	// BelowMinimum, but never makes the candidate Worse (0: every slice
	// counts). A few battles cross the margin by chance.
	MinSliceBattles int
}

// Comparison is the regression check of a candidate against a baseline:
// overall and per slice (Options.By).
type Comparison struct {
	Baseline  string       `json:"baseline"`
	Candidate string       `json:"candidate"`
	Margin    float64      `json:"margin"`
	Method    Method       `json:"method"`
	Overall   Difference   `json:"overall"`
	By        string       `json:"by,omitempty"`
	Slices    []Difference `json:"slices,omitempty"`
}

// Difference is candidate − baseline in one set of battles. The interval is
// the 2.5th and 97.5th percentiles of the per-round differences of the same
// bootstrap rounds (or ±1.96 sandwich standard errors of the difference);
// null bounds are infinite.
type Difference struct {
	Slice           string     `json:"slice,omitempty"`
	Battles         int        `json:"battles"`
	BaselineRating  *float64   `json:"baseline_rating"`
	CandidateRating *float64   `json:"candidate_rating"`
	Difference      *float64   `json:"difference"`
	CILow           *float64   `json:"ci_low"`
	CIHigh          *float64   `json:"ci_high"`
	Verdict         string     `json:"verdict"`
	Note            string     `json:"note,omitempty"`
	HeadToHead      HeadToHead `json:"head_to_head"`
	// BelowMinimum: the slice has fewer battles than MinSliceBattles; its
	// verdict is reported but not gated on.
	BelowMinimum bool `json:"below_minimum,omitempty"`
}

// Gated reports whether the difference is worse and counts for the gate.
func (d *Difference) Gated() bool {
	return d.Verdict == VerdictWorse && !d.BelowMinimum
}

// HeadToHead is the direct record between the two models.
type HeadToHead struct {
	Battles       int `json:"battles"`
	CandidateWins int `json:"candidate_wins"`
	BaselineWins  int `json:"baseline_wins"`
	Ties          int `json:"ties"`
}

// Worse reports whether the candidate is worse overall or in any slice —
// what `ringside compare` turns into exit status 1. With many slices some
// will cross by chance; choose the slicing accordingly.
func (c *Comparison) Worse() bool {
	if c.Overall.Gated() {
		return true
	}
	for _, d := range c.Slices {
		if d.Gated() {
			return true
		}
	}
	return false
}

// Compare measures candidate − baseline. It needs an interval (bootstrap
// rounds or sandwich); it returns EINVALID for bad options or the same
// model twice, ENOTFOUND when a model has no battles.
func Compare(bs *Battles, baseline, candidate string, opts CompareOptions) (*Comparison, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	if opts.interval() == IntervalNone {
		return nil, ringside.FieldError("bootstrap", "a comparison needs an interval: bootstrap rounds or the sandwich")
	}
	if baseline == candidate {
		return nil, ringside.FieldError("candidate", "the candidate is the baseline (%q)", baseline)
	}
	for _, m := range []string{baseline, candidate} {
		if _, ok := bs.models.ids[m]; !ok {
			return nil, ringside.Errorf(ringside.ENOTFOUND, "model %q has no battles", m)
		}
	}
	sub, sel, _ := bs.selectJudges(bs.all(opts.IncludeIdentityLeaks), &opts.Options)
	a, err := analyse(bs, sub, &opts.Options, true)
	if err != nil {
		return nil, err
	}
	c := &Comparison{Baseline: baseline, Candidate: candidate, Margin: opts.Margin, Method: a.method(&opts.Options)}
	c.Method.Judges = sel
	c.Overall = a.difference(baseline, candidate, opts.Margin)
	if opts.By == "" {
		return c, nil
	}
	c.By = opts.By
	sl := bs.slicesOf(sub, opts.By)
	for k, key := range sl.keys {
		sa, err := analyse(bs, sl.subs[k], &opts.Options, false)
		if err != nil {
			return nil, err
		}
		d := sa.difference(baseline, candidate, opts.Margin)
		d.Slice = key
		if d.Battles < opts.MinSliceBattles {
			d.BelowMinimum = true
			d.Note = joinNote(d.Note, fmt.Sprintf("%d battles, below the minimum of %d: reported, not gated", d.Battles, opts.MinSliceBattles))
		}
		c.Slices = append(c.Slices, d)
	}
	return c, nil
}

func (a *analysis) difference(baseline, candidate string, margin float64) Difference {
	d := Difference{Battles: a.c.battles, Verdict: VerdictUnrated}
	vb, vc := a.local(baseline), a.local(candidate)
	d.HeadToHead = a.headToHead(vb, vc)
	for _, x := range []struct {
		v    int32
		name string
	}{{vb, baseline}, {vc, candidate}} {
		switch {
		case x.v < 0:
			d.Note = x.name + " has no battles here"
			return d
		case a.pos[x.v] < 0:
			d.Note = x.name + " has no finite rating here: " + flagDetails[a.flags[x.v]]
			// An infinite difference is still a verdict when the battles
			// order the two: a candidate that never beat the rated models
			// (directly or through others) is worse than a rated
			// baseline, beyond any margin.
			switch a.order(vb, vc) {
			case -1:
				d.Verdict = VerdictWorse
			case +1:
				d.Verdict = VerdictBetter
			}
			return d
		}
	}
	fb, fc := int(a.pos[vb]), int(a.pos[vc])
	diff := a.rating[fc] - a.rating[fb]
	d.BaselineRating, d.CandidateRating, d.Difference = ptr(a.rating[fb]), ptr(a.rating[fc]), ptr(diff)
	lo, hi := math.Inf(-1), math.Inf(1)
	switch a.interval {
	case IntervalBootstrap:
		mf := len(a.fit)
		var ds []float64
		for r := 0; r < a.rounds; r++ {
			if x := a.reps[r*mf+fc] - a.reps[r*mf+fb]; !math.IsNaN(x) {
				ds = append(ds, x)
			}
		}
		if len(ds) > 0 {
			slices.Sort(ds)
			lo, hi = Quantile(ds, (1-CI)/2), Quantile(ds, 1-(1-CI)/2)
		}
	case IntervalSandwich:
		mf := len(a.fit)
		v := a.cov[fc*mf+fc] + a.cov[fb*mf+fb] - 2*a.cov[fc*mf+fb]
		se := math.Sqrt(math.Max(0, v))
		lo, hi = diff-z*se, diff+z*se
	}
	if !math.IsInf(lo, 0) {
		d.CILow = ptr(lo)
	}
	if !math.IsInf(hi, 0) {
		d.CIHigh = ptr(hi)
	}
	excludesZero := hi < 0 || lo > 0
	switch {
	case diff < -margin && hi < 0:
		d.Verdict = VerdictWorse
	case diff > margin && lo > 0:
		d.Verdict = VerdictBetter
	case excludesZero:
		d.Verdict = VerdictWithinMargin
	default:
		d.Verdict = VerdictInconclusive
	}
	return d
}

// order compares two models of which at least one has no finite rating:
// -1 when the candidate's rating is unbounded below the baseline's, +1
// when above, 0 when the battles do not tell (both unbounded the same way,
// or one not linked to the rated models).
func (a *analysis) order(vb, vc int32) int {
	place := func(v int32) int8 {
		switch {
		case a.pos[v] >= 0:
			return 0
		case a.side == nil || a.side[v] == 0:
			return 2 // undetermined
		}
		return a.side[v]
	}
	pb, pc := place(vb), place(vc)
	if pb == 2 || pc == 2 || pb == pc {
		return 0
	}
	if pc < pb {
		return -1
	}
	return +1
}

func (a *analysis) headToHead(vb, vc int32) HeadToHead {
	var h HeadToHead
	if vb < 0 || vc < 0 {
		return h
	}
	for k := range a.c.i {
		i, j := a.c.i[k], a.c.j[k]
		if (i != vb || j != vc) && (i != vc || j != vb) {
			continue
		}
		wc, wb := a.c.wi[k], a.c.wj[k]
		if i == vb {
			wc, wb = wb, wc
		}
		h.CandidateWins, h.BaselineWins, h.Ties = int(wc), int(wb), int(a.c.t[k])
		h.Battles = h.CandidateWins + h.BaselineWins + h.Ties
	}
	return h
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
