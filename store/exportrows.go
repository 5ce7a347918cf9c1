package store

import (
	"context"

	"github.com/ringside-eval/ringside"
)

// ExportCheck is a check result with the generation it judged named by
// what a spreadsheet pivots on: model, prompt, sample and run, so that an
// export needs no join to read.
type ExportCheck struct {
	ringside.CheckResult
	Model    string `json:"model"`
	PromptID string `json:"prompt_id"`
	Sample   int    `json:"sample"`
	RunID    string `json:"run_id,omitempty"`
	RunName  string `json:"run,omitempty"`
}

// EachExportCheck calls fn with every check result (of one run when runID
// is set), by generation and then in the order the checks were written.
// fn must not keep the value.
func (db *DB) EachExportCheck(ctx context.Context, runID string, fn func(*ExportCheck) error) error {
	q := `SELECT c.generation_id, c.judge_id, c.source, c.idx, c.type, c.dimension, c.weight, c.pass, c.detail,
		c.checked_at, g.model, g.prompt_id, g.sample, coalesce(g.run_id, ''), coalesce(r.name, '')
		FROM check_results c JOIN generations g ON g.id = c.generation_id LEFT JOIN runs r ON r.id = g.run_id
		WHERE $1 = '' OR g.run_id = $1
		ORDER BY c.generation_id, c.judge_id, c.source DESC, c.idx`
	rows, err := db.read.QueryContext(ctx, q, runID)
	if err != nil {
		return err
	}
	defer rows.Close()
	var e ExportCheck
	for rows.Next() {
		var checked string
		r := &e.CheckResult
		if err := rows.Scan(&r.GenerationID, &r.JudgeID, &r.Source, &r.Index, &r.Type, &r.Dimension,
			&r.Weight, &r.Pass, &r.Detail, &checked, &e.Model, &e.PromptID, &e.Sample, &e.RunID, &e.RunName); err != nil {
			return err
		}
		r.CheckedAt = parseTime(checked)
		if err := fn(&e); err != nil {
			return err
		}
	}
	return rows.Err()
}

// ExportLLMJudgment is one LLM judging of a battle, a success or a failure
// (unreadable verdicts, failed calls), with the battle's models and prompt
// and every call made: what `export llm-judgments` writes, so failures can
// be read without the database.
type ExportLLMJudgment struct {
	LLMJudgment
	Judge    string `json:"judge"`
	ModelA   string `json:"model_a"`
	ModelB   string `json:"model_b"`
	PromptID string `json:"question_id,omitempty"`
	RunID    string `json:"run_id,omitempty"`
}

// EachExportLLMJudgment calls fn with every LLM judgment (on one run's
// battles when runID is set), oldest first, calls included. fn must not
// keep the value.
func (db *DB) EachExportLLMJudgment(ctx context.Context, runID string, fn func(*ExportLLMJudgment) error) error {
	rows, err := db.read.QueryContext(ctx, `SELECT l.id, l.battle_id, l.judge_id, coalesce(l.vote_id, ''), l.status,
		l.winner, l.weight, l.error, l.tokens_in, l.tokens_out, l.cost_usd, l.created_at,
		j.name, b.model_a, b.model_b, b.prompt_id, coalesce(b.run_id, '')
		FROM llm_judgments l JOIN battles b ON b.id = l.battle_id JOIN judges j ON j.id = l.judge_id
		WHERE $1 = '' OR b.run_id = $1 ORDER BY l.created_at, l.id`, runID)
	if err != nil {
		return err
	}
	var all []ExportLLMJudgment
	for rows.Next() {
		var e ExportLLMJudgment
		j := &e.LLMJudgment
		var winner, created string
		if err := rows.Scan(&j.ID, &j.BattleID, &j.JudgeID, &j.VoteID, &j.Status, &winner, &j.Weight, &j.Error,
			&j.TokensIn, &j.TokensOut, &j.CostUSD, &created, &e.Judge, &e.ModelA, &e.ModelB, &e.PromptID, &e.RunID); err != nil {
			rows.Close()
			return err
		}
		j.Winner, j.CreatedAt = ringside.Winner(winner), parseTime(created)
		all = append(all, e)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for i := range all {
		if all[i].Calls, err = db.llmCalls(ctx, all[i].ID); err != nil {
			return err
		}
		if err := fn(&all[i]); err != nil {
			return err
		}
	}
	return nil
}
