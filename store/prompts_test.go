package store_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/store"
)

func setPrompts(content ...string) []ringside.Prompt {
	var ps []ringside.Prompt
	for i, c := range content {
		ps = append(ps, ringside.Prompt{ID: []string{"refund-001", "refund-002"}[i], Category: "refunds", Kind: "typical",
			Messages: []ringside.Message{{Role: "user", Content: c}}})
	}
	return ps
}

func mustUpsert(t *testing.T, db *store.DB, set string, ps []ringside.Prompt, want store.ImportResult) {
	t.Helper()
	got, err := db.UpsertPrompts(context.Background(), set, ps)
	if err != nil || got != want {
		t.Fatalf("import into %s = %+v, %v; want %+v", set, got, err, want)
	}
}

func promptText(t *testing.T, db *store.DB, set, id string) string {
	t.Helper()
	p, err := db.Prompt(context.Background(), set, id)
	if err != nil {
		t.Fatal(err)
	}
	return p.Messages[0].Content
}

// A prompt belongs to its set: the same ids imported into another set are
// that set's own prompts, and nothing done to them touches the first set.
func TestPromptIDsAreUniqueWithinASetOnly(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	mustUpsert(t, db, "a", setPrompts("one", "two"), store.ImportResult{Added: 2})
	mustUpsert(t, db, "b", setPrompts("one", "two"), store.ImportResult{Added: 2})
	mustUpsert(t, db, "b", setPrompts("one", "two"), store.ImportResult{Unchanged: 2})
	mustUpsert(t, db, "b", setPrompts("one, edited", "two"), store.ImportResult{Updated: 1, Unchanged: 1})

	if got := promptText(t, db, "b", "refund-001"); got != "one, edited" {
		t.Errorf("b's refund-001 = %q, want the edit", got)
	}
	if got := promptText(t, db, "a", "refund-001"); got != "one" {
		t.Errorf("a's refund-001 = %q, want it untouched", got)
	}
	for _, set := range []string{"a", "b"} {
		ps, err := db.Prompts(ctx, set)
		if err != nil || len(ps) != 2 || ps[0].Set != set || ps[1].Set != set {
			t.Fatalf("set %s = %+v, %v; want its two prompts", set, ps, err)
		}
	}
	if all, _ := db.Prompts(ctx); len(all) != 4 {
		t.Fatalf("all prompts = %d, want 4", len(all))
	}
	if _, err := db.Prompt(ctx, "c", "refund-001"); ringside.ErrorCode(err) != ringside.ENOTFOUND {
		t.Fatalf("a prompt of a set that does not hold it: %v", err)
	}
}

// Within a run an id names one prompt: a run whose sets share an id is
// refused, naming the id and both sets, also when the other set is one the
// run's stored generations came from.
func TestCheckRunPromptsRefusesSharedIDs(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	mustUpsert(t, db, "a", setPrompts("one", "two"), store.ImportResult{Added: 2})
	mustUpsert(t, db, "b", setPrompts("uno"), store.ImportResult{Added: 1})
	mustUpsert(t, db, "c", []ringside.Prompt{{ID: "other", Kind: "typical",
		Messages: []ringside.Message{{Role: "user", Content: "x"}}}}, store.ImportResult{Added: 1})
	both, err := db.Prompts(ctx, "a", "b")
	if err != nil {
		t.Fatal(err)
	}
	err = db.CheckRunPrompts(ctx, "nightly", both)
	if ringside.ErrorCode(err) != ringside.EINVALID || !strings.Contains(err.Error(), `"refund-001"`) ||
		!strings.Contains(err.Error(), `set "a"`) || !strings.Contains(err.Error(), `set "b"`) {
		t.Fatalf("run over a and b: %v; want EINVALID naming refund-001, a and b", err)
	}
	ac, _ := db.Prompts(ctx, "a", "c")
	if err := db.CheckRunPrompts(ctx, "nightly", ac); err != nil {
		t.Fatalf("run over a and c: %v", err)
	}

	// The run stored a generation of a's refund-001; its sets then become
	// b alone.
	run := &ringside.Run{Name: "nightly", Models: []string{"m1", "m2"}, PromptSets: []string{"a"}, Samples: 1}
	if err := db.CreateRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	g := &ringside.Generation{RunID: run.ID, PromptID: "refund-001", PromptSet: "a", Model: "m1", Output: "x"}
	if err := db.CreateGeneration(ctx, g); err != nil {
		t.Fatal(err)
	}
	onlyB, _ := db.Prompts(ctx, "b")
	if err := db.CheckRunPrompts(ctx, "nightly", onlyB); ringside.ErrorCode(err) != ringside.EINVALID ||
		!strings.Contains(err.Error(), `set "a"`) || !strings.Contains(err.Error(), `set "b"`) {
		t.Fatalf("run over b after a: %v; want EINVALID naming a and b", err)
	}
	if err := db.CheckRunPrompts(ctx, "another", onlyB); err != nil {
		t.Fatalf("another run over b: %v", err)
	}
}

