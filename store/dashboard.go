package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/ringside-eval/ringside"
)

// This file holds the reads of the leaderboard and admin pages: how far each
// run has got, what each judge has done, how often each model failed, and a
// cheap stamp that says whether anything a leaderboard depends on changed.

// Stamp identifies the state of the votes and generations: two equal stamps
// mean the same leaderboard, so a cached one can be served. Deletes are
// caught by the counts, inserts by the largest rowids.
type Stamp struct {
	Votes, LastVote             int64
	Generations, LastGeneration int64
	Checks                      int64
}

// DataStamp reads the Stamp. Every part is a count or max over a rowid
// table, which SQLite answers from the b-tree without reading rows.
func (db *DB) DataStamp(ctx context.Context) (Stamp, error) {
	var s Stamp
	err := db.read.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM votes), (SELECT coalesce(max(rowid), 0) FROM votes),
		(SELECT count(*) FROM generations), (SELECT coalesce(max(rowid), 0) FROM generations),
		(SELECT count(*) FROM check_results)`).
		Scan(&s.Votes, &s.LastVote, &s.Generations, &s.LastGeneration, &s.Checks)
	return s, err
}

// RunProgress is a run as the admin page shows it: what it should produce
// and what it has stored so far.
type RunProgress struct {
	ID         string    `json:"id"`
	Name       string    `json:"name"`
	Models     []string  `json:"models"`
	PromptSets []string  `json:"prompt_sets"`
	Samples    int       `json:"samples"`
	CreatedAt  time.Time `json:"created_at"`
	// Prompts is the number of prompts in the run's sets now, and
	// Expected the generations a complete run holds (prompts × models ×
	// samples).
	Prompts     int `json:"prompts"`
	Expected    int `json:"expected_generations"`
	Generations int `json:"generations"`
	Failed      int `json:"failed"`
	Battles     int `json:"battles"`
	Votes       int `json:"votes"`
	// Judged is the number of the run's battles with at least one vote.
	Judged int `json:"judged"`
}

// RunsProgress lists every run, newest first, with its counts.
func (db *DB) RunsProgress(ctx context.Context) ([]RunProgress, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT r.id, r.name, r.models, r.prompt_sets, r.samples, r.created_at,
		(SELECT count(*) FROM generations g WHERE g.run_id = r.id),
		(SELECT count(*) FROM generations g WHERE g.run_id = r.id AND g.error_kind <> ''),
		(SELECT count(*) FROM battles b WHERE b.run_id = r.id),
		(SELECT count(*) FROM battles b JOIN votes v ON v.battle_id = b.id WHERE b.run_id = r.id),
		(SELECT count(DISTINCT b.id) FROM battles b JOIN votes v ON v.battle_id = b.id WHERE b.run_id = r.id)
		FROM runs r ORDER BY r.created_at DESC, r.id DESC`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []RunProgress
	for rows.Next() {
		var p RunProgress
		var models, sets, created string
		if err := rows.Scan(&p.ID, &p.Name, &models, &sets, &p.Samples, &created,
			&p.Generations, &p.Failed, &p.Battles, &p.Votes, &p.Judged); err != nil {
			return nil, err
		}
		if err := errors.Join(json.Unmarshal([]byte(models), &p.Models), json.Unmarshal([]byte(sets), &p.PromptSets)); err != nil {
			return nil, err
		}
		p.CreatedAt = parseTime(created)
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// The prompt counts need the sets decoded first; a run names few sets.
	for i := range out {
		p := &out[i]
		for _, set := range p.PromptSets {
			var n int
			if err := db.read.QueryRowContext(ctx, "SELECT count(*) FROM prompts WHERE prompt_set = $1", set).Scan(&n); err != nil {
				return nil, err
			}
			p.Prompts += n
		}
		p.Expected = p.Prompts * len(p.Models) * p.Samples
	}
	return out, nil
}

// JudgeActivity is what one judge has done: votes cast, the median time a
// vote took (human judges; automatic ones record none), and the last vote.
type JudgeActivity struct {
	JudgeID    string     `json:"judge_id"`
	Kind       string     `json:"kind"`
	Name       string     `json:"name"`
	Quota      int        `json:"quota,omitempty"`
	Revoked    bool       `json:"revoked,omitempty"`
	Anonymous  bool       `json:"anonymous,omitempty"`
	Votes      int        `json:"votes"`
	MedianMs   *float64   `json:"median_ms_per_vote,omitempty"`
	LastVoteAt *time.Time `json:"last_vote_at,omitempty"`
	CreatedAt  time.Time  `json:"created_at"`
}

