package rank

import (
	"math"
	"testing"

	"github.com/ringside-eval/ringside"
)

// addStyled adds battles to a new store; votes(r) gives battle r's votes
// (their winners, the battle's written as A), unit(r) their shared unit.
func addStyled(t *testing.T, battles []Battle, votes func(r int) []ringside.Winner, unit func(r int) int64) *Battles {
	t.Helper()
	bs := NewBattles()
	for r, b := range battles {
		for x, w := range votes(r) {
			b.Winner, b.Unit, b.Judge = w, unit(r), "human:j"+string(rune('a'+x))
			if err := bs.Add(b); err != nil {
				t.Fatal(err)
			}
		}
	}
	return bs
}

var ctrlLenBold = []string{ControlLength, ControlBold}

// Three judges who agree on a battle are one battle to the controlled fit
// as to the plain one: ratings, coefficients and their bootstrap intervals
// are those of one vote per battle. (Counted as votes, the point estimates
// would agree but the intervals would be about √3 narrower.)
func TestControlledUnitsCountOnce(t *testing.T) {
	battles := styledBattles(5, 500, []float64{1100, 1050, 1000, 950}, []float64{200, 600, 300, 900}, 0.4, 0.15)
	once := func(r int) []ringside.Winner { return []ringside.Winner{battles[r].Winner} }
	thrice := func(r int) []ringside.Winner { w := battles[r].Winner; return []ringside.Winner{w, w, w} }
	unit := func(r int) int64 { return int64(r + 1) }
	opts := Options{Controls: ctrlLenBold, Rounds: 100, Seed: 4, Workers: 2}
	one := mustRank(t, addStyled(t, battles, once, unit), opts)
	three := mustRank(t, addStyled(t, battles, thrice, unit), opts)
	if len(three.Coefficients) != 2 || three.Battles != 500 {
		t.Fatalf("coefficients %v, battles %d, notes %v", three.Coefficients, three.Battles, three.Notes)
	}
	for _, m := range one.Models {
		got := ratingOf(t, three, m.Model)
		if got.Rating != m.Rating || *got.CILow != *m.CILow || *got.CIHigh != *m.CIHigh || got.Rank != m.Rank {
			t.Errorf("%s: three votes a battle %+v, one %+v", m.Model, got, m)
		}
	}
	for e, c := range one.Coefficients {
		got := three.Coefficients[e]
		if got.Value != c.Value || *got.CILow != *c.CILow || *got.CIHigh != *c.CIHigh {
			t.Errorf("%s: three votes a battle %v [%v, %v], one %v [%v, %v]", c.Name, got.Value, *got.CILow, *got.CIHigh, c.Value, *c.CILow, *c.CIHigh)
		}
	}
}

// A battle whose judges split two to one scores ⅔ in the controlled fit as
// in the plain one. The likelihood of a battle scoring ⅔ is that of three
// battles with its features won, won and lost, each weighted ⅓; so the
// board equals (to the fit's precision) the board of every battle entered
// three times on its own, the split ones as their three votes.
func TestControlledSplitBattleShare(t *testing.T) {
	battles := styledBattles(6, 400, []float64{1100, 1050, 1000, 950}, []float64{200, 600, 300, 900}, 0.4, 0.15)
	votes := func(r int) []ringside.Winner {
		if r%5 == 0 { // a fifth of the battles split two to one
			return []ringside.Winner{ringside.WinnerA, ringside.WinnerB, ringside.WinnerA}
		}
		return []ringside.Winner{battles[r].Winner}
	}
	loose := func(r int) []ringside.Winner {
		if r%5 == 0 {
			return votes(r)
		}
		w := battles[r].Winner
		return []ringside.Winner{w, w, w}
	}
	split := mustRank(t, addStyled(t, battles, votes, func(r int) int64 { return int64(r + 1) }), Options{Controls: ctrlLenBold})
	want := mustRank(t, addStyled(t, battles, loose, func(int) int64 { return 0 }), Options{Controls: ctrlLenBold})
	if split.Battles != 400 || want.Battles != 1200 || len(split.Coefficients) != 2 {
		t.Fatalf("battles %d and %d, coefficients %v, notes %v", split.Battles, want.Battles, split.Coefficients, split.Notes)
	}
	for _, m := range want.Models {
		if got := ratingOf(t, split, m.Model); math.Abs(got.Rating-m.Rating) > 1e-6 {
			t.Errorf("%s: split battles %.9f, as separate votes %.9f", m.Model, got.Rating, m.Rating)
		}
	}
	for e, c := range want.Coefficients {
		if got := split.Coefficients[e].Value; math.Abs(got-c.Value) > 1e-9 {
			t.Errorf("%s: split battles %.12f, as separate votes %.12f", c.Name, got, c.Value)
		}
	}
}

// A model with few battles loses all its wins (or losses) in some
// resamples: those rounds fit the others alone and count the model's as
// not finite, as the plain bootstrap does.
func TestControlledRoundsThatLoseAModel(t *testing.T) {
	battles := styledBattles(8, 400, []float64{1100, 1050, 1000, 950}, []float64{200, 600, 300, 900}, 0.4, 0)
	st := &Style{}
	st.Set(0, 300, 500)
	st.Set(3, 1, 0)
	battles = append(battles,
		Battle{ModelA: "rare", ModelB: modelName(0), Winner: ringside.WinnerA, Style: st},
		Battle{ModelA: "rare", ModelB: modelName(1), Winner: ringside.WinnerB, Style: st})
	bs := addStyled(t, battles, func(r int) []ringside.Winner { return []ringside.Winner{battles[r].Winner} }, func(int) int64 { return 0 })
	lb := mustRank(t, bs, Options{Controls: ctrlLenBold, Rounds: 200, Seed: 2, Workers: 2})
	rare := ratingOf(t, lb, "rare")
	if rare.NonfiniteRounds == 0 || rare.NonfiniteRounds == 200 {
		t.Fatalf("rare: %d of 200 rounds not finite", rare.NonfiniteRounds)
	}
	for _, m := range lb.Models {
		if m.Model != "rare" && (m.NonfiniteRounds != 0 || m.CILow == nil || m.CIHigh == nil || !(*m.CILow < m.Rating && m.Rating < *m.CIHigh)) {
			t.Errorf("%s: %+v", m.Model, m)
		}
	}
	for _, c := range lb.Coefficients {
		if c.CILow == nil || c.CIHigh == nil || !(*c.CILow < c.Value && c.Value < *c.CIHigh) {
			t.Errorf("coefficient %s: %v [%v, %v]", c.Name, c.Value, c.CILow, c.CIHigh)
		}
	}
}
