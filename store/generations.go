package store

import (
	"context"
	"database/sql"
	"errors"

	"github.com/ringside-eval/ringside"
)

// CreateGeneration stores a generation. In a run, a second generation for
// the same prompt, model and sample is ECONFLICT.
func (db *DB) CreateGeneration(ctx context.Context, g *ringside.Generation) error {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := db.insertGeneration(ctx, tx, g); err != nil {
		return err
	}
	return tx.Commit()
}

func (db *DB) insertGeneration(ctx context.Context, tx *sql.Tx, g *ringside.Generation) error {
	if err := g.Validate(); err != nil {
		return err
	}
	if g.ID == "" {
		g.ID = newID()
	}
	if g.CreatedAt.IsZero() {
		g.CreatedAt = db.Now()
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO generations
		(id, run_id, prompt_id, model, sample, output, ttft_ms, latency_ms, tokens_in, tokens_out,
		 tokens_estimated, cost_usd, finish_reason, error_kind, error, created_at, prompt_set)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
		g.ID, nullable(g.RunID), g.PromptID, g.Model, g.Sample, g.Output, g.TTFTMs, g.LatencyMs,
		g.TokensIn, g.TokensOut, g.TokensEstimated, g.CostUSD, g.FinishReason, g.ErrorKind, g.Error,
		formatTime(g.CreatedAt), g.PromptSet)
	switch {
	case isUniqueViolation(err):
		return ringside.Errorf(ringside.ECONFLICT, "generation of %s for %s sample %d already exists", g.Model, g.PromptID, g.Sample)
	case isForeignKeyViolation(err):
		return ringside.Errorf(ringside.EINVALID, "generation refers to run %q, which does not exist", g.RunID)
	}
	return err
}

const generationColumns = `id, coalesce(run_id, ''), prompt_id, model, sample, output, ttft_ms, latency_ms,
	tokens_in, tokens_out, tokens_estimated, cost_usd, finish_reason, error_kind, error, created_at, prompt_set`

// Generation returns the generation with the given id, or ENOTFOUND.
func (db *DB) Generation(ctx context.Context, id string) (*ringside.Generation, error) {
	g, err := scanGeneration(db.queryRowHot(ctx, "SELECT "+generationColumns+" FROM generations WHERE id = $1", id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ringside.Errorf(ringside.ENOTFOUND, "generation %s not found", id)
	}
	return g, err
}

// GenerationPair returns the generations with ids a and b, a battle's two
// sides, in one query (every deal of a stored battle reads both), or
// ENOTFOUND naming the one missing.
func (db *DB) GenerationPair(ctx context.Context, a, b string) ([2]*ringside.Generation, error) {
	var out [2]*ringside.Generation
	rows, err := db.queryHot(ctx, "SELECT "+generationColumns+" FROM generations WHERE id IN ($1, $2)", a, b)
	if err != nil {
		return out, err
	}
	defer rows.Close()
	for rows.Next() {
		g, err := scanGeneration(rows)
		if err != nil {
			return out, err
		}
		for i, id := range []string{a, b} {
			if g.ID == id {
				out[i] = g
			}
		}
	}
	if err := rows.Err(); err != nil {
		return out, err
	}
	for i, id := range []string{a, b} {
		if out[i] == nil {
			return out, ringside.Errorf(ringside.ENOTFOUND, "generation %s not found", id)
		}
	}
	return out, nil
}

func scanGeneration(s scanner) (*ringside.Generation, error) {
	var g ringside.Generation
	var created string
	if err := s.Scan(&g.ID, &g.RunID, &g.PromptID, &g.Model, &g.Sample, &g.Output, &g.TTFTMs, &g.LatencyMs,
		&g.TokensIn, &g.TokensOut, &g.TokensEstimated, &g.CostUSD, &g.FinishReason, &g.ErrorKind, &g.Error, &created,
		&g.PromptSet); err != nil {
		return nil, err
	}
	g.CreatedAt = parseTime(created)
	return &g, nil
}

// queryGenerations runs a query whose columns are generationColumns (or
// generationStatColumns, which scan the same way) and collects its rows.
func (db *DB) queryGenerations(ctx context.Context, query string, args ...any) ([]ringside.Generation, error) {
	rows, err := db.read.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ringside.Generation
	for rows.Next() {
		g, err := scanGeneration(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *g)
	}
	return out, rows.Err()
}
