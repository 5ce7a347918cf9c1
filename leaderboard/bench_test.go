package leaderboard

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/store"
)

// benchVotes, benchModels and benchJudges size the benchmark database:
// a million votes among 40 models, by 500 judges, in 20 categories.
const (
	benchVotes  = 1_000_000
	benchModels = 40
	benchJudges = 500
)

// benchDB returns a database file of benchVotes votes, made once (about a
// minute) and kept in the temporary directory; RINGSIDE_BENCH_DB names
// another place. The benchmarks add a battle and a vote per iteration to
// it, a few hundred a run, which changes nothing measurable.
func benchDB(b *testing.B) string {
	path := os.Getenv("RINGSIDE_BENCH_DB")
	if path == "" {
		path = filepath.Join(os.TempDir(), fmt.Sprintf("ringside-bench-board-%d-%d.db", benchVotes, benchModels))
	}
	if _, err := os.Stat(path); err == nil {
		return path
	}
	ctx := context.Background()
	tmp := path + ".part"
	os.Remove(tmp)
	db, err := store.Open(ctx, tmp)
	if err != nil {
		b.Fatal(err)
	}
	db.Close()
	raw, err := sql.Open("sqlite", "file:"+tmp+"?_pragma=foreign_keys(ON)")
	if err != nil {
		b.Fatal(err)
	}
	defer raw.Close()
	// Model k is stronger than model k-1: the winner is drawn from a hash
	// of the battle's number with a probability that grows with the gap.
	const n = `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < $1 - 1)`
	for _, q := range []string{
		`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < $2 - 1)
		INSERT INTO judges (id, kind, name, created_at) SELECT 'j' || i, 'human', 'judge ' || i, '2026-01-01T00:00:00Z' FROM n`,
		n + ` INSERT INTO battles (id, source, model_a, model_b, category, kind, created_at)
		SELECT printf('b%07d', i), 'import', 'model-' || (i % $3), 'model-' || ((i + 1 + (i / $3) % ($3 - 1)) % $3),
			'category-' || (i * 7 % 20), 'typical', '2026-01-01T00:00:00Z' FROM n`,
		n + `, d(i, a, b, r) AS (SELECT i, i % $3, (i + 1 + (i / $3) % ($3 - 1)) % $3, (i * 2654435761) % 1000 FROM n)
		INSERT INTO votes (id, battle_id, judge_id, winner, created_at)
		SELECT printf('v%07d', i), printf('b%07d', i), 'j' || (i % $2),
			CASE WHEN r < 40 THEN 'tie' WHEN r < 60 THEN 'bothbad' WHEN r < 540 + (a - b) * 10 THEN 'a' ELSE 'b' END,
			'2026-01-01T00:00:00Z' FROM d`,
	} {
		if _, err := raw.ExecContext(ctx, q, benchVotes, benchJudges, benchModels); err != nil {
			b.Fatal(err)
		}
	}
	if err := raw.Close(); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		b.Fatal(err)
	}
	os.Remove(tmp + "-wal")
	os.Remove(tmp + "-shm")
	return path
}

// BenchmarkBoardAfterVote is the server's answer to a leaderboard request
// right after a vote (the page refreshes on every vote), with 200
// bootstrap rounds: the service reads the new vote and computes the board.
// Targets: overall <= 300 ms, a slicing of up to 20 slices <= 500 ms.
//
//	go test ./leaderboard/ -run '^$' -bench BoardAfterVote -benchtime 10x
func BenchmarkBoardAfterVote(b *testing.B) {
	path := benchDB(b)
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		b.Fatal(err)
	}
	defer raw.Close()
	cfg := config.Defaults()
	cfg.Rank.Seed = 1
	svc := NewService(db, cfg)
	rounds := 200
	vote := 0
	for _, by := range []string{"overall", "category", "judge"} {
		q := Query{Rounds: &rounds}
		if by != "overall" {
			q.By = by
		}
		if _, err := svc.Board(ctx, q); err != nil { // the first read of every vote
			b.Fatal(err)
		}
		b.Run("by="+by, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				vote++
				id := fmt.Sprintf("bench-%d-%d", os.Getpid(), vote)
				if _, err := raw.ExecContext(ctx, `INSERT INTO battles (id, source, model_a, model_b, category, created_at)
					VALUES ($1, 'live', 'model-3', 'model-7', 'category-3', '2026-01-02T00:00:00Z')`, id); err != nil {
					b.Fatal(err)
				}
				if _, err := raw.ExecContext(ctx, `INSERT INTO votes (id, battle_id, judge_id, winner, created_at)
					VALUES ($1, $1, 'j7', 'a', '2026-01-02T00:00:00Z')`, id); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if _, err := svc.Board(ctx, q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
