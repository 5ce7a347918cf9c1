package store_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/store"
	_ "modernc.org/sqlite"
)

// MustOpenDB opens a fresh database file in a temporary directory and closes
// it when the test ends.
func MustOpenDB(tb testing.TB) *store.DB {
	tb.Helper()
	db, err := store.Open(context.Background(), filepath.Join(tb.TempDir(), "ringside.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

func TestMigrationsOnEmptyAndMigratedDatabase(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ringside.db")
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	first, err := db.MigrationVersions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(first) == 0 || first[0] != 1 {
		t.Fatalf("versions on an empty database = %v, want 1...", first)
	}
	if err := db.SetSetting(ctx, "marker", "kept"); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	// Opening again must apply nothing twice and keep the data.
	db, err = store.Open(ctx, path)
	if err != nil {
		t.Fatalf("reopen migrated database: %v", err)
	}
	defer db.Close()
	again, err := db.MigrationVersions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(first, again) {
		t.Fatalf("versions after reopen = %v, want %v", again, first)
	}
	if v, err := db.Setting(ctx, "marker"); err != nil || v != "kept" {
		t.Fatalf("setting after reopen = %q, %v", v, err)
	}

	// The pragmas that protect the data are in force on the file.
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var mode string
	if err := raw.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode = %q, %v; want wal", mode, err)
	}
}

func TestVoteOncePerJudgeAndBattle(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	battle := mustBattle(t, db, "m1", "m2")
	judge := &ringside.Judge{Kind: ringside.JudgeHuman, Name: "ada"}
	if err := db.CreateJudge(ctx, judge, ringside.HashToken("t1")); err != nil {
		t.Fatal(err)
	}

	first, err := db.CreateVote(ctx, &ringside.Vote{BattleID: battle.ID, JudgeID: judge.ID, Winner: ringside.WinnerA})
	if err != nil {
		t.Fatal(err)
	}
	again, err := db.CreateVote(ctx, &ringside.Vote{BattleID: battle.ID, JudgeID: judge.ID, Winner: ringside.WinnerB})
	if ringside.ErrorCode(err) != ringside.ECONFLICT {
		t.Fatalf("second vote: err = %v, want conflict", err)
	}
	if again == nil || again.ID != first.ID || again.Winner != ringside.WinnerA {
		t.Fatalf("second vote returned %+v, want the first vote %+v", again, first)
	}
	if n, _ := db.CountVotes(ctx); n != 1 {
		t.Fatalf("votes stored = %d, want 1", n)
	}

	// Another judge may vote on the same battle.
	other := &ringside.Judge{Kind: ringside.JudgeHuman, Name: "grace"}
	if err := db.CreateJudge(ctx, other, ringside.HashToken("t2")); err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateVote(ctx, &ringside.Vote{BattleID: battle.ID, JudgeID: other.ID, Winner: ringside.WinnerTie}); err != nil {
		t.Fatal(err)
	}
	// A vote must reference a real battle.
	_, err = db.CreateVote(ctx, &ringside.Vote{BattleID: "no-such-battle", JudgeID: judge.ID, Winner: ringside.WinnerA})
	if ringside.ErrorCode(err) != ringside.ENOTFOUND {
		t.Fatalf("vote on a missing battle: err = %v, want not found", err)
	}
}

func TestBattleNeedsTwoDifferentModels(t *testing.T) {
	db := MustOpenDB(t)
	err := db.CreateBattle(context.Background(), &ringside.Battle{Source: ringside.SourceLive, ModelA: "m1", ModelB: "m1"})
	if ringside.ErrorCode(err) != ringside.EINVALID {
		t.Fatalf("err = %v, want invalid", err)
	}
}

func TestRunBattleScheduledOncePerUnorderedPair(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	run := &ringside.Run{Name: "r1", Models: []string{"m1", "m2"}, Samples: 1}
	if err := db.CreateRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	b := &ringside.Battle{RunID: run.ID, Source: ringside.SourceRun, PromptID: "p1", ModelA: "m1", ModelB: "m2"}
	if err := db.CreateBattle(ctx, b); err != nil {
		t.Fatal(err)
	}
	swapped := &ringside.Battle{RunID: run.ID, Source: ringside.SourceRun, PromptID: "p1", ModelA: "m2", ModelB: "m1"}
	if err := db.CreateBattle(ctx, swapped); ringside.ErrorCode(err) != ringside.ECONFLICT {
		t.Fatalf("same pair with sides swapped: err = %v, want conflict", err)
	}
	nextSample := &ringside.Battle{RunID: run.ID, Source: ringside.SourceRun, PromptID: "p1", Sample: 1, ModelA: "m2", ModelB: "m1"}
	if err := db.CreateBattle(ctx, nextSample); err != nil {
		t.Fatalf("another sample: %v", err)
	}
}

func TestRevokedTokenIsUnauthorized(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	j := &ringside.Judge{Kind: ringside.JudgeHuman, Name: "ada", Quota: 5}
	hash := ringside.HashToken("secret")
	if err := db.CreateJudge(ctx, j, hash); err != nil {
		t.Fatal(err)
	}
	got, err := db.JudgeByToken(ctx, hash)
	if err != nil || got.ID != j.ID || got.Quota != 5 {
		t.Fatalf("JudgeByToken = %+v, %v", got, err)
	}
	if err := db.RevokeJudge(ctx, j.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.JudgeByToken(ctx, hash); ringside.ErrorCode(err) != ringside.EUNAUTHORIZED {
		t.Fatalf("revoked: err = %v, want unauthorized", err)
	}
	if _, err := db.JudgeByToken(ctx, ringside.HashToken("other")); ringside.ErrorCode(err) != ringside.EUNAUTHORIZED {
		t.Fatalf("unknown: err = %v, want unauthorized", err)
	}
}

func TestEnsureJudgeIsIdempotent(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	a, err := db.EnsureJudge(ctx, ringside.JudgeRules, "rules")
	if err != nil {
		t.Fatal(err)
	}
	b, err := db.EnsureJudge(ctx, ringside.JudgeRules, "rules")
	if err != nil || a.ID != b.ID {
		t.Fatalf("second EnsureJudge = %+v, %v; want id %s", b, err, a.ID)
	}
}

func mustBattle(tb testing.TB, db *store.DB, a, b string) *ringside.Battle {
	tb.Helper()
	battle := &ringside.Battle{Source: ringside.SourceLive, PromptID: "p1", ModelA: a, ModelB: b}
	if err := db.CreateBattle(context.Background(), battle); err != nil {
		tb.Fatal(err)
	}
	return battle
}
