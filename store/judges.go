package store

import (
	"context"
	"database/sql"
	"errors"

	"github.com/ringside-eval/ringside"
)

// CreateJudge stores a new judge. tokenHash is the HashToken digest of a
// human judge's invite token ("" for automatic judges).
func (db *DB) CreateJudge(ctx context.Context, j *ringside.Judge, tokenHash string) error {
	if err := j.Validate(); err != nil {
		return err
	}
	if j.ID == "" {
		j.ID = newID()
	}
	j.CreatedAt = db.Now()
	var hash any
	if tokenHash != "" {
		hash = tokenHash
	}
	_, err := db.write.ExecContext(ctx,
		"INSERT INTO judges (id, kind, name, token_hash, quota, created_at) VALUES ($1, $2, $3, $4, $5, $6)",
		j.ID, j.Kind, j.Name, hash, j.Quota, formatTime(j.CreatedAt))
	if isUniqueViolation(err) {
		return ringside.Errorf(ringside.ECONFLICT, "judge %s already exists", j.Label())
	}
	return err
}

// EnsureJudge returns the automatic (rules, llm) or imported judge of that
// kind and name, creating it the first time.
func (db *DB) EnsureJudge(ctx context.Context, kind, name string) (*ringside.Judge, error) {
	j, err := db.judgeWhere(ctx, db.read, "kind = $1 AND name = $2 AND token_hash IS NULL", kind, name)
	if ringside.ErrorCode(err) != ringside.ENOTFOUND {
		return j, err
	}
	// Imported human votes carry a label, not an invite: such judges never
	// get a token, which keeps them apart from invited people.
	j = &ringside.Judge{Kind: kind, Name: name}
	if err := db.CreateJudge(ctx, j, ""); ringside.ErrorCode(err) == ringside.ECONFLICT {
		return db.judgeWhere(ctx, db.read, "kind = $1 AND name = $2 AND token_hash IS NULL", kind, name)
	} else if err != nil {
		return nil, err
	}
	return j, nil
}

// Judge returns the judge with the given id, or ENOTFOUND.
func (db *DB) Judge(ctx context.Context, id string) (*ringside.Judge, error) {
	return db.judgeWhere(ctx, db.read, "id = $1", id)
}

// JudgeByToken returns the judge whose invite token hashes to tokenHash.
// An unknown or revoked token is EUNAUTHORIZED.
func (db *DB) JudgeByToken(ctx context.Context, tokenHash string) (*ringside.Judge, error) {
	j, err := db.judgeWhere(ctx, db.read, "token_hash = $1", tokenHash)
	if ringside.ErrorCode(err) == ringside.ENOTFOUND {
		return nil, ringside.Errorf(ringside.EUNAUTHORIZED, "unknown token")
	} else if err != nil {
		return nil, err
	}
	if j.RevokedAt != nil {
		return nil, ringside.Errorf(ringside.EUNAUTHORIZED, "token revoked")
	}
	return j, nil
}

// RevokeJudge revokes a judge's invite; its votes stay.
func (db *DB) RevokeJudge(ctx context.Context, id string) error {
	res, err := db.write.ExecContext(ctx, "UPDATE judges SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL", id, formatTime(db.Now()))
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		if _, err := db.Judge(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

// Judges lists every judge, oldest first.
func (db *DB) Judges(ctx context.Context) ([]ringside.Judge, error) {
	rows, err := db.read.QueryContext(ctx, "SELECT "+judgeColumns+" FROM judges ORDER BY created_at, id")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ringside.Judge
	for rows.Next() {
		j, err := scanJudge(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *j)
	}
	return out, rows.Err()
}

const judgeColumns = "id, kind, name, quota, revoked_at, created_at"

type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func (db *DB) judgeWhere(ctx context.Context, q queryer, where string, args ...any) (*ringside.Judge, error) {
	j, err := scanJudge(q.QueryRowContext(ctx, "SELECT "+judgeColumns+" FROM judges WHERE "+where, args...))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ringside.Errorf(ringside.ENOTFOUND, "judge not found")
	}
	return j, err
}

type scanner interface{ Scan(dest ...any) error }

func scanJudge(s scanner) (*ringside.Judge, error) {
	var j ringside.Judge
	var revoked sql.NullString
	var created string
	if err := s.Scan(&j.ID, &j.Kind, &j.Name, &j.Quota, &revoked, &created); err != nil {
		return nil, err
	}
	j.CreatedAt = parseTime(created)
	if revoked.Valid {
		t := parseTime(revoked.String)
		j.RevokedAt = &t
	}
	return &j, nil
}
