package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/ringside-eval/ringside"
)

// TrustVote is a vote as the judges' report reads it (package trust): its
// battle, its judge, its verdict, how long the judge took after the outputs
// ended, how much there was to read, and whether the battle is gold.
type TrustVote struct {
	BattleID       string
	ModelA, ModelB string
	JudgeID, Judge string // id and label ("human:ana")
	JudgeKind      string
	Winner         ringside.Winner
	// DurationMs is the time from the end of the outputs to the vote; 0
	// when not measured (automatic judges, imported votes).
	DurationMs int64
	// Chars is the length of both outputs in characters; -1 when the
	// battle has no stored generations (imported battles).
	Chars int
	// Gold is the verdict the battle must get ("" when it is not gold).
	Gold string
}

// TrustVotes returns every vote on the battles of a run (all when runID is
// ""), in the order they were cast.
func (db *DB) TrustVotes(ctx context.Context, runID string) ([]TrustVote, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT v.battle_id, b.model_a, b.model_b, j.id, j.kind, j.name,
		v.winner, v.duration_ms,
		CASE WHEN ga.id IS NULL OR gb.id IS NULL THEN -1 ELSE length(ga.output) + length(gb.output) END,
		coalesce(g.expected, '')
		FROM votes v JOIN judges j ON j.id = v.judge_id JOIN battles b ON b.id = v.battle_id
		LEFT JOIN generations ga ON ga.id = b.generation_a
		LEFT JOIN generations gb ON gb.id = b.generation_b
		LEFT JOIN gold_battles g ON g.battle_id = b.id
		WHERE $1 = '' OR b.run_id = $1
		ORDER BY v.rowid`, runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []TrustVote
	for rows.Next() {
		var v TrustVote
		var j ringside.Judge
		if err := rows.Scan(&v.BattleID, &v.ModelA, &v.ModelB, &v.JudgeID, &j.Kind, &j.Name,
			&v.Winner, &v.DurationMs, &v.Chars, &v.Gold); err != nil {
			return nil, err
		}
		v.JudgeKind, v.Judge = j.Kind, j.Label()
		out = append(out, v)
	}
	return out, rows.Err()
}

// Gold verdicts: what a gold battle must get.
var GoldVerdicts = []string{"a", "b", "tie", "not_a", "not_b"}

// ValidGold reports whether s is one of GoldVerdicts.
func ValidGold(s string) bool {
	for _, g := range GoldVerdicts {
		if g == s {
			return true
		}
	}
	return false
}

// Gold is a gold battle: the battle and the verdict it must get.
type Gold struct {
	BattleID string `json:"battle_id"`
	Expected string `json:"expected"`
	Note     string `json:"note,omitempty"`
}

// SetGold marks battles gold (again: the new verdict replaces the old), all
// or none: EINVALID naming the item for a verdict not in GoldVerdicts,
// ENOTFOUND for a battle that is not stored.
func (db *DB) SetGold(ctx context.Context, golds []Gold) error {
	for i, g := range golds {
		if !ValidGold(g.Expected) {
			return ringside.FieldError(fmt.Sprintf("gold[%d].expected", i), "%q is not one of a, b, tie, not_a, not_b", g.Expected)
		}
	}
	return db.writeTx(ctx, func(tx *sql.Tx) error {
		for i, g := range golds {
			var one int
			err := tx.QueryRowContext(ctx, "SELECT 1 FROM battles WHERE id = $1", g.BattleID).Scan(&one)
			if errors.Is(err, sql.ErrNoRows) {
				return ringside.Errorf(ringside.ENOTFOUND, "gold[%d].battle_id: no battle %q", i, g.BattleID)
			}
			if err != nil {
				return err
			}
			// Delete and insert, so that a changed verdict moves the
			// leaderboards' change counter as a new mark does.
			if _, err := tx.ExecContext(ctx, "DELETE FROM gold_battles WHERE battle_id = $1", g.BattleID); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, "INSERT INTO gold_battles (battle_id, expected, note, created_at) VALUES ($1, $2, $3, $4)",
				g.BattleID, g.Expected, g.Note, formatTime(time.Now())); err != nil {
				return err
			}
		}
		return nil
	})
}

// DeleteGold unmarks a battle; ENOTFOUND when it was not gold.
func (db *DB) DeleteGold(ctx context.Context, battleID string) error {
	return db.writeTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, "DELETE FROM gold_battles WHERE battle_id = $1", battleID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ringside.Errorf(ringside.ENOTFOUND, "battle %q is not gold", battleID)
		}
		return nil
	})
}

// GoldBattles lists the gold battles by battle id.
func (db *DB) GoldBattles(ctx context.Context) ([]Gold, error) {
	rows, err := db.read.QueryContext(ctx, "SELECT battle_id, expected, note FROM gold_battles ORDER BY created_at, battle_id")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Gold{}
	for rows.Next() {
		var g Gold
		if err := rows.Scan(&g.BattleID, &g.Expected, &g.Note); err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

// JudgeExclusion is an admin's choice about a judge's votes.
type JudgeExclusion struct {
	JudgeID  string    `json:"judge_id"`
	Judge    string    `json:"judge"`
	Excluded bool      `json:"excluded"`
	Reason   string    `json:"reason,omitempty"`
	At       time.Time `json:"at"`
}

// SetJudgeExclusion stores an admin's choice about a judge: excluded true
// leaves its votes out of boards, false keeps them even when flagged, nil
// withdraws the choice (the flags decide). Every call is logged.
// ENOTFOUND for an unknown judge.
func (db *DB) SetJudgeExclusion(ctx context.Context, judgeID string, excluded *bool, reason string) error {
	now := formatTime(time.Now())
	return db.writeTx(ctx, func(tx *sql.Tx) error {
		var one int
		err := tx.QueryRowContext(ctx, "SELECT 1 FROM judges WHERE id = $1", judgeID).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return ringside.Errorf(ringside.ENOTFOUND, "judge: no judge %q", judgeID)
		}
		if err != nil {
			return err
		}
		var logged any
		if excluded == nil {
			_, err = tx.ExecContext(ctx, "DELETE FROM judge_exclusions WHERE judge_id = $1", judgeID)
		} else {
			logged = *excluded
			_, err = tx.ExecContext(ctx, `INSERT INTO judge_exclusions (judge_id, excluded, reason, updated_at) VALUES ($1, $2, $3, $4)
				ON CONFLICT (judge_id) DO UPDATE SET excluded = excluded.excluded, reason = excluded.reason, updated_at = excluded.updated_at`,
				judgeID, *excluded, reason, now)
		}
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, "INSERT INTO judge_exclusion_log (judge_id, excluded, reason, created_at) VALUES ($1, $2, $3, $4)",
			judgeID, logged, reason, now)
		return err
	})
}

// JudgeExclusions lists the admins' standing choices, by judge label.
func (db *DB) JudgeExclusions(ctx context.Context) (map[string]JudgeExclusion, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT x.judge_id, j.kind, j.name, x.excluded, x.reason, x.updated_at
		FROM judge_exclusions x JOIN judges j ON j.id = x.judge_id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]JudgeExclusion{}
	for rows.Next() {
		var x JudgeExclusion
		var j ringside.Judge
		var at string
		if err := rows.Scan(&x.JudgeID, &j.Kind, &j.Name, &x.Excluded, &x.Reason, &at); err != nil {
			return nil, err
		}
		x.Judge, x.At = j.Label(), parseTime(at)
		out[x.Judge] = x
	}
	return out, rows.Err()
}

// writeTx runs fn in a transaction on the writer, committed when fn
// returns nil.
func (db *DB) writeTx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// GoldCandidates returns up to limit gold battles that can be dealt to the
// judge, least-dealt first: both sides stored and generated without error,
// no identity leak, not dealt to this judge before. Whatever run they come
// from: an admin chose them to test the judges.
func (db *DB) GoldCandidates(ctx context.Context, judgeID string, limit int) ([]StoredCandidate, error) {
	return scanCandidates(db.read.QueryContext(ctx, `SELECT b.id, b.dealt FROM gold_battles g JOIN battles b ON b.id = g.battle_id
		WHERE b.generation_a IS NOT NULL AND b.generation_b IS NOT NULL AND b.identity_leak = 0 AND b.failed_side = 0
		  AND NOT EXISTS (SELECT 1 FROM deals d WHERE d.battle_id = b.id AND d.judge_id = $1)
		ORDER BY b.dealt, b.id LIMIT $2`, judgeID, limit))
}
