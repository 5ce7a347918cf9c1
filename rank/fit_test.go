package rank

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ringside-eval/ringside"
)

const (
	wA   = ringside.WinnerA
	wB   = ringside.WinnerB
	wTie = ringside.WinnerTie
	wBad = ringside.WinnerBothBad
)

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.10f, want %.10f (±%g)", what, got, want, tol)
	}
}

// Two models: the MLE makes the predicted score equal the observed one,
// R_a − R_b = 400·log10(s/(n−s)) with ties counted half.
func TestTwoModelsClosedForm(t *testing.T) {
	bs := NewBattles()
	add(t, bs, "x", "y", wA, 7)
	add(t, bs, "y", "x", wA, 2) // y wins on side a
	add(t, bs, "x", "y", wTie, 3)
	add(t, bs, "y", "x", wBad, 1)
	lb := mustRank(t, bs, Options{})
	s, n := 7+2.0, 13.0 // x: 7 wins + 4 ties/2 = 9 of 13
	d := 400 * math.Log10(s/(n-s))
	near(t, "x", ratingOf(t, lb, "x").Rating, 1000+d/2, 1e-9)
	near(t, "y", ratingOf(t, lb, "y").Rating, 1000-d/2, 1e-9)
	x := ratingOf(t, lb, "x")
	if x.Wins != 7 || x.Losses != 2 || x.Ties != 4 || x.Battles != 13 {
		t.Errorf("x counts %+v", x.Counts)
	}
}

// Three models whose observed scores equal the expectations under strengths
// 4 : 2 : 1 (10^(R/400)), so those are the MLE: A beats B 2 of 3 (with a
// tie), B beats C 2 of 3, A beats C 4 of 5.
func threeModels(t *testing.T) *Battles {
	bs := NewBattles()
	add(t, bs, "A", "B", wA, 1)
	add(t, bs, "A", "B", wTie, 2)
	add(t, bs, "C", "B", wB, 2)
	add(t, bs, "C", "B", wA, 1)
	add(t, bs, "A", "C", wA, 4)
	add(t, bs, "C", "A", wA, 1)
	return bs
}

func TestThreeModels(t *testing.T) {
	lb := mustRank(t, threeModels(t), Options{})
	step := 400 * math.Log10(2) // 120.41
	near(t, "A", ratingOf(t, lb, "A").Rating, 1000+step, 1e-9)
	near(t, "B", ratingOf(t, lb, "B").Rating, 1000, 1e-9)
	near(t, "C", ratingOf(t, lb, "C").Rating, 1000-step, 1e-9)
	if lb.Models[0].Model != "A" || lb.Models[2].Model != "C" {
		t.Errorf("order %v", lb.Models)
	}
}

func TestAnchor(t *testing.T) {
	lb := mustRank(t, threeModels(t), Options{Anchor: &Anchor{Model: "C", Rating: 1500}})
	step := 400 * math.Log10(2)
	if got := ratingOf(t, lb, "C").Rating; got != 1500 {
		t.Errorf("anchor C = %v, want exactly 1500", got)
	}
	near(t, "B", ratingOf(t, lb, "B").Rating, 1500+step, 1e-9)
	near(t, "A", ratingOf(t, lb, "A").Rating, 1500+2*step, 1e-9)
	if lb.Method.Anchor == nil || lb.Method.Anchor.Model != "C" {
		t.Errorf("method anchor %+v", lb.Method.Anchor)
	}
	for _, bad := range []string{"nobody", "D"} {
		bs := threeModels(t)
		add(t, bs, "D", "A", wB, 3) // D never won: no finite rating
		if _, err := Rank(bs, Options{Anchor: &Anchor{Model: bad, Rating: 1000}}); ringside.ErrorCode(err) != ringside.EINVALID {
			t.Errorf("anchor %s: err %v, want EINVALID", bad, err)
		}
	}
}

