package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/ringside-eval/ringside"
)

// CreateVote commits a vote. When the judge already voted on the battle it
// returns the stored vote with ECONFLICT, so a caller can answer a repeated
// vote with the first one's result. The vote is durable when this returns
// nil: acknowledge it only then.
func (db *DB) CreateVote(ctx context.Context, v *ringside.Vote) (*ringside.Vote, error) {
	if err := v.Validate(); err != nil {
		return nil, err
	}
	fillVote(v, db.Now)
	_, err := db.write.ExecContext(ctx, qInsertVote, voteArgs(v)...)
	switch {
	case isUniqueViolation(err):
		first, ferr := db.VoteBy(ctx, v.BattleID, v.JudgeID)
		if ferr != nil {
			return nil, ferr
		}
		return first, ringside.Errorf(ringside.ECONFLICT, "judge already voted on battle %s", v.BattleID)
	case isForeignKeyViolation(err):
		return nil, ringside.Errorf(ringside.ENOTFOUND, "battle %s or judge %s not found", v.BattleID, v.JudgeID)
	case err != nil:
		return nil, err
	}
	return v, nil
}

// VoteBy returns the judge's vote on the battle, or ENOTFOUND.
func (db *DB) VoteBy(ctx context.Context, battleID, judgeID string) (*ringside.Vote, error) {
	v, err := scanVote(db.read.QueryRowContext(ctx, qVoteBy, battleID, judgeID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ringside.Errorf(ringside.ENOTFOUND, "no vote by judge %s on battle %s", judgeID, battleID)
	}
	return v, err
}

// CountVotes returns the number of votes stored.
func (db *DB) CountVotes(ctx context.Context) (int, error) {
	var n int
	err := db.read.QueryRowContext(ctx, "SELECT count(*) FROM votes").Scan(&n)
	return n, err
}

const voteColumns = "id, battle_id, judge_id, winner, dimensions, reason, duration_ms, created_at"

func scanVote(s scanner) (*ringside.Vote, error) {
	var v ringside.Vote
	var winner, dims, created string
	if err := s.Scan(&v.ID, &v.BattleID, &v.JudgeID, &winner, &dims, &v.Reason, &v.DurationMs, &created); err != nil {
		return nil, err
	}
	v.Winner = ringside.Winner(winner)
	if err := json.Unmarshal([]byte(dims), &v.Dimensions); err != nil {
		return nil, err
	}
	if len(v.Dimensions) == 0 {
		v.Dimensions = nil
	}
	v.CreatedAt = parseTime(created)
	return &v, nil
}

// qInsertVote is the one statement every path that stores a vote uses (a
// person's vote through a deal, an automatic judge's, an import).
const qInsertVote = `INSERT INTO votes (id, battle_id, judge_id, winner, dimensions, reason, duration_ms, created_at)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`

// fillVote gives a new vote its id and time.
func fillVote(v *ringside.Vote, now func() time.Time) {
	if v.ID == "" {
		v.ID = newID()
	}
	if v.CreatedAt.IsZero() {
		v.CreatedAt = now()
	}
}

// voteArgs are qInsertVote's arguments for v.
func voteArgs(v *ringside.Vote) []any {
	dims := v.Dimensions
	if dims == nil {
		dims = map[string]ringside.Winner{}
	}
	dimsJSON, _ := json.Marshal(dims)
	return []any{v.ID, v.BattleID, v.JudgeID, string(v.Winner), string(dimsJSON), v.Reason, v.DurationMs, formatTime(v.CreatedAt)}
}
