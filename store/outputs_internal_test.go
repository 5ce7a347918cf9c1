package store

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
)

// BenchmarkOutputsPage is one page of the outputs browser (25 prompts × 4
// models, with their check results) on a run of 10,000 generations: 2,500
// prompts, 3 check results per generation, 6 battles per prompt with a
// vote on each. The first page, one deep in the run (keyset: it should
// cost the same), a filtered one, and one generation's detail.
func BenchmarkOutputsPage(b *testing.B) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(b.TempDir(), "ringside.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	fillOutputs(b, db, 2500)
	for _, tc := range []struct {
		name string
		f    OutputsFilter
	}{
		{"first", OutputsFilter{Run: "big"}},
		{"deep", OutputsFilter{Run: "big", After: "p02000"}},
		{"failed+kind+tag", OutputsFilter{Run: "big", Failed: true, Kind: "edge", Tag: "t3"}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			tc.f.Limit = 25
			for range b.N {
				page, err := db.Outputs(ctx, tc.f)
				if err != nil || len(page.Rows) != 25 || len(page.Rows[0].Cells) != 4 || len(page.Rows[0].Cells[0].Checks) != 3 {
					b.Fatalf("%v %+v", err, page)
				}
			}
		})
	}
	b.Run("detail", func(b *testing.B) {
		for range b.N {
			d, err := db.OutputDetail(ctx, "g01234-1")
			if err != nil || len(d.Battles) != 3 || len(d.Battles[0].Votes) != 1 || len(d.Checks) != 3 {
				b.Fatalf("%v %+v", err, d)
			}
		}
	})
}

// fillOutputs stores run "big" of 4 models on n prompts in one transaction,
// straight in SQL (the public path commits each row on its own).
func fillOutputs(b *testing.B, db *DB, n int) {
	b.Helper()
	tx, err := db.write.Begin()
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback()
	const now = "2026-01-01T00:00:00Z"
	exec := func(q string, args ...any) {
		if _, err := tx.Exec(q, args...); err != nil {
			b.Fatal(q, err)
		}
	}
	exec(`INSERT INTO runs (id, name, models, prompt_sets, samples, created_at) VALUES ('r', 'big', '["m0","m1","m2","m3"]', '["s"]', 1, $1)`, now)
	exec(`INSERT INTO judges (id, kind, name, created_at) VALUES ('rules', 'rules', 'rules', $1), ('h', 'human', 'h', $1)`, now)
	prep := func(q string) *sql.Stmt {
		st, err := tx.Prepare(q)
		if err != nil {
			b.Fatal(err)
		}
		return st
	}
	prompt := prep(`INSERT INTO prompts (id, prompt_set, messages, kind, tags, content_hash, created_at, updated_at)
		VALUES ($1, 's', '[{"role":"user","content":"Summarise the attached report in three bullet points."}]', $2, $3, $1, $4, $4)`)
	gen := prep(`INSERT INTO generations (id, run_id, prompt_set, prompt_id, model, sample, output, latency_ms, cost_usd, created_at)
		VALUES ($1, 'r', 's', $2, $3, 0, $4, 900, 0.0004, $5)`)
	check := prep(`INSERT INTO check_results (generation_id, judge_id, source, idx, type, weight, pass, detail, checked_at)
		VALUES ($1, 'rules', 'prompt', $2, 'max_words', 1, $3, '120 words <= 200', $4)`)
	battle := prep(`INSERT INTO battles (id, run_id, source, prompt_set, prompt_id, model_a, model_b, generation_a, generation_b, created_at)
		VALUES ($1, 'r', 'run', 's', $2, $3, $4, $5, $6, $7)`)
	vote := prep(`INSERT INTO votes (id, battle_id, judge_id, winner, created_at) VALUES ($1, $1, 'h', 'a', $2)`)
	answer := fmt.Sprintf("%0800d", 0) // an answer of 800 characters
	kinds := []string{"typical", "edge", "adversarial"}
	for i := range n {
		p := fmt.Sprintf("p%05d", i)
		mustExec(b, prompt, p, kinds[i%3], fmt.Sprintf(`["t%d"]`, i%7), now)
		for m := range 4 {
			g := fmt.Sprintf("g%05d-%d", i, m)
			mustExec(b, gen, g, p, fmt.Sprint("m", m), answer, now)
			for k := range 3 {
				mustExec(b, check, g, k, (i+m+k)%5 != 0, now)
			}
		}
		for a := range 4 {
			for c := a + 1; c < 4; c++ {
				id := fmt.Sprintf("b%05d-%d%d", i, a, c)
				mustExec(b, battle, id, p, fmt.Sprint("m", a), fmt.Sprint("m", c), fmt.Sprintf("g%05d-%d", i, a), fmt.Sprintf("g%05d-%d", i, c), now)
				mustExec(b, vote, id, now)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}

func mustExec(b *testing.B, st *sql.Stmt, args ...any) {
	b.Helper()
	if _, err := st.Exec(args...); err != nil {
		b.Fatal(err)
	}
}
