package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ringside-eval/ringside"
)

// ImportResult counts what an import did.
type ImportResult struct {
	Added     int `json:"added"`
	Updated   int `json:"updated"`
	Unchanged int `json:"unchanged"`
}

// UpsertPrompts stores prompts into the set in one transaction: ids new to
// the set are added, ids whose content changed are updated, identical ones
// are left alone (so re-importing a file is a no-op). A prompt belongs to
// its set: the same id in another set is another prompt, never touched.
// Prompts must already be validated.
func (db *DB) UpsertPrompts(ctx context.Context, set string, prompts []ringside.Prompt) (ImportResult, error) {
	var res ImportResult
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return res, err
	}
	defer tx.Rollback()

	now := formatTime(db.Now())
	for i := range prompts {
		p := &prompts[i]
		row, err := promptColumns(p)
		if err != nil {
			return ImportResult{}, err
		}
		var oldHash string
		err = tx.QueryRowContext(ctx, "SELECT content_hash FROM prompts WHERE prompt_set = $1 AND id = $2", set, p.ID).Scan(&oldHash)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			_, err = tx.ExecContext(ctx, `INSERT INTO prompts
				(id, prompt_set, messages, category, kind, tags, reference, checks, content_hash, created_at, updated_at)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)`,
				p.ID, set, row.messages, p.Category, p.Kind, row.tags, p.Reference, row.checks, row.hash, now)
			res.Added++
		case err != nil:
		case oldHash == row.hash:
			res.Unchanged++
		default:
			_, err = tx.ExecContext(ctx, `UPDATE prompts SET messages = $3, category = $4, kind = $5,
				tags = $6, reference = $7, checks = $8, content_hash = $9, updated_at = $10 WHERE id = $1 AND prompt_set = $2`,
				p.ID, set, row.messages, p.Category, p.Kind, row.tags, p.Reference, row.checks, row.hash, now)
			res.Updated++
		}
		if err != nil {
			return ImportResult{}, fmt.Errorf("store: prompt %s of set %s: %w", p.ID, set, err)
		}
	}
	return res, tx.Commit()
}

type promptRow struct{ messages, tags, checks, hash string }

func promptColumns(p *ringside.Prompt) (promptRow, error) {
	var r promptRow
	m, err := json.Marshal(p.Messages)
	if err != nil {
		return r, err
	}
	tags := p.Tags
	if tags == nil {
		tags = []string{}
	}
	t, _ := json.Marshal(tags)
	checks := p.Checks
	if checks == nil {
		checks = []ringside.Check{}
	}
	c, err := json.Marshal(checks)
	if err != nil {
		return r, err
	}
	h := sha256.New()
	for _, part := range []string{string(m), p.Category, p.Kind, string(t), p.Reference, string(c)} {
		fmt.Fprintf(h, "%d:%s;", len(part), part)
	}
	return promptRow{string(m), string(t), string(c), hex.EncodeToString(h.Sum(nil))}, nil
}

const promptSelect = `SELECT id, prompt_set, messages, category, kind, tags, reference, checks FROM prompts`

// Prompt returns the prompt with the given id in the set, or ENOTFOUND.
func (db *DB) Prompt(ctx context.Context, set, id string) (*ringside.Prompt, error) {
	// Every deal of a stored battle reads its prompt: a prepared statement.
	ps, err := scanPrompts(db.queryHot(ctx, promptSelect+" WHERE prompt_set = $1 AND id = $2", set, id))
	if err != nil {
		return nil, err
	} else if len(ps) == 0 {
		return nil, ringside.Errorf(ringside.ENOTFOUND, "prompt %s of set %q not found", id, set)
	}
	return &ps[0], nil
}

// Prompts returns the prompts of the given sets (all sets when none are
// named), ordered by set and id.
func (db *DB) Prompts(ctx context.Context, sets ...string) ([]ringside.Prompt, error) {
	if len(sets) == 0 {
		return db.queryPrompts(ctx, promptSelect+" ORDER BY prompt_set, id")
	}
	var out []ringside.Prompt
	for _, s := range sets {
		ps, err := db.queryPrompts(ctx, promptSelect+" WHERE prompt_set = $1 ORDER BY id", s)
		if err != nil {
			return nil, err
		}
		out = append(out, ps...)
	}
	return out, nil
}

func (db *DB) queryPrompts(ctx context.Context, query string, args ...any) ([]ringside.Prompt, error) {
	return scanPrompts(db.read.QueryContext(ctx, query, args...))
}

func scanPrompts(rows *sql.Rows, err error) ([]ringside.Prompt, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ringside.Prompt
	for rows.Next() {
		var p ringside.Prompt
		var messages, tags, checks string
		if err := rows.Scan(&p.ID, &p.Set, &messages, &p.Category, &p.Kind, &tags, &p.Reference, &checks); err != nil {
			return nil, err
		}
		if err := errors.Join(json.Unmarshal([]byte(messages), &p.Messages),
			json.Unmarshal([]byte(tags), &p.Tags), json.Unmarshal([]byte(checks), &p.Checks)); err != nil {
			return nil, fmt.Errorf("store: prompt %s: %w", p.ID, err)
		}
		if len(p.Tags) == 0 {
			p.Tags = nil
		}
		if len(p.Checks) == 0 {
			p.Checks = nil
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// CheckRunPrompts refuses a run whose prompts share an id across sets.
// Within a run an id names one prompt: resuming, replay files and the
// exported question_id key by it. It looks at the prompts the run is about
// to cover and at the generations the run of that name already stored,
// whose sets may have left its configuration since. Errors: EINVALID naming
// the id and both sets.
func (db *DB) CheckRunPrompts(ctx context.Context, runName string, prompts []ringside.Prompt) error {
	seen := make(map[string]string, len(prompts))
	for i := range prompts {
		p := &prompts[i]
		if set, ok := seen[p.ID]; ok && set != p.Set {
			return runPromptClash(runName, p.ID, set, p.Set)
		}
		seen[p.ID] = p.Set
	}
	rows, err := db.read.QueryContext(ctx, `SELECT DISTINCT g.prompt_id, g.prompt_set FROM generations g
		JOIN runs r ON r.id = g.run_id WHERE r.name = $1 AND g.prompt_set <> ''`, runName)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id, stored string
		if err := rows.Scan(&id, &stored); err != nil {
			return err
		}
		if set, ok := seen[id]; ok && set != stored {
			return runPromptClash(runName, id, stored, set)
		}
	}
	return rows.Err()
}

func runPromptClash(run, id, setA, setB string) error {
	return ringside.FieldError("prompt_sets",
		"run %q: prompt id %q is in set %q and in set %q; a run's prompt ids must be unique across its sets (rename one, or run the sets separately)",
		run, id, setA, setB)
}
