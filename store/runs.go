package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"github.com/ringside-eval/ringside"
)

// CreateRun stores a new run; a run with the same name is ECONFLICT.
func (db *DB) CreateRun(ctx context.Context, r *ringside.Run) error {
	if err := r.Validate(); err != nil {
		return err
	}
	if r.ID == "" {
		r.ID = newID()
	}
	r.CreatedAt = db.Now()
	sets := r.PromptSets
	if sets == nil {
		sets = []string{}
	}
	models, _ := json.Marshal(r.Models)
	setsJSON, _ := json.Marshal(sets)
	_, err := db.write.ExecContext(ctx,
		"INSERT INTO runs (id, name, models, prompt_sets, samples, created_at) VALUES ($1, $2, $3, $4, $5, $6)",
		r.ID, r.Name, string(models), string(setsJSON), r.Samples, formatTime(r.CreatedAt))
	if isUniqueViolation(err) {
		return ringside.Errorf(ringside.ECONFLICT, "run %q already exists", r.Name)
	}
	return err
}

// RunByName returns the run with the given name, or ENOTFOUND.
func (db *DB) RunByName(ctx context.Context, name string) (*ringside.Run, error) {
	var r ringside.Run
	var models, sets, created string
	err := db.read.QueryRowContext(ctx, "SELECT id, name, models, prompt_sets, samples, created_at FROM runs WHERE name = $1", name).
		Scan(&r.ID, &r.Name, &models, &sets, &r.Samples, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ringside.Errorf(ringside.ENOTFOUND, "run %q not found", name)
	} else if err != nil {
		return nil, err
	}
	if err := errors.Join(json.Unmarshal([]byte(models), &r.Models), json.Unmarshal([]byte(sets), &r.PromptSets)); err != nil {
		return nil, err
	}
	r.CreatedAt = parseTime(created)
	return &r, nil
}
