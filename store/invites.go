package store

import (
	"context"

	"github.com/ringside-eval/ringside"
)

// Invite is a human judge as the admin sees it: the judge, whether it is
// an anonymous (open judging) judge, and its progress.
type Invite struct {
	ringside.Judge
	Anonymous bool `json:"anonymous,omitempty"`
	Votes     int  `json:"votes"`
}

// CreateAnonymousJudge stores an open-judging judge known by the hash of
// its cookie token. When two first connections with the same cookie race,
// both get the one judge.
func (db *DB) CreateAnonymousJudge(ctx context.Context, tokenHash string, quota int) (*ringside.Judge, error) {
	name := "anonymous-" + tokenHash[:8]
	j := &ringside.Judge{ID: newID(), Kind: ringside.JudgeHuman, Name: name, Quota: quota, CreatedAt: db.Now()}
	if err := j.Validate(); err != nil {
		return nil, err
	}
	_, err := db.write.ExecContext(ctx,
		"INSERT INTO judges (id, kind, name, token_hash, quota, anonymous, created_at) VALUES ($1, 'human', $2, $3, $4, 1, $5)",
		j.ID, j.Name, tokenHash, j.Quota, formatTime(j.CreatedAt))
	if isUniqueViolation(err) {
		return db.JudgeByToken(ctx, tokenHash)
	}
	if err != nil {
		return nil, err
	}
	return j, nil
}

// IsAnonymousJudge reports whether the judge came from open judging.
func (db *DB) IsAnonymousJudge(ctx context.Context, id string) (bool, error) {
	var anon bool
	err := db.read.QueryRowContext(ctx, "SELECT anonymous FROM judges WHERE id = $1", id).Scan(&anon)
	return anon, err
}

// Invites lists the human judges, oldest first, with their vote counts;
// anonymous judges only when withAnonymous is set.
func (db *DB) Invites(ctx context.Context, withAnonymous bool) ([]Invite, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT `+judgeColumns+`, anonymous,
			(SELECT count(*) FROM votes v WHERE v.judge_id = judges.id)
		FROM judges WHERE kind = 'human' AND token_hash IS NOT NULL AND ($1 OR anonymous = 0)
		ORDER BY created_at, id`, withAnonymous)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Invite
	for rows.Next() {
		var inv Invite
		j, err := scanJudge(extraColumns{rows, []any{&inv.Anonymous, &inv.Votes}})
		if err != nil {
			return nil, err
		}
		inv.Judge = *j
		out = append(out, inv)
	}
	return out, rows.Err()
}

// extraColumns lets scanJudge read a row that has more columns after the
// judge's own.
type extraColumns struct {
	s     scanner
	extra []any
}

func (e extraColumns) Scan(dest ...any) error { return e.s.Scan(append(dest, e.extra...)...) }
