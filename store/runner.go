package store

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/ringside-eval/ringside"
)

// What the runner (package arena, `ringside run`) needs: the state of a run
// to resume from, and atomic saves that keep a run free of duplicates and
// of half-written work whenever the process dies.

// UpdateRun records a run's current models, prompt sets and samples, so
// that the run's record says what its latest invocation covered.
// Errors: EINVALID, ENOTFOUND.
func (db *DB) UpdateRun(ctx context.Context, r *ringside.Run) error {
	if err := r.Validate(); err != nil {
		return err
	}
	sets := r.PromptSets
	if sets == nil {
		sets = []string{}
	}
	models, _ := json.Marshal(r.Models)
	setsJSON, _ := json.Marshal(sets)
	res, err := db.write.ExecContext(ctx, "UPDATE runs SET models = $2, prompt_sets = $3, samples = $4 WHERE id = $1",
		r.ID, string(models), string(setsJSON), r.Samples)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ringside.Errorf(ringside.ENOTFOUND, "run %s not found", r.ID)
	}
	return nil
}

// generationStatColumns are generationColumns with the output left out.
const generationStatColumns = `id, coalesce(run_id, ''), prompt_id, model, sample, '', ttft_ms, latency_ms,
	tokens_in, tokens_out, tokens_estimated, cost_usd, finish_reason, error_kind, error, created_at, prompt_set`

// RunGenerationStats returns every generation of a run with all its fields
// but Output, which is left empty: resuming and per-model summaries need
// timings, tokens and errors, not megabytes of text. Ordered by creation.
func (db *DB) RunGenerationStats(ctx context.Context, runID string) ([]ringside.Generation, error) {
	return db.queryGenerations(ctx,
		"SELECT "+generationStatColumns+" FROM generations WHERE run_id = $1 ORDER BY id", runID)
}

// RunBattles returns every battle of a run, ordered by creation.
func (db *DB) RunBattles(ctx context.Context, runID string) ([]ringside.Battle, error) {
	rows, err := db.read.QueryContext(ctx, "SELECT "+battleColumns+" FROM battles WHERE run_id = $1 ORDER BY id", runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ringside.Battle
	for rows.Next() {
		b, err := scanBattle(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *b)
	}
	return out, rows.Err()
}

// SaveRunGeneration stores a run's generation and the battles it completes
// in one transaction: a process killed at any moment leaves either both or
// neither. It sets g.ID, fills the empty generation id of g's side in each
// battle, skips a battle already stored for the same prompt, sample and
// pair. A battle with a failed side is stored like any other (so error
// rates show who failed against whom); what keeps it from judges is that
// dealing and judging take only battles whose two generations have no
// error_kind (see StoredCandidates).
// Errors: ECONFLICT when the generation is already stored (nothing is
// written), EINVALID.
func (db *DB) SaveRunGeneration(ctx context.Context, g *ringside.Generation, battles []*ringside.Battle) error {
	if g.RunID == "" {
		return ringside.FieldError("run_id", "a run's generation needs its run")
	}
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := db.insertGeneration(ctx, tx, g); err != nil {
		return err
	}
	for _, b := range battles {
		if b.ModelA == g.Model && b.GenerationA == "" {
			b.GenerationA = g.ID
		}
		if b.ModelB == g.Model && b.GenerationB == "" {
			b.GenerationB = g.ID
		}
		if _, err := db.insertRunBattle(ctx, tx, b); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// SaveRunBattles stores, in one transaction, run battles whose two
// generations are already stored, skipping those already there, and returns
// how many it added. Errors: EINVALID.
func (db *DB) SaveRunBattles(ctx context.Context, battles []*ringside.Battle) (int, error) {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	added := 0
	for _, b := range battles {
		ok, err := db.insertRunBattle(ctx, tx, b)
		if err != nil {
			return 0, err
		}
		if ok {
			added++
		}
	}
	return added, tx.Commit()
}

// insertRunBattle inserts b unless the run already has a battle for its
// prompt, sample and unordered pair, and reports whether it did.
func (db *DB) insertRunBattle(ctx context.Context, tx *sql.Tx, b *ringside.Battle) (bool, error) {
	if b.RunID == "" || b.GenerationA == "" || b.GenerationB == "" {
		return false, ringside.FieldError("generation_a", "a run's battle needs its run and both generations")
	}
	var n int
	// The same expressions as the battles_once index, so the lookup uses it.
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM battles WHERE run_id = $1 AND prompt_id = $2 AND sample = $3
		AND min(model_a, model_b) = min($4, $5) AND max(model_a, model_b) = max($4, $5)`,
		b.RunID, b.PromptID, b.Sample, b.ModelA, b.ModelB).Scan(&n); err != nil {
		return false, err
	}
	if n > 0 {
		return false, nil
	}
	if err := db.insertBattle(ctx, tx, b); err != nil {
		return false, err
	}
	return true, nil
}

// DeleteFailedRunGenerations deletes a run's failed generations and the
// battles that used them, so that the next run tries them again, and
// returns how many of each it deleted. Errors: ECONFLICT when a judge voted
// on one of those battles (they are not meant to be judged, and a vote is
// never deleted behind a judge's back).
func (db *DB) DeleteFailedRunGenerations(ctx context.Context, runID string) (gens, battles int, err error) {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return 0, 0, err
	}
	defer tx.Rollback()
	const failedBattles = `SELECT id FROM battles WHERE run_id = $1 AND (
		generation_a IN (SELECT id FROM generations WHERE run_id = $1 AND error_kind <> '') OR
		generation_b IN (SELECT id FROM generations WHERE run_id = $1 AND error_kind <> ''))`
	var votes int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM votes WHERE battle_id IN ("+failedBattles+")", runID).Scan(&votes); err != nil {
		return 0, 0, err
	}
	if votes > 0 {
		return 0, 0, ringside.Errorf(ringside.ECONFLICT, "judges voted %d times on battles with a failed side; not deleting them", votes)
	}
	res, err := tx.ExecContext(ctx, "DELETE FROM battles WHERE id IN ("+failedBattles+")", runID)
	if err != nil {
		return 0, 0, err
	}
	nb, _ := res.RowsAffected()
	res, err = tx.ExecContext(ctx, "DELETE FROM generations WHERE run_id = $1 AND error_kind <> ''", runID)
	if err != nil {
		return 0, 0, err
	}
	ng, _ := res.RowsAffected()
	return int(ng), int(nb), tx.Commit()
}