// JudgesActivity lists every judge, oldest first, with its activity. The
// median is taken in Go over the judge's vote durations: SQLite has no
// median, and a judge's votes number in the thousands at most.
func (db *DB) JudgesActivity(ctx context.Context) ([]JudgeActivity, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT j.id, j.kind, j.name, j.quota, j.revoked_at IS NOT NULL, j.anonymous, j.created_at,
		v.duration_ms, v.created_at
		FROM judges j LEFT JOIN votes v ON v.judge_id = j.id
		ORDER BY j.created_at, j.id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []JudgeActivity
	var durations []float64
	finish := func() {
		if len(out) == 0 {
			return
		}
		if len(durations) > 0 {
			slices.Sort(durations)
			m := durations[len(durations)/2]
			if len(durations)%2 == 0 {
				m = (durations[len(durations)/2-1] + m) / 2
			}
			out[len(out)-1].MedianMs = &m
		}
		durations = durations[:0]
	}
	for rows.Next() {
		var (
			a            JudgeActivity
			created      string
			dur          sql.NullInt64
			voteAt       sql.NullString
			revoked, ano bool
		)
		if err := rows.Scan(&a.JudgeID, &a.Kind, &a.Name, &a.Quota, &revoked, &ano, &created, &dur, &voteAt); err != nil {
			return nil, err
		}
		if len(out) == 0 || out[len(out)-1].JudgeID != a.JudgeID {
			finish()
			a.Revoked, a.Anonymous, a.CreatedAt = revoked, ano, parseTime(created)
			out = append(out, a)
		}
		cur := &out[len(out)-1]
		if !voteAt.Valid {
			continue
		}
		cur.Votes++
		if t := parseTime(voteAt.String); cur.LastVoteAt == nil || t.After(*cur.LastVoteAt) {
			cur.LastVoteAt = &t
		}
		// A duration of 0 was not measured (automatic or imported votes).
		if dur.Int64 > 0 {
			durations = append(durations, float64(dur.Int64))
		}
	}
	finish()
	return out, rows.Err()
}

// SetJudgeQuota changes how many battles a human judge is asked for (0 = no
// limit). Errors: EINVALID for a negative quota, ENOTFOUND for an unknown
// or automatic judge.
func (db *DB) SetJudgeQuota(ctx context.Context, id string, quota int) error {
	if quota < 0 {
		return ringside.FieldError("quota", "must be 0 (no limit) or more")
	}
	res, err := db.write.ExecContext(ctx, "UPDATE judges SET quota = $1 WHERE id = $2 AND kind = 'human'", quota, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ringside.Errorf(ringside.ENOTFOUND, "no human judge %s", id)
	}
	return nil
}

// ModelErrors is one model's generations and failures, by error kind.
type ModelErrors struct {
	Model       string         `json:"model"`
	Generations int            `json:"generations"`
	Errors      int            `json:"errors"`
	ErrorRate   float64        `json:"error_rate"`
	ByKind      map[string]int `json:"by_kind,omitempty"`
}

// ModelsErrors lists every model that has generations, by name.
func (db *DB) ModelsErrors(ctx context.Context) ([]ModelErrors, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT model, error_kind, count(*) FROM generations
		GROUP BY model, error_kind ORDER BY model, error_kind`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ModelErrors
	for rows.Next() {
		var model, kind string
		var n int
		if err := rows.Scan(&model, &kind, &n); err != nil {
			return nil, err
		}
		if ringside.OperatorError(kind) {
			continue // the operator's failure, not the model's
		}
		if len(out) == 0 || out[len(out)-1].Model != model {
			out = append(out, ModelErrors{Model: model})
		}
		m := &out[len(out)-1]
		m.Generations += n
		if kind != "" {
			m.Errors += n
			if m.ByKind == nil {
				m.ByKind = map[string]int{}
			}
			m.ByKind[kind] += n
		}
	}
	for i := range out {
		if out[i].Generations > 0 {
			out[i].ErrorRate = float64(out[i].Errors) / float64(out[i].Generations)
		}
	}
	return out, rows.Err()
}
