package rank

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ringside-eval/ringside"
)

// Three judges who agree on every battle are one battle's worth of evidence:
// the board, its counts and its bootstrap intervals are those of one judge.
// Counted as three battles each, the intervals would be about √3 narrower.
func TestUnitsAgreeingJudgesCountOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	one, three, loose := NewBattles(), NewBattles(), NewBattles()
	unit := int64(0)
	synthetic(rng, []string{"p", "q", "r"}, []float64{1100, 1000, 950}, 600, func(b Battle) {
		unit++
		b.Judge = "human:ana"
		if err := one.Add(b); err != nil {
			t.Fatal(err)
		}
		for _, j := range []string{"human:ana", "human:bo", "human:cy"} {
			b.Judge, b.Unit = j, unit
			if err := three.Add(b); err != nil {
				t.Fatal(err)
			}
			b.Unit = 0
			if err := loose.Add(b); err != nil {
				t.Fatal(err)
			}
		}
	})
	opts := Options{Rounds: 200, Seed: 3}
	lo, lt, ll := mustRank(t, one, opts), mustRank(t, three, opts), mustRank(t, loose, opts)
	if lt.Battles != 600 || lt.CountedVotes != 1800 || ll.Battles != 1800 {
		t.Fatalf("battles %d votes %d; without units %d", lt.Battles, lt.CountedVotes, ll.Battles)
	}
	for _, m := range lo.Models {
		got := ratingOf(t, lt, m.Model)
		if got.Rating != m.Rating || *got.CILow != *m.CILow || *got.CIHigh != *m.CIHigh || got.Battles != m.Battles {
			t.Errorf("%s: with units %+v, one judge %+v", m.Model, got, m)
		}
		width, looseWidth := *m.CIHigh-*m.CILow, *ratingOf(t, ll, m.Model).CIHigh-*ratingOf(t, ll, m.Model).CILow
		if r := width / looseWidth; r < 1.5 || r > 2 {
			t.Errorf("%s: interval %.1f, votes as battles %.1f (ratio %.2f, want about √3)", m.Model, width, looseWidth, r)
		}
	}
}

// A battle whose judges split two to one scores ⅔ for the side of two.
// Hand-computed: x vs y once split ⅔ for x, once won by y: x scores ⅔ of 2,
// so R_x − R_y = 400·log10((⅓)/(⅔)).
func TestUnitsSplitBattleShare(t *testing.T) {
	bs := NewBattles()
	for _, w := range []ringside.Winner{wA, wA, wB} {
		if err := bs.Add(Battle{ModelA: "x", ModelB: "y", Winner: w, Unit: 7}); err != nil {
			t.Fatal(err)
		}
	}
	// The same battle written the other way round is still battle 7.
	if err := bs.Add(Battle{ModelA: "y", ModelB: "x", Winner: wB, Unit: 7, Judge: "human:dee"}); err != nil {
		t.Fatal(err)
	}
	if err := bs.Add(Battle{ModelA: "x", ModelB: "y", Winner: wB}); err != nil {
		t.Fatal(err)
	}
	// Four votes on battle 7: a, a, b and (written y–x) b for x, so x
	// scores 3 of 4.
	lb := mustRank(t, bs, Options{Interval: IntervalSandwich, Matrix: true})
	x, y := ratingOf(t, lb, "x"), ratingOf(t, lb, "y")
	near(t, "x − y", x.Rating-y.Rating, 400*math.Log10(0.75/1.25), 1e-9)
	near(t, "x win rate", x.WinRate, 0.75/2, 1e-12)
	if x.Battles != 2 || x.Ties != 1 || x.Losses != 1 || lb.Battles != 2 || lb.CountedVotes != 5 {
		t.Errorf("x %+v; board battles %d votes %d", x.Counts, lb.Battles, lb.CountedVotes)
	}
	near(t, "matrix", *lb.Matrix.WinRate[1][0], 0.375, 1e-12)
	if err := bs.Add(Battle{ModelA: "x", ModelB: "z", Winner: wA, Unit: 7}); ringside.ErrorCode(err) != ringside.EINVALID {
		t.Errorf("a vote on battle 7 between other models: %v", err)
	}
}

// The bootstrap draws split battles as battles: with every battle split ⅔,
// each round has the full data's share for x, so the interval is a point
// (counted as votes, or as ties, it would not be).
func TestUnitsBootstrapSplitBattles(t *testing.T) {
	bs := NewBattles()
	for u := int64(1); u <= 60; u++ {
		a, b, votes := "x", "y", []ringside.Winner{wA, wA, wB}
		if u%2 == 0 {
			a, b, votes = "y", "x", []ringside.Winner{wB, wB, wA}
		}
		for k, w := range votes {
			if err := bs.Add(Battle{ModelA: a, ModelB: b, Winner: w, Unit: u, Judge: []string{"h:1", "h:2", "h:3"}[k]}); err != nil {
				t.Fatal(err)
			}
		}
	}
	lb := mustRank(t, bs, Options{Rounds: 50, Seed: 1})
	x := ratingOf(t, lb, "x")
	want := 1000 + 200*math.Log10(2)
	near(t, "x", x.Rating, want, 1e-9)
	near(t, "ci low", *x.CILow, want, 1e-6)
	near(t, "ci high", *x.CIHigh, want, 1e-6)
	if lb.Battles != 60 || x.Ties != 60 {
		t.Errorf("battles %d, ties %d", lb.Battles, x.Ties)
	}
}

// The default board counts human votes when there are any; excluded judges'
// votes are left out and counted.
func TestJudgeSelection(t *testing.T) {
	bs := NewBattles()
	addJ := func(j string, w ringside.Winner, n int) {
		for i := 0; i < n; i++ {
			if err := bs.Add(Battle{ModelA: "x", ModelB: "y", Winner: w, Judge: j}); err != nil {
				t.Fatal(err)
			}
		}
	}
	addJ("llm:gpt", wA, 5)
	addJ("llm:gpt", wB, 1)
	lb := mustRank(t, bs, Options{})
	if lb.Method.Judges != JudgesAuto || lb.CountedVotes != 6 {
		t.Errorf("only automatic votes: %q %d", lb.Method.Judges, lb.CountedVotes)
	}
	addJ("human:ana", wB, 3)
	addJ("human:ana", wA, 1)
	addJ("human:bo", wA, 4)
	for _, c := range []struct {
		opts        Options
		judges      string
		votes, left int
	}{
		{Options{}, JudgesHuman, 8, 0},
		{Options{Judges: JudgesAuto}, JudgesAuto, 6, 0},
		{Options{Judges: JudgesAll}, JudgesAll, 14, 0},
		{Options{Judges: "ana,llm:gpt"}, "ana,llm:gpt", 10, 0},
		{Options{ExcludeJudges: []string{"human:bo"}}, JudgesHuman, 4, 4},
		{Options{ExcludeJudges: []string{"human:bo", "human:ana"}}, JudgesAuto, 6, 0},
	} {
		lb := mustRank(t, bs, c.opts)
		if lb.Method.Judges != c.judges || lb.CountedVotes != c.votes || lb.ExcludedVotes != c.left {
			t.Errorf("%+v: judges %q votes %d excluded %d", c.opts, lb.Method.Judges, lb.CountedVotes, lb.ExcludedVotes)
		}
	}
	if _, err := Rank(bs, Options{Judges: "ana,"}); ringside.ErrorCode(err) != ringside.EINVALID {
		t.Errorf("bad judges: %v", err)
	}
}
