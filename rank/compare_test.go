package rank

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ringside-eval/ringside"
)

// compareData: base and cand among three others; cand is truly 80 points
// worse, and in category "b" the two are equal.
func compareData(t *testing.T) *Battles {
	rng := rand.New(rand.NewPCG(21, 22))
	bs := NewBattles()
	names := []string{"base", "cand", "o1", "o2", "o3"}
	synthetic(rng, names, []float64{1050, 970, 900, 1000, 1100}, 6000, func(b Battle) {
		b.Category = "a"
		_ = bs.Add(b)
	})
	synthetic(rng, names, []float64{1000, 1000, 900, 1000, 1100}, 6000, func(b Battle) {
		b.Category = "b"
		_ = bs.Add(b)
	})
	return bs
}

func TestCompare(t *testing.T) {
	bs := compareData(t)
	for _, interval := range []string{IntervalBootstrap, IntervalSandwich} {
		opts := CompareOptions{Options: Options{Rounds: 300, Seed: 3, Interval: interval, By: ByCategory}, Margin: 10}
		c, err := Compare(bs, "base", "cand", opts)
		if err != nil {
			t.Fatal(err)
		}
		o := c.Overall
		lb := mustRank(t, bs, opts.Options)
		want := ratingOf(t, lb, "cand").Rating - ratingOf(t, lb, "base").Rating
		near(t, interval+" difference", *o.Difference, want, 1e-9)
		if o.CILow == nil || o.CIHigh == nil || *o.CILow > *o.Difference || *o.CIHigh < *o.Difference {
			t.Fatalf("%s: interval [%v, %v] around %v", interval, o.CILow, o.CIHigh, *o.Difference)
		}
		if len(c.Slices) != 2 || c.Slices[0].Slice != "a" || c.Slices[1].Slice != "b" {
			t.Fatalf("%s: slices %+v", interval, c.Slices)
		}
		if v := c.Slices[0].Verdict; v != VerdictWorse {
			t.Errorf("%s: slice a verdict %s (difference %.1f [%.1f, %.1f])", interval, v, *c.Slices[0].Difference, *c.Slices[0].CILow, *c.Slices[0].CIHigh)
		}
		if v := c.Slices[1].Verdict; v != VerdictInconclusive && v != VerdictWithinMargin {
			t.Errorf("%s: slice b verdict %s", interval, v)
		}
		if !c.Worse() {
			t.Errorf("%s: not worse", interval)
		}
		h := o.HeadToHead
		if h.Battles == 0 || h.Battles != h.CandidateWins+h.BaselineWins+h.Ties || h.BaselineWins <= h.CandidateWins {
			t.Errorf("%s: head to head %+v", interval, h)
		}
	}
	// The bootstrap interval of the difference is narrower than the two
	// models' own intervals combined: it uses the same rounds.
	opts := CompareOptions{Options: Options{Rounds: 300, Seed: 3}}
	c, _ := Compare(bs, "base", "cand", opts)
	lb := mustRank(t, bs, opts.Options)
	b, cand := ratingOf(t, lb, "base"), ratingOf(t, lb, "cand")
	if w, sum := *c.Overall.CIHigh-*c.Overall.CILow, (*b.CIHigh-*b.CILow)+(*cand.CIHigh-*cand.CILow); w >= sum {
		t.Errorf("difference interval %.1f wide, the two intervals %.1f", w, sum)
	}

	// A margin wider than the gap is not a regression.
	c, _ = Compare(bs, "base", "cand", CompareOptions{Options: Options{Rounds: 200}, Margin: 500})
	if c.Overall.Verdict != VerdictWithinMargin || c.Worse() {
		t.Errorf("margin 500: %s", c.Overall.Verdict)
	}
	// And the other way round it is better.
	c, _ = Compare(bs, "cand", "base", CompareOptions{Options: Options{Rounds: 200}, Margin: 5})
	if c.Overall.Verdict != VerdictBetter {
		t.Errorf("reversed: %s", c.Overall.Verdict)
	}
}

