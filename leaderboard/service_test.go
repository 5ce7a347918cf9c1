package leaderboard

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/store"
)

// importVotes stores n imported battles, each with one vote, among five
// models, three categories and three judges; from varies them between
// calls.
func importVotes(t *testing.T, db *store.DB, from, n int) {
	t.Helper()
	ctx := context.Background()
	im, err := db.BeginBattleImport(ctx, fmt.Sprintf("f%d.jsonl", from), fmt.Sprintf("sha-%d", from))
	if err != nil {
		t.Fatal(err)
	}
	defer im.Rollback()
	winners := []ringside.Winner{ringside.WinnerA, ringside.WinnerB, ringside.WinnerTie, ringside.WinnerA, ringside.WinnerBothBad}
	for i := from; i < from+n; i++ {
		l := &store.ImportLine{Line: i - from + 1, Weight: 1, JudgeKind: ringside.JudgeHuman, JudgeName: fmt.Sprintf("j%d", i%3)}
		l.Battle = ringside.Battle{ModelA: fmt.Sprintf("m%d", i%5), ModelB: fmt.Sprintf("m%d", (i+1+i%3)%5),
			Category: []string{"refunds", "coding", "travel"}[i%3]}
		l.Vote.Winner = winners[(i*7)%5]
		if i%6 == 0 {
			l.JudgeKind, l.JudgeName, l.Weight = ringside.JudgeLLM, "gj", 3
		}
		if err := im.Add(ctx, l); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := im.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}

// The board kept up to date by reading only appended votes equals a board
// computed from scratch; a change to votes already read (an identity-leak
// flag, a deleted vote) makes the service read them all again, and its
// board again equals one from scratch.
func TestServiceIncrementalEqualsFromScratch(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "lb.db")
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	cfg := config.Defaults()
	cfg.Rank.Bootstrap, cfg.Rank.Seed = 40, 5
	queries := []Query{{}, {By: "category"}, {By: "judge"}}
	svc := NewService(db, cfg)
	check := func(step string, wantFull int) {
		t.Helper()
		fresh := NewService(db, cfg)
		for _, q := range queries {
			got, err := svc.Board(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			want, err := fresh.Board(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if string(got.JSON) != string(want.JSON) {
				t.Fatalf("%s, by %q: the kept board differs from one from scratch:\n%s\n---\n%s", step, q.By, got.JSON, want.JSON)
			}
		}
		if svc.fullReads != wantFull {
			t.Fatalf("%s: %d reads of every vote, want %d", step, svc.fullReads, wantFull)
		}
	}
	importVotes(t, db, 0, 150)
	check("first board", 1)
	before, _ := svc.Board(ctx, Query{})
	importVotes(t, db, 150, 60)
	check("after appended votes", 1)
	after, _ := svc.Board(ctx, Query{})
	if after.Report.Votes != before.Report.Votes+60 || after.Report.Battles <= before.Report.Battles {
		t.Fatalf("after 60 votes: %d votes, %d battles; before %d, %d", after.Report.Votes, after.Report.Battles,
			before.Report.Votes, before.Report.Battles)
	}
	for i, q := range []string{
		`UPDATE battles SET identity_leak = 1 WHERE id IN (SELECT battle_id FROM votes ORDER BY rowid LIMIT 5)`,
		`DELETE FROM votes WHERE rowid IN (SELECT rowid FROM votes ORDER BY rowid DESC LIMIT 3)`,
	} {
		prev, _ := svc.Board(ctx, Query{})
		if _, err := raw.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
		check(q, 2+i)
		if now, _ := svc.Board(ctx, Query{}); now.Report.Battles >= prev.Report.Battles {
			t.Fatalf("%s: %d battles ranked, %d before", q, now.Report.Battles, prev.Report.Battles)
		}
	}
	importVotes(t, db, 210, 10)
	check("appended after a full read", 3)
}

// Admit is asked only when a board is computed: a cached board is served
// without it, and its refusal is returned as is, caching nothing.
func TestServiceAdmitIsAskedOnlyToCompute(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "lb.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cfg := config.Defaults()
	cfg.Rank.Bootstrap = 10
	svc := NewService(db, cfg)
	importVotes(t, db, 0, 30)
	refused := ringside.Errorf(ringside.EINVALID, "no")
	asked := 0
	q := Query{By: "category", Admit: func() error { asked++; return refused }}
	if _, err := svc.Board(ctx, q); err != refused || asked != 1 {
		t.Fatalf("refused: err %v after %d asks, want the refusal after 1", err, asked)
	}
	q.Admit = func() error { asked++; return nil }
	if _, err := svc.Board(ctx, q); err != nil || asked != 2 {
		t.Fatalf("admitted: err %v after %d asks, want nil after 2", err, asked)
	}
	q.Admit = func() error { asked++; return refused }
	if _, err := svc.Board(ctx, q); err != nil || asked != 2 {
		t.Fatalf("cached: err %v after %d asks, want the cached board without asking", err, asked)
	}
	importVotes(t, db, 30, 5)
	if _, err := svc.Board(ctx, q); err != refused || asked != 3 {
		t.Fatalf("after new votes: err %v after %d asks, want the refusal after 3", err, asked)
	}
}
