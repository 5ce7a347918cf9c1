package rank

import (
	"math"
	"testing"

	"github.com/ringside-eval/ringside"
)

// sliced builds battles whose slices have known answers: in "refunds" x beats
// y 3 to 1, in "coding" y beats x 3 to 1; format votes favour y 4 to 3.
func sliced(t *testing.T) *Battles {
	bs := NewBattles()
	addB := func(b Battle, n int) {
		for i := 0; i < n; i++ {
			if err := bs.Add(b); err != nil {
				t.Fatal(err)
			}
		}
	}
	fmtY := map[string]ringside.Winner{"format_compliance": wB}
	addB(Battle{ModelA: "x", ModelB: "y", Winner: wA, Category: "refunds", Kind: "typical", Judge: "human:ann", Tags: []string{"billing", "long"}, Dimensions: fmtY}, 3)
	addB(Battle{ModelA: "x", ModelB: "y", Winner: wB, Category: "refunds", Kind: "edge", Judge: "llm:gpt", Tags: []string{"billing"}}, 1)
	addB(Battle{ModelA: "y", ModelB: "x", Winner: wA, Category: "coding", Kind: "typical", Judge: "human:bob", Dimensions: fmtY}, 3)
	addB(Battle{ModelA: "y", ModelB: "x", Winner: wB, Category: "coding", Judge: "arena_user_9", Dimensions: map[string]ringside.Winner{"format_compliance": wA}}, 1)
	return bs
}

func TestSlices(t *testing.T) {
	bs := sliced(t)
	d := 400 * math.Log10(3) // a 3-to-1 record
	check := func(by string, want map[string]float64) {
		t.Helper()
		lb := mustRank(t, bs, Options{By: by, Judges: JudgesAll})
		if lb.By != by || len(lb.Slices) != len(want) {
			t.Fatalf("by %s: slices %v", by, keys(lb.Slices))
		}
		for key, diff := range want {
			s := lb.Slices[key]
			if s == nil {
				t.Fatalf("by %s: no slice %q", by, key)
			}
			if math.IsNaN(diff) {
				if len(s.Models) != 0 {
					t.Errorf("by %s, %s: rated %v", by, key, s.Models)
				}
				continue
			}
			got := ratingOf(t, s, "x").Rating - ratingOf(t, s, "y").Rating
			near(t, by+"/"+key, got, diff, 1e-9)
		}
	}
	nan := math.NaN()
	check(ByCategory, map[string]float64{"refunds": d, "coding": -d})
	check(ByKind, map[string]float64{"typical": 0, "edge": nan}) // 3–3; a lone loss
	check(ByJudgeKind, map[string]float64{"human": 0, "llm": nan})
	check(ByJudge, map[string]float64{"human:ann": nan, "human:bob": nan, "llm:gpt": nan, "arena_user_9": nan})
	check(ByTag, map[string]float64{"billing": d, "long": nan})
	// Format votes name sides: y won 3 (as b) + 1 (as a), x won 3 (as b).
	check(ByDimension, map[string]float64{"format_compliance": 400 * math.Log10(3.0/4)})

	lb := mustRank(t, bs, Options{By: ByKind, Judges: JudgesAll})
	if len(lb.Notes) != 1 || lb.Notes[0] != "1 battles have no kind and are in no slice" {
		t.Errorf("notes %q", lb.Notes)
	}
	if lb.Slices["edge"].Flagged[0].Reason != FlagUndefeated {
		t.Errorf("edge: %+v", lb.Slices["edge"].Flagged)
	}
	if _, err := Rank(bs, Options{By: "colour"}); ringside.ErrorCode(err) != ringside.EINVALID {
		t.Errorf("bad --by: %v", err)
	}
}

