package pairing_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/pairing"
	"github.com/ringside-eval/ringside/rank"
)

// TestTiesNarrowTheFit: when most votes are ties (as a rule judge's are),
// the tracker's intervals, on which the plan and the pairing rest, are as
// wide as the board's bootstrap intervals of the same votes, not the
// wider ones the model's variance of a vote would give.
func TestTiesNarrowTheFit(t *testing.T) {
	truth := []float64{1100, 1040, 980, 920}
	names := []string{"a", "b", "c", "d"}
	tr := pairing.NewTracker(names)
	bs := rank.NewBattles()
	r := rand.New(rand.NewPCG(7, 7))
	const tieShare = 0.6
	for v := 0; v < 3000; v++ {
		i, j := r.IntN(4), r.IntN(3)
		if j >= i {
			j++
		}
		p := 1 / (1 + math.Pow(10, (truth[j]-truth[i])/400))
		w, score := ringside.WinnerB, 0.0
		switch u := r.Float64(); {
		case u < tieShare:
			w, score = ringside.WinnerTie, 0.5
		case r.Float64() < (p-tieShare/2)/(1-tieShare):
			w, score = ringside.WinnerA, 1
		}
		tr.Add(names[i], names[j], score, 1)
		if err := bs.Add(rank.Battle{ModelA: names[i], ModelB: names[j], Winner: w}); err != nil {
			t.Fatal(err)
		}
	}
	lb, err := rank.Rank(bs, rank.Options{Rounds: 400, Seed: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	board := map[string]float64{}
	for _, m := range lb.Models {
		board[m.Model] = *m.CIHigh - *m.CILow
	}
	tr.Refresh()
	for _, rt := range tr.Ratings() {
		ratio := (rt.High - rt.Low) / board[rt.Model]
		t.Logf("%s: tracker %.1f wide, board %.1f", rt.Model, rt.High-rt.Low, board[rt.Model])
		if ratio < 0.8 || ratio > 1.25 {
			t.Errorf("%s: the tracker's interval is %.2f times the board's", rt.Model, ratio)
		}
	}
	if got := tr.TieShare(); math.Abs(got-tieShare) > 0.03 {
		t.Errorf("tie share %.3f, want about %v", got, tieShare)
	}
}
