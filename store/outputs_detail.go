package store

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ringside-eval/ringside"
)

// OutputDetail is one generation with everything about it: its prompt
// (the whole conversation), its check results, and the battles it was in
// with their votes.
type OutputDetail struct {
	Generation *ringside.Generation `json:"generation"`
	Prompt     *ringside.Prompt     `json:"prompt"`
	Run        string               `json:"run"`
	Checks     []OutputCheck        `json:"checks"`
	Battles    []OutputBattle       `json:"battles"`
}

// OutputCheck is a check result with its judge's name.
type OutputCheck struct {
	ringside.CheckResult
	JudgeName string `json:"judge_name"`
}

// OutputBattle is a battle the generation was in: its side, the other
// model and generation, and the votes cast on it.
type OutputBattle struct {
	BattleID      string       `json:"battle_id"`
	Side          string       `json:"side"`
	Opponent      string       `json:"opponent"`
	OpponentGenID string       `json:"opponent_generation_id"`
	Votes         []OutputVote `json:"votes"`
}

// OutputVote is a vote as the outputs browser shows it: who, the winner
// seen from the battle's sides, and why.
type OutputVote struct {
	JudgeName  string                     `json:"judge_name"`
	JudgeKind  string                     `json:"judge_kind"`
	Winner     ringside.Winner            `json:"winner"`
	Dimensions map[string]ringside.Winner `json:"dimensions,omitempty"`
	Reason     string                     `json:"reason,omitempty"`
	CreatedAt  string                     `json:"created_at"`
}

// OutputDetail returns a generation with its prompt, checks, battles and
// votes. ENOTFOUND for an unknown generation.
func (db *DB) OutputDetail(ctx context.Context, generationID string) (*OutputDetail, error) {
	g, err := db.Generation(ctx, generationID)
	if err != nil {
		return nil, err
	}
	d := &OutputDetail{Generation: g, Checks: []OutputCheck{}, Battles: []OutputBattle{}}
	if p, err := db.Prompt(ctx, g.PromptSet, g.PromptID); err == nil {
		d.Prompt = p
	} else if ringside.ErrorCode(err) != ringside.ENOTFOUND {
		return nil, err
	}
	if g.RunID != "" {
		if err := db.read.QueryRowContext(ctx, "SELECT name FROM runs WHERE id = $1", g.RunID).Scan(&d.Run); err != nil {
			return nil, err
		}
	}
	names, err := db.judgeNames(ctx)
	if err != nil {
		return nil, err
	}
	err = db.attachChecks(ctx, []string{g.ID}, func(r ringside.CheckResult) {
		d.Checks = append(d.Checks, OutputCheck{CheckResult: r, JudgeName: names[r.JudgeID][0]})
	})
	if err != nil {
		return nil, err
	}
	return d, db.outputBattles(ctx, g.ID, names, d)
}

// judgeNames maps judge ids to name and kind.
func (db *DB) judgeNames(ctx context.Context) (map[string][2]string, error) {
	rows, err := db.read.QueryContext(ctx, "SELECT id, name, kind FROM judges")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string][2]string{}
	for rows.Next() {
		var id, name, kind string
		if err := rows.Scan(&id, &name, &kind); err != nil {
			return nil, err
		}
		out[id] = [2]string{name, kind}
	}
	return out, rows.Err()
}

// outputBattles reads the battles the generation was in, with their votes.
func (db *DB) outputBattles(ctx context.Context, genID string, names map[string][2]string, d *OutputDetail) error {
	rows, err := db.read.QueryContext(ctx, `SELECT b.id, CASE WHEN b.generation_a = $1 THEN 'a' ELSE 'b' END,
		CASE WHEN b.generation_a = $1 THEN b.model_b ELSE b.model_a END,
		coalesce(CASE WHEN b.generation_a = $1 THEN b.generation_b ELSE b.generation_a END, ''),
		v.judge_id, v.winner, v.dimensions, v.reason, v.created_at
		FROM battles b LEFT JOIN votes v ON v.battle_id = b.id
		WHERE b.generation_a = $1 OR b.generation_b = $1
		ORDER BY b.id, v.created_at`, genID)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var b OutputBattle
		var judgeID, winner, dims, reason, created *string
		if err := rows.Scan(&b.BattleID, &b.Side, &b.Opponent, &b.OpponentGenID, &judgeID, &winner, &dims, &reason, &created); err != nil {
			return err
		}
		if n := len(d.Battles); n == 0 || d.Battles[n-1].BattleID != b.BattleID {
			b.Votes = []OutputVote{}
			d.Battles = append(d.Battles, b)
		}
		if judgeID == nil {
			continue
		}
		v := OutputVote{JudgeName: names[*judgeID][0], JudgeKind: names[*judgeID][1], Winner: ringside.Winner(*winner),
			Reason: *reason, CreatedAt: *created}
		if err := json.Unmarshal([]byte(*dims), &v.Dimensions); err != nil {
			return fmt.Errorf("store: vote on battle %s: dimensions: %w", b.BattleID, err)
		}
		last := &d.Battles[len(d.Battles)-1]
		last.Votes = append(last.Votes, v)
	}
	return rows.Err()
}
