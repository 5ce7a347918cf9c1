package server_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/examples"
)

// envServeJudging makes the child server deal stored battles, instantly,
// under a pairing: "stored,adaptive" or "stored,uniform".
const envServeJudging = "RINGSIDE_TEST_SERVE_JUDGING"

func applyServeJudging(j *config.Judging) {
	v := os.Getenv(envServeJudging)
	if v == "" {
		return
	}
	source, pairing, _ := strings.Cut(v, ",")
	j.Source, j.Pace, j.Pairing = source, config.PaceInstant, pairing
}

// fillStoredBattles stores a run of n battles between eight models, every
// pair alike, on the example prompts, in one transaction straight in SQL
// (the public path commits each generation on its own, too slow for
// 100,000). The database was migrated by prepareDB.
func fillStoredBattles(b *testing.B, path string, n int) {
	b.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	prompts, err := ringside.ReadPrompts(bytes.NewReader(examples.Prompts), "examples")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback()
	exec := func(q string, args ...any) {
		if _, err := tx.Exec(q, args...); err != nil {
			b.Fatalf("%s: %v", q, err)
		}
	}
	exec("INSERT INTO runs (id, name, models, prompt_sets, samples, created_at) VALUES ('bench', 'bench', '[]', '[]', 1, 'now')")
	const models = 8
	for i := range n {
		x := i % (models * (models - 1) / 2)
		a, c := 0, 0
		for a = 0; x >= models-1-a; a++ {
			x -= models - 1 - a
		}
		c = a + 1 + x
		p := prompts[i%len(prompts)].ID
		ga, gb, bt := uuid.NewString(), uuid.NewString(), uuid.NewString()
		ma, mb := fmt.Sprint("model-", a), fmt.Sprint("model-", c)
		// Rows name their prompt by set and id, as `ringside run` stores
		// them: a battle whose prompt is not found cannot be shown.
		exec(`INSERT INTO generations (id, run_id, prompt_set, prompt_id, model, sample, output, latency_ms, created_at)
			VALUES ($1, 'bench', 'examples', $3, $4, $6, 'one answer', 100, 'now'), ($2, 'bench', 'examples', $3, $5, $6, 'another answer', 100, 'now')`,
			ga, gb, p, ma, mb, i)
		exec(`INSERT INTO battles (id, run_id, source, prompt_set, prompt_id, sample, model_a, model_b, generation_a, generation_b, created_at)
			VALUES ($1, 'bench', 'run', 'examples', $2, $3, $4, $5, $6, $7, 'now')`, bt, p, i, ma, mb, ga, gb)
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}
