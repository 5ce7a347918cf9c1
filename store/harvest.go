package store

import (
	"context"
	"encoding/json"

	"github.com/ringside-eval/ringside"
)

// HarvestPrompt is a prompt of a set with how the judges took to it: how
// many judges voted on battles of it, and whether the admin picked it.
type HarvestPrompt struct {
	Prompt ringside.Prompt
	Judges int
	Picked bool
}

// HarvestFilter selects the prompts of a set worth exporting.
type HarvestFilter struct {
	// MinJudges keeps prompts voted on by at least this many judges.
	MinJudges int
	// PickedOnly keeps prompts the admin picked.
	PickedOnly bool
}

// Harvest returns the prompts of a set that pass the filter, by id, with
// the judges who voted on them.
func (db *DB) Harvest(ctx context.Context, set string, f HarvestFilter) ([]HarvestPrompt, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT p.id, p.messages, p.category, p.kind, p.tags, p.reference, p.checks,
		(SELECT count(DISTINCT v.judge_id) FROM battles b JOIN votes v ON v.battle_id = b.id
			WHERE b.prompt_set = p.prompt_set AND b.prompt_id = p.id) AS judges,
		EXISTS (SELECT 1 FROM prompt_picks k WHERE k.prompt_set = p.prompt_set AND k.prompt_id = p.id) AS picked
		FROM prompts p WHERE p.prompt_set = $1 ORDER BY p.id`, set)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []HarvestPrompt
	for rows.Next() {
		var h HarvestPrompt
		var msgs, tags, checks string
		p := &h.Prompt
		if err := rows.Scan(&p.ID, &msgs, &p.Category, &p.Kind, &tags, &p.Reference, &checks, &h.Judges, &h.Picked); err != nil {
			return nil, err
		}
		if h.Judges < f.MinJudges || (f.PickedOnly && !h.Picked) {
			continue
		}
		p.Set = set
		for _, c := range []struct {
			raw string
			to  any
		}{{msgs, &p.Messages}, {tags, &p.Tags}, {checks, &p.Checks}} {
			if err := json.Unmarshal([]byte(c.raw), c.to); err != nil {
				return nil, err
			}
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

// PickPrompt marks a prompt of a set as picked for export, or unmarks it.
// A prompt not in the set is ENOTFOUND.
func (db *DB) PickPrompt(ctx context.Context, set, id string, picked bool) error {
	if _, err := db.Prompt(ctx, set, id); err != nil {
		return err
	}
	var err error
	if picked {
		_, err = db.write.ExecContext(ctx, `INSERT INTO prompt_picks (prompt_set, prompt_id, picked_at) VALUES ($1, $2, $3)
			ON CONFLICT DO NOTHING`, set, id, formatTime(db.Now()))
	} else {
		_, err = db.write.ExecContext(ctx, "DELETE FROM prompt_picks WHERE prompt_set = $1 AND prompt_id = $2", set, id)
	}
	return err
}
