package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/store"
)

// The judges' questions export as a prompt-set file that reads back as
// one, filtered by how many judges voted on each, or by the admin's picks.
func TestExportPromptsHarvest(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "arena.db")
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	var prompts []ringside.Prompt
	for _, id := range []string{"q-1", "q-2", "q-3"} {
		prompts = append(prompts, ringside.Prompt{ID: id, Kind: ringside.KindUser, Category: "network",
			Messages: []ringside.Message{{Role: "user", Content: "Question " + id + "?"}}})
	}
	if _, err := db.UpsertPrompts(ctx, "arena", prompts); err != nil {
		t.Fatal(err)
	}
	// q-1: two judges voted on it; q-2: one; q-3: none.
	for i, v := range []struct{ prompt, judge string }{{"q-1", "ana"}, {"q-1", "bo"}, {"q-2", "ana"}} {
		b := &ringside.Battle{Source: ringside.SourceLive, PromptID: v.prompt, PromptSet: "arena", Sample: i,
			ModelA: "m1", ModelB: "m2", Kind: ringside.KindUser}
		if err := db.CreateBattle(ctx, b); err != nil {
			t.Fatal(err)
		}
		j, err := db.EnsureJudge(ctx, ringside.JudgeRules, v.judge)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.CreateVote(ctx, &ringside.Vote{BattleID: b.ID, JudgeID: j.ID, Winner: ringside.WinnerA}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.PickPrompt(ctx, "arena", "q-3", true); err != nil {
		t.Fatal(err)
	}
	db.Close()

	for _, tc := range []struct {
		args []string
		want []string
	}{
		{nil, []string{"q-1", "q-2", "q-3"}},
		{[]string{"--min-judges", "2"}, []string{"q-1"}},
		{[]string{"--picked"}, []string{"q-3"}},
	} {
		tm := newTestMain()
		args := append([]string{"export", "prompts", "--set", "arena", "--db", path}, tc.args...)
		if code := tm.run(t, args...); code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, tm.stderr.String())
		}
		got, err := ringside.ReadPrompts(strings.NewReader(tm.stdout.String()), "arena.jsonl")
		if err != nil {
			t.Fatalf("%v: the export does not read as a prompt set: %v\n%s", tc.args, err, tm.stdout.String())
		}
		var ids []string
		for _, p := range got {
			if p.Kind != ringside.KindUser || p.Category != "network" || p.Set != "" {
				t.Fatalf("%v: prompt %+v", tc.args, p)
			}
			ids = append(ids, p.ID)
		}
		if strings.Join(ids, ",") != strings.Join(tc.want, ",") {
			t.Fatalf("%v: exported %v, want %v", tc.args, ids, tc.want)
		}
	}
}