func TestCompareErrors(t *testing.T) {
	bs := compareData(t)
	add(t, bs, "loser", "o1", wB, 3)
	for _, tc := range []struct {
		base, cand string
		opts       CompareOptions
		code       string
	}{
		{"base", "nobody", CompareOptions{Options: Options{Rounds: 10}}, ringside.ENOTFOUND},
		{"base", "base", CompareOptions{Options: Options{Rounds: 10}}, ringside.EINVALID},
		{"base", "cand", CompareOptions{}, ringside.EINVALID},
	} {
		if _, err := Compare(bs, tc.base, tc.cand, tc.opts); ringside.ErrorCode(err) != tc.code {
			t.Errorf("%s vs %s: err %v, want %s", tc.cand, tc.base, err, tc.code)
		}
	}
	// A candidate that never won is worse than a rated baseline by an
	// unbounded difference: a regression, whatever the margin.
	c, err := Compare(bs, "base", "loser", CompareOptions{Options: Options{Rounds: 10}, Margin: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if c.Overall.Verdict != VerdictWorse || c.Overall.Difference != nil || c.Overall.Note == "" || !c.Worse() {
		t.Errorf("winless candidate: %+v", c.Overall)
	}
	if c, _ := Compare(bs, "loser", "base", CompareOptions{Options: Options{Rounds: 10}}); c.Overall.Verdict != VerdictBetter {
		t.Errorf("winless baseline: %+v", c.Overall)
	}
	// A model the battles do not link to the rated ones cannot be ordered.
	add(t, bs, "island1", "island2", wA, 2)
	add(t, bs, "island2", "island1", wA, 2)
	c, err = Compare(bs, "base", "island1", CompareOptions{Options: Options{Rounds: 10}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Overall.Verdict != VerdictUnrated || c.Overall.Difference != nil || c.Overall.Note == "" || c.Worse() {
		t.Errorf("disconnected candidate: %+v", c.Overall)
	}
}

// Where a model's rating goes to infinity in some rounds the difference
// interval is open on that side, not a made-up number.
func TestCompareUnboundedRounds(t *testing.T) {
	bs := compareData(t)
	add(t, bs, "rare", "o2", wA, 8)
	add(t, bs, "o2", "rare", wA, 1)
	c, err := Compare(bs, "o2", "rare", CompareOptions{Options: Options{Rounds: 200, Seed: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Overall.CIHigh != nil || c.Overall.CILow == nil || math.IsInf(*c.Overall.CILow, 0) {
		t.Errorf("interval [%v, %v]", c.Overall.CILow, c.Overall.CIHigh)
	}
}

// A slice of three battles in which the candidate lost both of its own is
// "worse" (unbounded below), but below MinSliceBattles it is reported, not
// gated on.
func TestCompareSmallSliceIsNotGated(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	bs := NewBattles()
	synthetic(rng, []string{"base", "cand", "o1"}, []float64{1000, 1000, 950}, 3000, func(b Battle) {
		b.Category = "big"
		_ = bs.Add(b)
	})
	for _, b := range []Battle{{ModelA: "base", ModelB: "cand", Winner: ringside.WinnerA},
		{ModelA: "o1", ModelB: "cand", Winner: ringside.WinnerA}, {ModelA: "base", ModelB: "o1", Winner: ringside.WinnerTie}} {
		b.Category = "tiny"
		if err := bs.Add(b); err != nil {
			t.Fatal(err)
		}
	}
	opts := CompareOptions{Options: Options{Rounds: 100, Seed: 1, By: ByCategory}}
	c, err := Compare(bs, "base", "cand", opts)
	if err != nil {
		t.Fatal(err)
	}
	tiny := c.Slices[len(c.Slices)-1]
	if tiny.Slice != "tiny" || tiny.Verdict != VerdictWorse || !c.Worse() {
		t.Fatalf("without a minimum: slice %+v, worse %v; want the tiny slice worse", tiny, c.Worse())
	}
	opts.MinSliceBattles = 20
	c, _ = Compare(bs, "base", "cand", opts)
	tiny = c.Slices[len(c.Slices)-1]
	if c.Worse() || !tiny.BelowMinimum || tiny.Verdict != VerdictWorse || tiny.Note == "" {
		t.Fatalf("minimum 20: slice %+v, worse %v; want it reported, not gated", tiny, c.Worse())
	}
	if big := c.Slices[0]; big.BelowMinimum {
		t.Fatalf("the big slice is marked below the minimum: %+v", big)
	}
}