// A slice where the anchor has no finite rating falls back to mean 1000 and
// says so; the whole leaderboard keeps the anchor.
func TestSliceAnchorFallback(t *testing.T) {
	bs := sliced(t)
	add(t, bs, "z", "x", wA, 1)
	add(t, bs, "x", "z", wA, 1)
	lb := mustRank(t, bs, Options{By: ByCategory, Judges: JudgesAll, Anchor: &Anchor{Model: "z", Rating: 1200}})
	if got := ratingOf(t, lb, "z").Rating; got != 1200 {
		t.Errorf("z = %v", got)
	}
	s := lb.Slices["refunds"]
	if s.Method.Anchor != nil || len(s.Notes) != 1 {
		t.Errorf("refunds: anchor %+v notes %q", s.Method.Anchor, s.Notes)
	}
	near(t, "refunds mean", (ratingOf(t, s, "x").Rating+ratingOf(t, s, "y").Rating)/2, 1000, 1e-9)
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// Identity leaks are left out unless asked for.
func TestIdentityLeaks(t *testing.T) {
	bs := threeModels(t)
	if err := bs.Add(Battle{ModelA: "C", ModelB: "A", Winner: wA, IdentityLeak: true}); err != nil {
		t.Fatal(err)
	}
	if lb := mustRank(t, bs, Options{}); lb.Battles != 11 {
		t.Errorf("battles %d, want 11 without the leak", lb.Battles)
	}
	if lb := mustRank(t, bs, Options{IncludeIdentityLeaks: true}); lb.Battles != 12 {
		t.Errorf("battles %d, want 12 with it", lb.Battles)
	}
}

func TestAddValidates(t *testing.T) {
	bs := NewBattles()
	for _, b := range []Battle{
		{ModelB: "y", Winner: wA},
		{ModelA: "x", Winner: wA},
		{ModelA: "x", ModelB: "x", Winner: wA},
		{ModelA: "x", ModelB: "y", Winner: "model_a"},
		{ModelA: "x", ModelB: "y", Winner: wA, Dimensions: map[string]ringside.Winner{"d": "left"}},
	} {
		if err := bs.Add(b); ringside.ErrorCode(err) != ringside.EINVALID {
			t.Errorf("%+v: err %v", b, err)
		}
	}
	if bs.Len() != 0 {
		t.Errorf("stored %d invalid battles", bs.Len())
	}
}

// Online Elo, K = 4, in time order, against a hand computation.
func TestElo(t *testing.T) {
	bs := NewBattles()
	// Stored out of time order: Elo must sort.
	_ = bs.Add(Battle{ModelA: "b", ModelB: "a", Winner: wTie, Time: 20})
	_ = bs.Add(Battle{ModelA: "a", ModelB: "b", Winner: wA, Time: 10})
	lb := mustRank(t, bs, Options{Elo: true})
	// First a beats b from 1000 each: ±2. Then the tie at 1002 vs 998.
	ea := 1 / (1 + math.Pow(10, (998.0-1002.0)/400))
	a := 1002 + 4*(0.5-ea)
	b := 998 + 4*(0.5-(1/(1+math.Pow(10, (1002.0-998.0)/400))))
	near(t, "elo a", *ratingOf(t, lb, "a").Elo, a, 1e-12)
	near(t, "elo b", *ratingOf(t, lb, "b").Elo, b, 1e-12)
}

func TestMatrix(t *testing.T) {
	lb := mustRank(t, threeModels(t), Options{Matrix: true})
	m := lb.Matrix
	if m == nil || len(m.Models) != 3 || m.Models[0] != "A" {
		t.Fatalf("matrix %+v", m)
	}
	// A vs B: 1 win, 2 ties of 3 → 2/3; C vs A: 1 of 5.
	if *m.WinRate[0][1] != 2.0/3 || m.Battles[0][1] != 3 || *m.WinRate[2][0] != 0.2 || m.Battles[2][0] != 5 {
		t.Errorf("matrix %+v", m)
	}
	if m.WinRate[0][0] != nil {
		t.Error("diagonal filled")
	}
}
