package store_test

import (
	"context"
	"math"
	"testing"

	"github.com/ringside-eval/ringside"
)

// TestStoredPairsAndPropensities: the dealable pairs are counted, a pair's
// candidates come from either order, and a vote on a deal drawn with a
// propensity is tallied with its inverse.
func TestStoredPairsAndPropensities(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	f := mustCandidateFixture(t, db)
	pairs, err := db.StoredPairs(ctx, nil)
	if err != nil || len(pairs) != 1 || pairs[0].Battles != 3 || pairs[0].ModelA != "m1" {
		t.Fatalf("pairs %+v, %v; want m1-m2 with the 3 dealable battles", pairs, err)
	}
	ana := f.judges[0]
	for _, order := range [][2]string{{"m1", "m2"}, {"m2", "m1"}} {
		cands, err := db.StoredPairCandidates(ctx, ana.ID, nil, order[0], order[1], 10)
		if err != nil || len(cands) != 3 {
			t.Fatalf("%v: %d candidates, %v; want 3", order, len(cands), err)
		}
	}
	if cands, _ := db.StoredPairCandidates(ctx, ana.ID, nil, "m1", "m3", 10); len(cands) != 0 {
		t.Errorf("a pair with no battles has %d candidates", len(cands))
	}
	w := db.NewGroupWriter(8)
	defer w.Close()
	b1, b2 := f.battles["p1"], f.battles["p2"]
	if err := w.DealBattleDrawn(ctx, b1, false, ana.ID, 0.25); err != nil {
		t.Fatal(err)
	}
	if err := w.DealBattle(ctx, b2, false, ana.ID); err != nil {
		t.Fatal(err)
	}
	for _, b := range []*ringside.Battle{b1, b2} {
		if _, err := w.CastVote(ctx, &ringside.Vote{BattleID: b.ID, JudgeID: ana.ID, Winner: ringside.WinnerA}, true); err != nil {
			t.Fatal(err)
		}
	}
	// The judge has seen p1 and p2: only p5 is left in the pair.
	if cands, _ := db.StoredPairCandidates(ctx, ana.ID, nil, "m2", "m1", 10); len(cands) != 1 || cands[0].BattleID != f.battles["p5"].ID {
		t.Errorf("after two deals: %+v", cands)
	}
	tallies, err := db.PairTallies(ctx)
	if err != nil || len(tallies) != 1 {
		t.Fatalf("tallies %+v, %v", tallies, err)
	}
	if tl := tallies[0]; tl.Count != 2 || tl.Drawn != 1 || math.Abs(tl.InverseSum-4) > 1e-12 || tl.Winner != ringside.WinnerA {
		t.Errorf("tally %+v, want 2 votes for a, one drawn at 0.25", tl)
	}
}
