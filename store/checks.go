package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ringside-eval/ringside"
)

// ReplaceCheckResults stores a rules judge's results for the given
// generations in one transaction, replacing what that judge stored for them
// before (a generation whose prompt has no checks is in generationIDs with no
// results, which clears it). Every result's GenerationID must be among
// generationIDs.
func (db *DB) ReplaceCheckResults(ctx context.Context, judgeID string, generationIDs []string, results []ringside.CheckResult) error {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, id := range generationIDs {
		if _, err := tx.ExecContext(ctx, "DELETE FROM check_results WHERE generation_id = $1 AND judge_id = $2", id, judgeID); err != nil {
			return err
		}
	}
	now := formatTime(db.Now())
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO check_results
		(generation_id, judge_id, source, idx, type, dimension, weight, pass, detail, checked_at, cost_usd)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, r := range results {
		_, err := stmt.ExecContext(ctx, r.GenerationID, judgeID, r.Source, r.Index, r.Type, r.Dimension, r.Weight, r.Pass, r.Detail, now, r.CostUSD)
		switch {
		case isForeignKeyViolation(err):
			return ringside.Errorf(ringside.ENOTFOUND, "generation %s or judge %s not found", r.GenerationID, judgeID)
		case isUniqueViolation(err):
			return ringside.Errorf(ringside.ECONFLICT, "check %s[%d] given twice for generation %s", r.Source, r.Index, r.GenerationID)
		case err != nil:
			return fmt.Errorf("store: check result: %w", err)
		}
	}
	return tx.Commit()
}

// SaveAutoVotes stores an automatic judge's votes in one transaction and
// returns how many were new. A battle the judge already voted on keeps its
// vote and is skipped, so rerunning a judge writes nothing twice.
func (db *DB) SaveAutoVotes(ctx context.Context, votes []*ringside.Vote) (int, error) {
	for _, v := range votes {
		if err := v.Validate(); err != nil {
			return 0, err
		}
	}
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	written := 0
	for _, v := range votes {
		err := insertAutoVote(ctx, tx, v, db.Now)
		switch {
		case ringside.ErrorCode(err) == ringside.ECONFLICT:
		case err != nil:
			return 0, err
		default:
			written++
		}
	}
	return written, tx.Commit()
}

// CheckFilter selects check results; empty fields select everything.
type CheckFilter struct {
	JudgeID      string
	GenerationID string
	RunID        string
	// FailedOnly keeps the failed checks only.
	FailedOnly bool
}

// CheckResults returns the stored check results matching f, by generation
// and then in the order the checks were written.
func (db *DB) CheckResults(ctx context.Context, f CheckFilter) ([]ringside.CheckResult, error) {
	var where []string
	var args []any
	add := func(cond string, v any) {
		args = append(args, v)
		where = append(where, fmt.Sprintf(cond, len(args)))
	}
	if f.JudgeID != "" {
		add("c.judge_id = $%d", f.JudgeID)
	}
	if f.GenerationID != "" {
		add("c.generation_id = $%d", f.GenerationID)
	}
	if f.RunID != "" {
		add("g.run_id = $%d", f.RunID)
	}
	if f.FailedOnly {
		where = append(where, "c.pass = 0")
	}
	q := `SELECT c.generation_id, c.judge_id, c.source, c.idx, c.type, c.dimension, c.weight, c.pass, c.detail, c.checked_at, c.cost_usd
		FROM check_results c JOIN generations g ON g.id = c.generation_id`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY c.generation_id, c.judge_id, c.source DESC, c.idx"
	rows, err := db.read.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ringside.CheckResult
	for rows.Next() {
		var r ringside.CheckResult
		var checked string
		if err := rows.Scan(&r.GenerationID, &r.JudgeID, &r.Source, &r.Index, &r.Type, &r.Dimension,
			&r.Weight, &r.Pass, &r.Detail, &checked, &r.CostUSD); err != nil {
			return nil, err
		}
		r.CheckedAt = parseTime(checked)
		out = append(out, r)
	}
	return out, rows.Err()
}

// CheckScores returns the summed results of a rules judge for the
// generations of a run (of every run and live generation when runID is ""),
// ordered by model, prompt, sample and dimension. It is what pass rates,
// pass^k and pass@k are computed from (judge.ComputePassStats).
func (db *DB) CheckScores(ctx context.Context, judgeID, runID string) ([]ringside.CheckScore, error) {
	const cols = `g.model, g.prompt_id, g.sample, coalesce(p.category, ''), coalesce(p.kind, ''), coalesce(p.tags, '[]')`
	const sums = `count(*), sum(c.pass), sum(c.weight), sum(c.weight * c.pass)`
	const from = ` FROM check_results c JOIN generations g ON g.id = c.generation_id
		LEFT JOIN prompts p ON p.prompt_set = g.prompt_set AND p.id = g.prompt_id
		WHERE c.judge_id = $1 AND ($2 = '' OR g.run_id = $2)`
	q := `SELECT ` + cols + `, '', ` + sums + from + ` GROUP BY c.generation_id
		UNION ALL
		SELECT ` + cols + `, c.dimension, ` + sums + from + ` AND c.dimension <> '' GROUP BY c.generation_id, c.dimension
		ORDER BY 1, 2, 3, 7`
	rows, err := db.read.QueryContext(ctx, q, judgeID, runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ringside.CheckScore
	for rows.Next() {
		var s ringside.CheckScore
		var tags string
		if err := rows.Scan(&s.Model, &s.PromptID, &s.Sample, &s.Category, &s.Kind, &tags, &s.Dimension,
			&s.Checks, &s.Passed, &s.Weight, &s.WeightPassed); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(tags), &s.Tags); err != nil {
			return nil, fmt.Errorf("store: prompt %s tags: %w", s.PromptID, err)
		}
		if len(s.Tags) == 0 {
			s.Tags = nil
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// GenerationsPage returns up to limit generations with ids after afterID, in
// id order, of a run (of all runs and live play when runID is ""). Walking
// the pages keeps memory flat over a large run.
func (db *DB) GenerationsPage(ctx context.Context, runID, afterID string, limit int) ([]ringside.Generation, error) {
	return db.queryGenerations(ctx, "SELECT "+generationColumns+` FROM generations
		WHERE id > $1 AND ($2 = '' OR run_id = $2) ORDER BY id LIMIT $3`, afterID, runID, limit)
}

// BattlesToJudge returns the battles of a run (all battles when runID is "")
// that have both generations, neither failed, and no vote yet from the judge,
// oldest first: what `ringside judge` still has to do, so a rerun resumes. A
// battle with a failed side has nothing to judge; the failure counts in the
// model's error rate instead (see package arena).
func (db *DB) BattlesToJudge(ctx context.Context, judgeID, runID string) ([]ringside.Battle, error) {
	rows, err := db.read.QueryContext(ctx, "SELECT "+battleColumns+` FROM battles b
		WHERE ($2 = '' OR run_id = $2)
		AND EXISTS (SELECT 1 FROM generations g WHERE g.id = b.generation_a AND g.error_kind = '')
		AND EXISTS (SELECT 1 FROM generations g WHERE g.id = b.generation_b AND g.error_kind = '')
		AND NOT EXISTS (SELECT 1 FROM votes v WHERE v.battle_id = b.id AND v.judge_id = $1)
		AND `+singleTurn+`
		ORDER BY id`, judgeID, runID)
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
