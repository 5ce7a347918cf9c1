package store

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
)

// BenchmarkStoredCandidates is the query behind every `next` of stored
// judging, on runs of 1,000 to 100,000 battles of which a third were
// already voted on. Its cost should not grow with the run.
func BenchmarkStoredCandidates(b *testing.B) {
	for _, n := range []int{1000, 20000, 100000} {
		b.Run(fmt.Sprint("battles=", n), func(b *testing.B) {
			ctx := context.Background()
			db, err := Open(ctx, filepath.Join(b.TempDir(), "ringside.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			fillRun(b, db, n)
			b.ResetTimer()
			for range b.N {
				cands, err := db.StoredCandidates(ctx, "fresh", nil, 32)
				if err != nil || len(cands) != 32 {
					b.Fatal(len(cands), err)
				}
			}
		})
	}
}

// fillRun stores a run of n battles in one transaction, straight in SQL:
// the public path commits each generation on its own, too slow for 100,000.
// Every third battle has a vote's deal by judge "seen".
func fillRun(b *testing.B, db *DB, n int) {
	b.Helper()
	tx, err := db.write.Begin()
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback()
	exec := func(q string, args ...any) {
		if _, err := tx.Exec(q, args...); err != nil {
			b.Fatalf("%s: %v", q, err)
		}
	}
	exec("INSERT INTO runs (id, name, models, prompt_sets, samples, created_at) VALUES ('r', 'r', '[]', '[]', 1, 'now')")
	exec("INSERT INTO judges (id, kind, name, created_at) VALUES ('seen', 'human', 'seen', 'now'), ('fresh', 'human', 'fresh', 'now')")
	for i := range n {
		ga, gb, bt, p := newID(), newID(), newID(), fmt.Sprint("p", i)
		exec(`INSERT INTO generations (id, run_id, prompt_id, model, sample, output, created_at)
			VALUES ($1, 'r', $3, 'm1', 0, 'a', 'now'), ($2, 'r', $3, 'm2', 0, 'b', 'now')`, ga, gb, p)
		exec(`INSERT INTO battles (id, run_id, source, prompt_id, model_a, model_b, generation_a, generation_b, created_at)
			VALUES ($1, 'r', 'run', $2, 'm1', 'm2', $3, $4, 'now')`, bt, p, ga, gb)
		if i%3 == 0 {
			exec("INSERT INTO deals (battle_id, judge_id, state, dealt_at) VALUES ($1, 'seen', 'voted', 'now')", bt)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}