// A model that never won is flagged, and the others keep exactly the
// ratings they have without it (the limit of the likelihood).
func TestWinlessFlagged(t *testing.T) {
	bs := threeModels(t)
	add(t, bs, "D", "A", wB, 3)
	add(t, bs, "B", "D", wA, 2)
	lb := mustRank(t, bs, Options{Rounds: 50})
	if len(lb.Models) != 3 || len(lb.Flagged) != 1 || lb.Flagged[0].Model != "D" || lb.Flagged[0].Reason != FlagWinless {
		t.Fatalf("models %+v flagged %+v", lb.Models, lb.Flagged)
	}
	if f := lb.Flagged[0]; f.Battles != 5 || f.Losses != 5 {
		t.Errorf("D counts %+v", f.Counts)
	}
	step := 400 * math.Log10(2)
	near(t, "A", ratingOf(t, lb, "A").Rating, 1000+step, 1e-9)
	if a := ratingOf(t, lb, "A"); a.Battles != 11 {
		t.Errorf("A battles %d, want 11 (its battles with D count)", a.Battles)
	}
}

func TestFlagReasons(t *testing.T) {
	bs := threeModels(t)
	add(t, bs, "U", "A", wA, 2) // undefeated
	add(t, bs, "P", "Q", wA, 2) // P and Q beat each other: a group of their own
	add(t, bs, "Q", "P", wA, 1) //
	add(t, bs, "P", "A", wA, 1) // ... which only ever beats the rated group: above
	add(t, bs, "L1", "L2", wA, 1)
	add(t, bs, "L2", "L1", wA, 1)
	add(t, bs, "C", "L1", wA, 1)    // L1, L2 only lose to the rated group: below
	add(t, bs, "X1", "X2", wTie, 1) // another island
	lb := mustRank(t, bs, Options{})
	want := map[string]string{"U": FlagUndefeated, "P": FlagAbove, "Q": FlagAbove, "L1": FlagBelow, "L2": FlagBelow,
		"X1": FlagDisconnected, "X2": FlagDisconnected}
	got := map[string]string{}
	for _, f := range lb.Flagged {
		got[f.Model] = f.Reason
		if f.Detail == "" {
			t.Errorf("%s: no detail", f.Model)
		}
	}
	for m, r := range want {
		if got[m] != r {
			t.Errorf("%s: reason %q, want %q", m, got[m], r)
		}
	}
	if len(lb.Models) != 3 {
		t.Errorf("rated %v", lb.Models)
	}

	// A chain A > B > C with no cycle: nobody has a finite rating.
	chain := NewBattles()
	add(t, chain, "A", "B", wA, 3)
	add(t, chain, "B", "C", wA, 3)
	lb = mustRank(t, chain, Options{Rounds: 10})
	if len(lb.Models) != 0 || len(lb.Flagged) != 3 {
		t.Fatalf("chain: models %v flagged %v", lb.Models, lb.Flagged)
	}
	if r := lb.Flagged[1]; r.Model != "B" || r.Reason != FlagUnresolved {
		t.Errorf("chain middle: %+v", r)
	}
}

// The fit stops at a stationary point to rounding, on uneven data with
// strengths spread over 1500 points.
func TestFitConverges(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	names := make([]string, 40)
	ratings := make([]float64, 40)
	for i := range names {
		names[i] = string(rune('a'+i%26)) + string(rune('A'+i/26))
		ratings[i] = 1000 + 1500*(rng.Float64()-0.5)
	}
	bs := NewBattles()
	synthetic(rng, names, ratings, 30000, func(b Battle) { _ = bs.Add(b) })
	opts := Options{}
	a, err := analyse(bs, bs.all(false), &opts, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.fit) < 30 {
		t.Fatalf("only %d rated", len(a.fit))
	}
	if a.gradMax > 1e-12 {
		t.Errorf("relative gradient %g after %d iterations", a.gradMax, a.iters)
	}
	mean := 0.0
	for _, r := range a.rating {
		mean += r
	}
	near(t, "mean rating", mean/float64(len(a.rating)), 1000, 1e-9)
}
