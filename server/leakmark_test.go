package server_test

import (
	"context"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/arena"
	"github.com/ringside-eval/ringside/config"
)

// answers is a candidate that gives a fixed answer per prompt.
type answers map[string]string

func (a answers) Stream(ctx context.Context, req ringside.Request, emit func(ringside.Delta)) (ringside.Result, error) {
	emit(ringside.Delta{Text: a[req.PromptID]})
	return ringside.Result{Text: a[req.PromptID]}, nil
}

// A battle is marked as naming a model when `ringside run` stores it, by
// the same rule whichever battles judges are dealt: dealing neither marks
// nor clears, so rankings do not depend on what was dealt.
func TestStoredBattleLeakMarkDoesNotDependOnDealing(t *testing.T) {
	h := newHarness(t, func(c *config.Config) { c.Judging.Source = config.SourceStored }, nil)
	ctx := context.Background()
	run := &ringside.Run{Name: "nightly", Models: []string{modelZephyr.Name, modelQuill.Name}, Samples: 1}
	if err := h.db.CreateRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	prompts := make([]ringside.Prompt, 0, 2)
	for _, id := range []string{"refund-1", "refund-2"} {
		p, err := h.db.Prompt(ctx, "support", id)
		if err != nil {
			t.Fatal(err)
		}
		prompts = append(prompts, *p)
	}
	// Zephyr names a vendor (not itself) on refund-1: a leak under the one
	// rule, which no judge's deal has to find.
	r, err := arena.New(arena.Config{RunID: run.ID, Prompts: prompts, Samples: 1, Concurrency: 2, Store: h.db,
		Contestants: []arena.Contestant{
			{Model: modelZephyr, Streamer: answers{"refund-1": "As ChatGPT, I say a week.", "refund-2": "No."}},
			{Model: modelQuill, Streamer: answers{"refund-1": "A week.", "refund-2": "Only unworn items."}},
		}})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := r.Prepare(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Execute(ctx, plan, arena.Observer{}); err != nil {
		t.Fatal(err)
	}
	marks := func() map[string]bool {
		t.Helper()
		bs, err := h.db.RunBattles(ctx, run.ID)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, b := range bs {
			out[b.PromptID] = b.IdentityLeak
		}
		return out
	}
	before := marks()
	if len(before) != 2 || !before["refund-1"] || before["refund-2"] {
		t.Fatalf("marks at creation %v, want refund-1 only", before)
	}

	j := h.dial(h.invite("j", 0))
	w := j.watch()
	if b, err := h.db.Battle(ctx, w.id); err != nil || b.PromptID != "refund-2" {
		t.Fatalf("dealt %+v (%v), want the refund-2 battle", b, err)
	}
	j.vote(w.id, "a")
	j.send(map[string]string{"type": "next"})
	if d := j.until("done"); d.Reason != "empty" {
		t.Fatalf("the marked battle was dealt: %s", d.raw)
	}
	if after := marks(); after["refund-1"] != before["refund-1"] || after["refund-2"] != before["refund-2"] {
		t.Fatalf("marks after dealing %v, at creation %v", after, before)
	}
}
