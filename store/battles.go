package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"github.com/ringside-eval/ringside"
)

// CreateBattle stores a battle. In a run, a second battle for the same
// prompt, sample and pair of models is ECONFLICT.
func (db *DB) CreateBattle(ctx context.Context, b *ringside.Battle) error {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := db.insertBattle(ctx, tx, b); err != nil {
		return err
	}
	return tx.Commit()
}

func (db *DB) insertBattle(ctx context.Context, tx *sql.Tx, b *ringside.Battle) error {
	if err := b.Validate(); err != nil {
		return err
	}
	if b.ID == "" {
		b.ID = newID()
	}
	if b.CreatedAt.IsZero() {
		b.CreatedAt = db.Now()
	}
	tags := b.Tags
	if tags == nil {
		tags = []string{}
	}
	tagsJSON, _ := json.Marshal(tags)
	var extra any
	if len(b.Extra) > 0 {
		extra = string(b.Extra)
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO battles
		(id, run_id, source, prompt_id, sample, model_a, model_b, generation_a, generation_b,
		 category, kind, tags, identity_leak, extra, created_at, prompt_set)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
		b.ID, nullable(b.RunID), b.Source, b.PromptID, b.Sample, b.ModelA, b.ModelB,
		nullable(b.GenerationA), nullable(b.GenerationB), b.Category, b.Kind, string(tagsJSON),
		b.IdentityLeak, extra, formatTime(b.CreatedAt), b.PromptSet)
	switch {
	case isUniqueViolation(err):
		return ringside.Errorf(ringside.ECONFLICT, "battle %s already exists", b.ID)
	case isForeignKeyViolation(err):
		return ringside.Errorf(ringside.EINVALID, "battle refers to a run or generation that does not exist")
	}
	return err
}

const battleColumns = `id, coalesce(run_id, ''), source, prompt_id, sample, model_a, model_b,
	coalesce(generation_a, ''), coalesce(generation_b, ''), category, kind, tags, identity_leak, extra, created_at, prompt_set`

// Battle returns the battle with the given id, or ENOTFOUND.
func (db *DB) Battle(ctx context.Context, id string) (*ringside.Battle, error) {
	b, err := scanBattle(db.queryRowHot(ctx, "SELECT "+battleColumns+" FROM battles WHERE id = $1", id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ringside.Errorf(ringside.ENOTFOUND, "battle %s not found", id)
	}
	return b, err
}

func scanBattle(s scanner) (*ringside.Battle, error) {
	var b ringside.Battle
	var tags, created string
	var extra sql.NullString
	if err := s.Scan(&b.ID, &b.RunID, &b.Source, &b.PromptID, &b.Sample, &b.ModelA, &b.ModelB,
		&b.GenerationA, &b.GenerationB, &b.Category, &b.Kind, &tags, &b.IdentityLeak, &extra, &created,
		&b.PromptSet); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(tags), &b.Tags); err != nil {
		return nil, err
	}
	if len(b.Tags) == 0 {
		b.Tags = nil
	}
	if extra.Valid {
		b.Extra = json.RawMessage(extra.String)
	}
	b.CreatedAt = parseTime(created)
	return &b, nil
}

// nullable maps "" to SQL NULL, for optional foreign keys.
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}
