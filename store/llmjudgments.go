package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/ringside-eval/ringside"
)

// LLM judgment statuses.
const (
	JudgmentOK     = "ok"
	JudgmentFailed = "failed"
)

// LLMJudgment is one LLM judging of a battle: the combined verdict and the
// vote it wrote, or the failure, with every call made to the judge model.
type LLMJudgment struct {
	ID       string `json:"id"`
	BattleID string `json:"battle_id"`
	JudgeID  string `json:"judge_id"`
	// VoteID is the vote written; "" for a failure.
	VoteID string          `json:"vote_id,omitempty"`
	Status string          `json:"status"`
	Winner ringside.Winner `json:"winner,omitempty"`
	// Weight is what the vote counts for (the judge's strong_weight when
	// both orders gave the same strong verdict, else 1).
	Weight    int       `json:"weight"`
	Error     string    `json:"error,omitempty"`
	TokensIn  int       `json:"tokens_in"`
	TokensOut int       `json:"tokens_out"`
	CostUSD   float64   `json:"cost_usd"`
	CreatedAt time.Time `json:"created_at"`
	Calls     []LLMCall `json:"calls"`
}

// LLMCall is one call to the judge model.
type LLMCall struct {
	// Position is "ab" when side a was shown as A, "ba" when side b was.
	Position  string  `json:"position"`
	Attempt   int     `json:"attempt"`
	Raw       string  `json:"raw"`
	Label     string  `json:"label,omitempty"`
	Rationale string  `json:"rationale,omitempty"`
	TokensIn  int     `json:"tokens_in"`
	TokensOut int     `json:"tokens_out"`
	CostUSD   float64 `json:"cost_usd"`
	LatencyMs float64 `json:"latency_ms"`
	Error     string  `json:"error,omitempty"`
}

