package store

import (
	"context"
	"path/filepath"
	"testing"
)

// TestRankStateMovesOnlyWhenReadVotesChange: appending votes moves the
// count and the last row id and leaves Changes alone; every other change
// to what a read vote counts for moves Changes, a cascade included.
func TestRankStateMovesOnlyWhenReadVotesChange(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	importLines(t, db, 60)
	state := func() RankState {
		t.Helper()
		s, err := db.RankState(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	exec := func(q string) {
		t.Helper()
		if _, err := db.write.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	before := state()
	var votes int64
	if err := db.read.QueryRowContext(ctx, "SELECT count(*) FROM votes").Scan(&votes); err != nil {
		t.Fatal(err)
	}
	if before.Votes != votes || before.LastVote < votes {
		t.Fatalf("state %+v for %d votes", before, votes)
	}
	// An appended vote: a new judge on a battle already voted on.
	exec(`INSERT INTO judges (id, kind, name, created_at) VALUES ('jx', 'human', 'jx', 'now')`)
	exec(`INSERT INTO votes (id, battle_id, judge_id, winner, created_at)
		SELECT 'vx', battle_id, 'jx', 'a', 'now' FROM votes LIMIT 1`)
	after := state()
	if after.Votes != before.Votes+1 || after.LastVote <= before.LastVote || after.Changes != before.Changes {
		t.Fatalf("after an appended vote %+v, before %+v", after, before)
	}
	// A battle without votes may be flagged without moving Changes.
	exec(`INSERT INTO battles (id, source, model_a, model_b, created_at) VALUES ('bq', 'live', 'm1', 'm2', 'now')`)
	exec(`UPDATE battles SET identity_leak = 1 WHERE id = 'bq'`)
	if s := state(); s.Changes != after.Changes {
		t.Fatalf("flagging a battle nobody voted on moved Changes: %+v", s)
	}
	last := after.Changes
	for _, q := range []string{
		`UPDATE battles SET identity_leak = 1 - identity_leak WHERE id = (SELECT battle_id FROM votes LIMIT 1)`,
		`UPDATE battles SET category = 'moved' WHERE id = (SELECT battle_id FROM votes LIMIT 1)`,
		`UPDATE votes SET winner = 'tie' WHERE id = 'vx'`,
		`UPDATE judges SET name = 'renamed' WHERE id = 'jx'`,
		`UPDATE llm_judgments SET weight = weight + 1 WHERE rowid = (SELECT min(rowid) FROM llm_judgments)`,
		`DELETE FROM votes WHERE id = 'vx'`,
		`DELETE FROM battles WHERE id = (SELECT battle_id FROM votes LIMIT 1)`, // cascades to its votes
	} {
		exec(q)
		s := state()
		if s.Changes <= last {
			t.Fatalf("%s: Changes stayed at %d", q, s.Changes)
		}
		last = s.Changes
	}
	// Reading from a row id on gives the votes after it only.
	n := 0
	if err := db.EachRankVote(ctx, RankFilter{After: before.LastVote - 3, Through: before.LastVote}, func(*RankVote) error {
		n++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if n == 0 || n > 3 {
		t.Fatalf("%d votes among the last 3 row ids", n)
	}
}