// Every read of a row's prompt uses the set the row names: pass rates are
// sliced by the category of the right prompt, and preference exports carry
// the right prompt's messages.
func TestRowsReadThePromptOfTheirSet(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	for _, s := range []struct{ set, category, text string }{{"a", "refunds", "from a"}, {"b", "shipping", "from b"}} {
		p := ringside.Prompt{ID: "q1", Category: s.category, Kind: "typical", Messages: []ringside.Message{{Role: "user", Content: s.text}}}
		mustUpsert(t, db, s.set, []ringside.Prompt{p}, store.ImportResult{Added: 1})
	}
	judge, err := db.EnsureJudge(ctx, ringside.JudgeHuman, "ann")
	if err != nil {
		t.Fatal(err)
	}
	rules, err := db.EnsureJudge(ctx, ringside.JudgeRules, "rules")
	if err != nil {
		t.Fatal(err)
	}
	for _, set := range []string{"a", "b"} {
		run := &ringside.Run{Name: "run-" + set, Models: []string{"m1", "m2"}, PromptSets: []string{set}, Samples: 1}
		if err := db.CreateRun(ctx, run); err != nil {
			t.Fatal(err)
		}
		var ids [2]string
		for i, m := range []string{"m1", "m2"} {
			g := &ringside.Generation{RunID: run.ID, PromptID: "q1", PromptSet: set, Model: m, Output: m + " in " + set}
			if err := db.CreateGeneration(ctx, g); err != nil {
				t.Fatal(err)
			}
			ids[i] = g.ID
			if err := db.ReplaceCheckResults(ctx, rules.ID, []string{g.ID}, []ringside.CheckResult{
				{GenerationID: g.ID, Source: "prompt", Type: "contains", Weight: 1, Pass: true}}); err != nil {
				t.Fatal(err)
			}
		}
		b := &ringside.Battle{RunID: run.ID, Source: ringside.SourceRun, PromptID: "q1", PromptSet: set,
			ModelA: "m1", ModelB: "m2", GenerationA: ids[0], GenerationB: ids[1]}
		if err := db.CreateBattle(ctx, b); err != nil {
			t.Fatal(err)
		}
		if got, err := db.Battle(ctx, b.ID); err != nil || got.PromptSet != set {
			t.Fatalf("battle read back: %+v, %v", got, err)
		}
		if _, err := db.CreateVote(ctx, &ringside.Vote{BattleID: b.ID, JudgeID: judge.ID, Winner: ringside.WinnerA}); err != nil {
			t.Fatal(err)
		}
	}

	categories := map[string]string{}
	for _, set := range []string{"a", "b"} {
		run, err := db.RunByName(ctx, "run-"+set)
		if err != nil {
			t.Fatal(err)
		}
		scores, err := db.CheckScores(ctx, rules.ID, run.ID)
		if err != nil || len(scores) != 2 {
			t.Fatalf("scores of run-%s = %+v, %v", set, scores, err)
		}
		categories[set] = scores[0].Category + "," + scores[1].Category
	}
	if categories["a"] != "refunds,refunds" || categories["b"] != "shipping,shipping" {
		t.Fatalf("pass-rate categories by run = %v", categories)
	}

	var texts []string
	err = db.EachPreference(ctx, "", "", func(p *store.Preference) error {
		var msgs []ringside.Message
		if err := json.Unmarshal(p.Messages, &msgs); err != nil {
			return err
		}
		texts = append(texts, msgs[0].Content+" / "+p.OutputA)
		return nil
	})
	if err != nil || strings.Join(texts, "; ") != "from a / m1 in a; from b / m1 in b" {
		t.Fatalf("preferences = %q, %v", texts, err)
	}
}
