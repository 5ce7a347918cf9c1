package judge_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/judge"
	"github.com/ringside-eval/ringside/judge/judgetest"
	"github.com/ringside-eval/ringside/store"
)

// Two sets each hold a prompt q1 with their own checks: the rules judge
// runs on each generation the checks of the prompt of its set.
func TestRulesJudgeReadsThePromptOfTheGenerationsSet(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	battles := map[string]string{}
	for _, s := range []struct{ set, word string }{{"a", "alpha"}, {"b", "beta"}} {
		p := ringside.Prompt{ID: "q1", Kind: "typical", Messages: []ringside.Message{{Role: "user", Content: "Say a word."}},
			Checks: []ringside.Check{judgetest.MustCheck(t, `{"type":"contains","value":"`+s.word+`"}`)}}
		if _, err := db.UpsertPrompts(ctx, s.set, []ringside.Prompt{p}); err != nil {
			t.Fatal(err)
		}
		run := &ringside.Run{Name: "run-" + s.set, Models: []string{"m1", "m2"}, PromptSets: []string{s.set}, Samples: 1}
		if err := db.CreateRun(ctx, run); err != nil {
			t.Fatal(err)
		}
		// m1 says alpha and m2 beta in both runs: in run-a m1 passes, in
		// run-b m2 does.
		var ids [2]string
		for i, out := range []string{"alpha", "beta"} {
			g := &ringside.Generation{RunID: run.ID, PromptID: "q1", PromptSet: s.set, Model: []string{"m1", "m2"}[i], Output: out}
			if err := db.CreateGeneration(ctx, g); err != nil {
				t.Fatal(err)
			}
			ids[i] = g.ID
		}
		b := &ringside.Battle{RunID: run.ID, Source: ringside.SourceRun, PromptID: "q1", PromptSet: s.set,
			ModelA: "m1", ModelB: "m2", GenerationA: ids[0], GenerationB: ids[1]}
		if err := db.CreateBattle(ctx, b); err != nil {
			t.Fatal(err)
		}
		battles[s.set] = b.ID
	}
	rep, _, rules := judgeOnce(t, db, ringside.JudgeRules, "rules", judge.Config{}, judge.Observer{})
	if rep.Checked != 4 || rep.Unknown != 0 || rep.Passed != 2 || rep.Written != 2 {
		t.Fatalf("report %+v", rep)
	}
	for set, want := range map[string]ringside.Winner{"a": ringside.WinnerA, "b": ringside.WinnerB} {
		v, err := db.VoteBy(ctx, battles[set], rules.ID)
		if err != nil || v.Winner != want {
			t.Errorf("run-%s: vote %+v, %v; want %s", set, v, err, want)
		}
	}
}