// SaveLLMJudgment stores a judgment and, for a success, its vote, in one
// transaction, so a vote never exists without the calls that produced it.
// A vote the judge already cast on the battle is ECONFLICT and nothing is
// stored.
func (db *DB) SaveLLMJudgment(ctx context.Context, j *LLMJudgment, vote *ringside.Vote) error {
	if vote != nil {
		if err := vote.Validate(); err != nil {
			return err
		}
	}
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if j.ID == "" {
		j.ID = newID()
	}
	if j.CreatedAt.IsZero() {
		j.CreatedAt = db.Now()
	}
	j.Status, j.VoteID = JudgmentFailed, ""
	if vote != nil {
		if err := insertAutoVote(ctx, tx, vote, db.Now); err != nil {
			return err
		}
		j.Status, j.VoteID, j.Winner = JudgmentOK, vote.ID, vote.Winner
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO llm_judgments
		(id, battle_id, judge_id, vote_id, status, winner, weight, error, tokens_in, tokens_out, cost_usd, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
		j.ID, j.BattleID, j.JudgeID, nullable(j.VoteID), j.Status, string(j.Winner), j.Weight, j.Error,
		j.TokensIn, j.TokensOut, j.CostUSD, formatTime(j.CreatedAt))
	if isForeignKeyViolation(err) {
		return ringside.Errorf(ringside.ENOTFOUND, "battle %s or judge %s not found", j.BattleID, j.JudgeID)
	} else if err != nil {
		return err
	}
	for i, c := range j.Calls {
		if _, err := tx.ExecContext(ctx, `INSERT INTO llm_calls
			(judgment_id, seq, position, attempt, raw, label, rationale, tokens_in, tokens_out, cost_usd, latency_ms, error)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
			j.ID, i, c.Position, c.Attempt, c.Raw, c.Label, c.Rationale, c.TokensIn, c.TokensOut, c.CostUSD, c.LatencyMs, c.Error); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// insertAutoVote writes an automatic judge's vote inside a transaction, as
// CreateVote does alone.
func insertAutoVote(ctx context.Context, tx *sql.Tx, v *ringside.Vote, now func() time.Time) error {
	fillVote(v, now)
	_, err := tx.ExecContext(ctx, qInsertVote, voteArgs(v)...)
	switch {
	case isUniqueViolation(err):
		return ringside.Errorf(ringside.ECONFLICT, "judge already voted on battle %s", v.BattleID)
	case isForeignKeyViolation(err):
		return ringside.Errorf(ringside.ENOTFOUND, "battle %s or judge %s not found", v.BattleID, v.JudgeID)
	}
	return err
}

// LLMJudgments returns a judge's judgments of a battle with their calls,
// oldest first (failures, then the success if there is one).
func (db *DB) LLMJudgments(ctx context.Context, battleID, judgeID string) ([]LLMJudgment, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT id, battle_id, judge_id, coalesce(vote_id, ''), status, winner,
		weight, error, tokens_in, tokens_out, cost_usd, created_at
		FROM llm_judgments WHERE battle_id = $1 AND judge_id = $2 ORDER BY created_at, id`, battleID, judgeID)
	if err != nil {
		return nil, err
	}
	var out []LLMJudgment
	for rows.Next() {
		var j LLMJudgment
		var winner, created string
		if err := rows.Scan(&j.ID, &j.BattleID, &j.JudgeID, &j.VoteID, &j.Status, &winner, &j.Weight, &j.Error,
			&j.TokensIn, &j.TokensOut, &j.CostUSD, &created); err != nil {
			rows.Close()
			return nil, err
		}
		j.Winner, j.CreatedAt = ringside.Winner(winner), parseTime(created)
		out = append(out, j)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i := range out {
		if out[i].Calls, err = db.llmCalls(ctx, out[i].ID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (db *DB) llmCalls(ctx context.Context, judgmentID string) ([]LLMCall, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT position, attempt, raw, label, rationale, tokens_in, tokens_out,
		cost_usd, latency_ms, error FROM llm_calls WHERE judgment_id = $1 ORDER BY seq`, judgmentID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []LLMCall
	for rows.Next() {
		var c LLMCall
		if err := rows.Scan(&c.Position, &c.Attempt, &c.Raw, &c.Label, &c.Rationale, &c.TokensIn, &c.TokensOut,
			&c.CostUSD, &c.LatencyMs, &c.Error); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// LLMFailures returns how many failed judgments the judge has recorded on
// each battle it failed on, of a run (of every battle when runID is "").
// `ringside judge` leaves a battle alone once it failed there too often.
func (db *DB) LLMFailures(ctx context.Context, judgeID, runID string) (map[string]int, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT j.battle_id, count(*) FROM llm_judgments j
		WHERE j.judge_id = $1 AND j.status = 'failed'
		  AND ($2 = '' OR j.battle_id IN (SELECT id FROM battles WHERE run_id = $2))
		GROUP BY j.battle_id`, judgeID, runID)
	return countsByID(rows, err)
}

// VoteWeights returns what each LLM judge vote counts for, keyed by vote
// id, for the votes that count other than once (a strong verdict under a
// strong_weight above 1). Every vote not in the map counts once. A ranking
// query can equally LEFT JOIN llm_judgments ON vote_id = votes.id and take
// coalesce(weight, 1).
func (db *DB) VoteWeights(ctx context.Context) (map[string]int, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT vote_id, weight FROM llm_judgments
		WHERE vote_id IS NOT NULL AND weight <> 1`)
	return countsByID(rows, err)
}

// countsByID reads (id, number) rows into a map, closing them.
func countsByID(rows *sql.Rows, err error) (map[string]int, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var id string
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			return nil, err
		}
		out[id] = n
	}
	return out, rows.Err()
}

// JudgingSummary totals an LLM judge's work: judgments that voted and that
// failed, and what judging cost, failures included.
type JudgingSummary struct {
	OK        int     `json:"ok"`
	Failed    int     `json:"failed"`
	Calls     int     `json:"calls"`
	TokensIn  int     `json:"tokens_in"`
	TokensOut int     `json:"tokens_out"`
	CostUSD   float64 `json:"cost_usd"`
}

// LLMJudgingSummary totals a judge's judgments of a run's battles (all
// battles when runID is "").
func (db *DB) LLMJudgingSummary(ctx context.Context, judgeID, runID string) (JudgingSummary, error) {
	var s JudgingSummary
	err := db.read.QueryRowContext(ctx, `SELECT
		coalesce(sum(j.status = 'ok'), 0), coalesce(sum(j.status = 'failed'), 0),
		coalesce(sum((SELECT count(*) FROM llm_calls c WHERE c.judgment_id = j.id)), 0),
		coalesce(sum(j.tokens_in), 0), coalesce(sum(j.tokens_out), 0), coalesce(sum(j.cost_usd), 0)
		FROM llm_judgments j JOIN battles b ON b.id = j.battle_id
		WHERE j.judge_id = $1 AND ($2 = '' OR b.run_id = $2)`, judgeID, runID).
		Scan(&s.OK, &s.Failed, &s.Calls, &s.TokensIn, &s.TokensOut, &s.CostUSD)
	return s, err
}
