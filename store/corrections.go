package store

import (
	"context"
	"database/sql"
	"errors"

	"github.com/ringside-eval/ringside"
)

const (
	// qKeepSuperseded copies the vote being corrected into the record.
	qKeepSuperseded = `INSERT INTO superseded_votes (id, battle_id, judge_id, winner, dimensions, reason,
		duration_ms, created_at, superseded_by, superseded_at)
		SELECT id, battle_id, judge_id, winner, dimensions, reason, duration_ms, created_at, $3, $4
		FROM votes WHERE battle_id = $1 AND judge_id = $2`
	// qReplaceVote puts the correction in the vote's place. The time from
	// the end of streaming to the vote stays the first decision's.
	qReplaceVote = `UPDATE votes SET id = $3, winner = $4, dimensions = $5, reason = $6, created_at = $7
		WHERE battle_id = $1 AND judge_id = $2`
	// qDealtSince finds a deal the judge took after the one on the battle.
	qDealtSince = `SELECT EXISTS (SELECT 1 FROM deals later, deals this
		WHERE this.battle_id = $1 AND this.judge_id = $2 AND later.judge_id = $2
		AND later.battle_id <> $1 AND (later.dealt_at > this.dealt_at OR later.state = 'open'))`
)

// CorrectVote replaces the judge's vote on a battle by v, keeping the
// replaced vote in superseded_votes. Only the judge's last vote can be
// corrected, and only until they take another battle: a battle they did
// not vote on, or one followed by another deal, is ECONFLICT; a revoked
// judge is EUNAUTHORIZED. It returns the replaced vote. The correction is
// durable when this returns nil.
func (g *GroupWriter) CorrectVote(ctx context.Context, v *ringside.Vote) (*ringside.Vote, error) {
	if err := v.Validate(); err != nil {
		return nil, err
	}
	v.ID = ""
	fillVote(v, g.db.Now)
	var old *ringside.Vote
	err := g.DoUrgent(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var state string
		var revoked, later bool
		err := g.queryRow(ctx, tx, qDealState, v.BattleID, v.JudgeID).Scan(&state, &revoked)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return ringside.Errorf(ringside.EUNAUTHORIZED, "battle %s was not dealt to you", v.BattleID)
		case err != nil:
			return err
		case revoked:
			return ringside.Errorf(ringside.EUNAUTHORIZED, "your invite was revoked")
		case state != DealVoted:
			return ringside.Errorf(ringside.ECONFLICT, "you have not voted on battle %s, so there is nothing to change", v.BattleID)
		}
		if err := g.queryRow(ctx, tx, qDealtSince, v.BattleID, v.JudgeID).Scan(&later); err != nil {
			return err
		}
		if later {
			return ringside.Errorf(ringside.ECONFLICT, "you took another battle since; only your last vote can be changed")
		}
		if old, err = scanVote(g.queryRow(ctx, tx, qVoteBy, v.BattleID, v.JudgeID)); err != nil {
			return err
		}
		v.DurationMs = old.DurationMs
		now := formatTime(v.CreatedAt)
		if _, err := g.exec(ctx, tx, qKeepSuperseded, v.BattleID, v.JudgeID, v.ID, now); err != nil {
			return err
		}
		args := voteArgs(v)
		_, err = g.exec(ctx, tx, qReplaceVote, v.BattleID, v.JudgeID, v.ID, args[3], args[4], args[5], now)
		return err
	})
	if err != nil {
		return nil, err
	}
	return old, nil
}

// SupersededVotes returns the votes on a battle that corrections replaced,
// oldest first.
func (db *DB) SupersededVotes(ctx context.Context, battleID string) ([]ringside.Vote, error) {
	rows, err := db.read.QueryContext(ctx, "SELECT "+voteColumns+
		" FROM superseded_votes WHERE battle_id = $1 ORDER BY superseded_at, id", battleID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ringside.Vote
	for rows.Next() {
		v, err := scanVote(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *v)
	}
	return out, rows.Err()
}
