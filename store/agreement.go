package store

import (
	"context"

	"github.com/ringside-eval/ringside"
)

// JudgedVote is a vote with its judge and the lengths of the two answers,
// which is what agreement between judges and a judge's taste for length are
// computed from (judge.Agreements, judge.LengthPreference).
type JudgedVote struct {
	BattleID  string
	JudgeID   string
	JudgeKind string
	JudgeName string
	Winner    ringside.Winner
	// LenA and LenB are the answers' lengths in characters; -1 when the
	// battle has no stored generation for that side (imported battles).
	LenA, LenB int
}

// JudgeLabel is the judge as battle records write it ("llm:gpt-judge").
func (v *JudgedVote) JudgeLabel() string { return v.JudgeKind + ":" + v.JudgeName }

// JudgedVotes returns every vote on the battles of a run (on all battles
// when runID is ""), oldest first.
func (db *DB) JudgedVotes(ctx context.Context, runID string) ([]JudgedVote, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT v.battle_id, j.id, j.kind, j.name, v.winner,
		coalesce(length(ga.output), -1), coalesce(length(gb.output), -1)
		FROM votes v JOIN judges j ON j.id = v.judge_id JOIN battles b ON b.id = v.battle_id
		LEFT JOIN generations ga ON ga.id = b.generation_a
		LEFT JOIN generations gb ON gb.id = b.generation_b
		WHERE $1 = '' OR b.run_id = $1
		ORDER BY v.created_at, v.id`, runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []JudgedVote
	for rows.Next() {
		var v JudgedVote
		var winner string
		if err := rows.Scan(&v.BattleID, &v.JudgeID, &v.JudgeKind, &v.JudgeName, &winner, &v.LenA, &v.LenB); err != nil {
			return nil, err
		}
		v.Winner = ringside.Winner(winner)
		out = append(out, v)
	}
	return out, rows.Err()
}

// OrderLabels are an LLM judge's two readable labels on one battle: First
// with side a shown as A, Swapped with side b shown as A.
type OrderLabels struct {
	BattleID       string
	First, Swapped string
}

// LLMOrderLabels returns, for every battle of a run (all battles when runID
// is "") that an LLM judge judged successfully in both orders, the label it
// gave in each (the readable one when a verdict was asked twice). The order
// flip rate is computed from these (judge.OrderConsistency).
func (db *DB) LLMOrderLabels(ctx context.Context, judgeID, runID string) ([]OrderLabels, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT battle_id, first, swapped FROM (
		SELECT j.battle_id AS battle_id, j.created_at AS created_at,
		(SELECT label FROM llm_calls c WHERE c.judgment_id = j.id AND c.position = 'ab' AND c.label <> '' ORDER BY seq DESC LIMIT 1) AS first,
		(SELECT label FROM llm_calls c WHERE c.judgment_id = j.id AND c.position = 'ba' AND c.label <> '' ORDER BY seq DESC LIMIT 1) AS swapped
		FROM llm_judgments j JOIN battles b ON b.id = j.battle_id
		WHERE j.judge_id = $1 AND j.status = 'ok' AND ($2 = '' OR b.run_id = $2))
		WHERE first IS NOT NULL AND swapped IS NOT NULL
		ORDER BY created_at, battle_id`, judgeID, runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []OrderLabels
	for rows.Next() {
		var o OrderLabels
		if err := rows.Scan(&o.BattleID, &o.First, &o.Swapped); err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, rows.Err()
}
