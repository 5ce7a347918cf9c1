package judging_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/judging"
	"github.com/ringside-eval/ringside/pairing"
	"github.com/ringside-eval/ringside/store"
)

// TestPlanPairsAreDealingsPairs: the plan is for the models dealing deals
// among, before any vote: the candidate pool for live and chat battles (a
// model configured only to judge is none), the stored battles' models for
// stored ones, and both for a mix of sources.
func TestPlanPairsAreDealingsPairs(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "plan.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Stored battles of a run between s1 and s2 only.
	run := &ringside.Run{Name: "r", Models: []string{"s1", "s2"}, Samples: 1}
	if err := db.CreateRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	ga := &ringside.Generation{RunID: run.ID, PromptID: "p", Model: "s1", Output: "a"}
	if err := db.SaveRunGeneration(ctx, ga, nil); err != nil {
		t.Fatal(err)
	}
	bt := &ringside.Battle{RunID: run.ID, Source: ringside.SourceRun, PromptID: "p", ModelA: "s1", ModelB: "s2", GenerationA: ga.ID}
	gb := &ringside.Generation{RunID: run.ID, PromptID: "p", Model: "s2", Output: "b"}
	if err := db.SaveRunGeneration(ctx, gb, []*ringside.Battle{bt}); err != nil {
		t.Fatal(err)
	}

	cfg := config.Defaults()
	for _, m := range []string{"m1", "m2", "m3", "grader"} {
		cfg.Models = append(cfg.Models, ringside.Model{Name: m, Provider: "sim"})
	}
	cfg.Judges = []config.Judge{{Name: "g", Kind: ringside.JudgeLLM, Model: "grader"}}
	models := func() []string {
		t.Helper()
		rep, err := judging.Plan(ctx, db, cfg, pairing.PlanOptions{Sims: 10, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rep.Ratings {
			out = append(out, r.Model)
		}
		slices.Sort(out)
		if rep.Models != len(out) {
			t.Errorf("plan of %d models rates %v", rep.Models, out)
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		set     func()
		want    []string
		sources map[string]float64
	}{
		{"live: the pool, not the judge's model", func() {}, []string{"m1", "m2", "m3"}, nil},
		{"judging.models", func() { cfg.Judging.Models = []string{"m1", "m3"} }, []string{"m1", "m3"}, nil},
		{"chat", func() {}, []string{"m1", "m3"}, map[string]float64{config.SourceChat: 1}},
		{"stored", func() { cfg.Judging.Source = config.SourceStored }, []string{"s1", "s2"}, nil},
		{"a mix of live and stored", func() {}, []string{"m1", "m3", "s1", "s2"},
			map[string]float64{config.SourceLive: 2, config.SourceStored: 1}},
	} {
		tc.set()
		cfg.Judging.Sources = tc.sources
		if got := models(); !slices.Equal(got, tc.want) {
			t.Errorf("%s: the plan is for %v, want %v", tc.name, got, tc.want)
		}
	}
}
