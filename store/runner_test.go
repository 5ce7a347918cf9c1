package store_test

import (
	"context"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/store"
)

// mustCreateRun stores a run of models m1, m2, m3.
func mustCreateRun(tb testing.TB, db *store.DB) *ringside.Run {
	tb.Helper()
	r := &ringside.Run{Name: "r", Models: []string{"m1", "m2", "m3"}, Samples: 1}
	if err := db.CreateRun(context.Background(), r); err != nil {
		tb.Fatal(err)
	}
	return r
}

func runGen(run *ringside.Run, prompt, model, kind string) *ringside.Generation {
	g := &ringside.Generation{RunID: run.ID, PromptID: prompt, Model: model, Output: "out of " + model, TTFTMs: 10, LatencyMs: 20}
	if kind != "" {
		g.ErrorKind, g.Error = kind, "boom"
	}
	return g
}

func runBattle(run *ringside.Run, prompt, a, b string) *ringside.Battle {
	return &ringside.Battle{RunID: run.ID, Source: ringside.SourceRun, PromptID: prompt, ModelA: a, ModelB: b}
}

func TestSaveRunGenerationStoresItsBattlesAtomically(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	run := mustCreateRun(t, db)

	g1 := runGen(run, "p1", "m1", "")
	if err := db.SaveRunGeneration(ctx, g1, nil); err != nil {
		t.Fatal(err)
	}
	// m2 completes the battle m2 (a) vs m1 (b): its own side is filled in.
	b := runBattle(run, "p1", "m2", "m1")
	b.GenerationB = g1.ID
	g2 := runGen(run, "p1", "m2", ringside.ErrKindTimeout)
	if err := db.SaveRunGeneration(ctx, g2, []*ringside.Battle{b}); err != nil {
		t.Fatal(err)
	}
	if b.GenerationA != g2.ID {
		t.Fatalf("battle side a = %q, want the saved generation %q", b.GenerationA, g2.ID)
	}

	// The same battle with sides swapped is already stored: skipped, not an error.
	g3 := runGen(run, "p1", "m3", "")
	again := runBattle(run, "p1", "m1", "m2")
	again.GenerationA, again.GenerationB = g1.ID, g2.ID
	fresh := runBattle(run, "p1", "m3", "m1")
	fresh.GenerationB = g1.ID
	if err := db.SaveRunGeneration(ctx, g3, []*ringside.Battle{again, fresh}); err != nil {
		t.Fatal(err)
	}

	// A second generation for the same key is ECONFLICT and writes nothing,
	// not even the battle that came with it.
	dup := runGen(run, "p1", "m3", "")
	lost := runBattle(run, "p1", "m3", "m2")
	lost.GenerationB = g2.ID
	if err := db.SaveRunGeneration(ctx, dup, []*ringside.Battle{lost}); ringside.ErrorCode(err) != ringside.ECONFLICT {
		t.Fatalf("duplicate generation: err = %v, want ECONFLICT", err)
	}
	// A battle that cannot be stored undoes its generation.
	g4 := runGen(run, "p2", "m1", "")
	bad := runBattle(run, "p2", "m1", "m2")
	bad.GenerationB = "no-such-generation"
	if err := db.SaveRunGeneration(ctx, g4, []*ringside.Battle{bad}); ringside.ErrorCode(err) != ringside.EINVALID {
		t.Fatalf("battle with a missing generation: err = %v, want EINVALID", err)
	}

	gens, err := db.RunGenerationStats(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(gens) != 3 {
		t.Fatalf("stored %d generations, want 3: %+v", len(gens), gens)
	}
	for _, g := range gens {
		if g.Output != "" {
			t.Errorf("RunGenerationStats returned output %q", g.Output)
		}
		if g.Model == "m2" && (g.ErrorKind != ringside.ErrKindTimeout || g.LatencyMs != 20) {
			t.Errorf("m2's generation = %+v, want its error kind and timing kept", g)
		}
	}
	battles, err := db.RunBattles(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(battles) != 2 {
		t.Fatalf("stored %d battles, want 2: %+v", len(battles), battles)
	}
	full, err := db.Generation(ctx, g1.ID)
	if err != nil || full.Output != "out of m1" {
		t.Fatalf("Generation(%s) = %+v, %v", g1.ID, full, err)
	}
}

func TestSaveRunBattlesSkipsStoredOnes(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	run := mustCreateRun(t, db)
	ids := map[string]string{}
	for _, m := range []string{"m1", "m2", "m3"} {
		g := runGen(run, "p1", m, "")
		if err := db.SaveRunGeneration(ctx, g, nil); err != nil {
			t.Fatal(err)
		}
		ids[m] = g.ID
	}
	mk := func(a, b string) *ringside.Battle {
		bt := runBattle(run, "p1", a, b)
		bt.GenerationA, bt.GenerationB = ids[a], ids[b]
		return bt
	}
	n, err := db.SaveRunBattles(ctx, []*ringside.Battle{mk("m1", "m2"), mk("m3", "m1")})
	if err != nil || n != 2 {
		t.Fatalf("SaveRunBattles = %d, %v; want 2", n, err)
	}
	n, err = db.SaveRunBattles(ctx, []*ringside.Battle{mk("m2", "m1"), mk("m2", "m3")})
	if err != nil || n != 1 {
		t.Fatalf("SaveRunBattles again = %d, %v; want 1 (the other is stored)", n, err)
	}
}

func TestDeleteFailedRunGenerations(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	run := mustCreateRun(t, db)
	ok := runGen(run, "p1", "m1", "")
	failed := runGen(run, "p1", "m2", ringside.ErrKindServer)
	if err := db.SaveRunGeneration(ctx, ok, nil); err != nil {
		t.Fatal(err)
	}
	b := runBattle(run, "p1", "m1", "m2")
	b.GenerationA = ok.ID
	if err := db.SaveRunGeneration(ctx, failed, []*ringside.Battle{b}); err != nil {
		t.Fatal(err)
	}

	// A vote on the failed battle blocks the delete.
	j, err := db.EnsureJudge(ctx, ringside.JudgeRules, "rules")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateVote(ctx, &ringside.Vote{BattleID: b.ID, JudgeID: j.ID, Winner: "a"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.DeleteFailedRunGenerations(ctx, run.ID); ringside.ErrorCode(err) != ringside.ECONFLICT {
		t.Fatalf("delete with a vote: err = %v, want ECONFLICT", err)
	}

	run2 := &ringside.Run{Name: "r2", Models: []string{"m1", "m2"}, Samples: 1}
	if err := db.CreateRun(ctx, run2); err != nil {
		t.Fatal(err)
	}
	ok2, failed2 := runGen(run2, "p1", "m1", ""), runGen(run2, "p1", "m2", ringside.ErrKindRateLimit)
	if err := db.SaveRunGeneration(ctx, ok2, nil); err != nil {
		t.Fatal(err)
	}
	b2 := runBattle(run2, "p1", "m2", "m1")
	b2.GenerationB = ok2.ID
	if err := db.SaveRunGeneration(ctx, failed2, []*ringside.Battle{b2}); err != nil {
		t.Fatal(err)
	}
	gens, battles, err := db.DeleteFailedRunGenerations(ctx, run2.ID)
	if err != nil || gens != 1 || battles != 1 {
		t.Fatalf("DeleteFailedRunGenerations = %d, %d, %v; want 1, 1", gens, battles, err)
	}
	left, _ := db.RunGenerationStats(ctx, run2.ID)
	if len(left) != 1 || left[0].ID != ok2.ID {
		t.Fatalf("left %+v, want only the successful generation", left)
	}
	// The retried generation can now be stored.
	if err := db.SaveRunGeneration(ctx, runGen(run2, "p1", "m2", ""), nil); err != nil {
		t.Fatalf("store the retry: %v", err)
	}
}

func TestUpdateRun(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	run := mustCreateRun(t, db)
	run.Samples, run.Models = 3, []string{"m1", "m2"}
	if err := db.UpdateRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	got, err := db.RunByName(ctx, "r")
	if err != nil || got.Samples != 3 || len(got.Models) != 2 {
		t.Fatalf("RunByName after update = %+v, %v", got, err)
	}
	if err := db.UpdateRun(ctx, &ringside.Run{ID: "nope", Name: "x", Models: []string{"a", "b"}, Samples: 1}); ringside.ErrorCode(err) != ringside.ENOTFOUND {
		t.Fatalf("update of a missing run: err = %v, want ENOTFOUND", err)
	}
}
