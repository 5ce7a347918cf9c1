package store

import (
	"context"
	"database/sql"
	"errors"

	"github.com/ringside-eval/ringside"
)

// Setting returns the value stored under key, or ENOTFOUND.
func (db *DB) Setting(ctx context.Context, key string) (string, error) {
	var v string
	err := db.read.QueryRowContext(ctx, "SELECT value FROM settings WHERE key = $1", key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ringside.Errorf(ringside.ENOTFOUND, "setting %s not found", key)
	}
	return v, err
}

// SetSetting stores value under key, replacing what was there.
func (db *DB) SetSetting(ctx context.Context, key, value string) error {
	_, err := db.write.ExecContext(ctx,
		"INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value", key, value)
	return err
}

// SetSettingIfAbsent stores value under key unless the key exists, and
// reports whether it stored it. Two servers starting on one file agree on
// whichever wrote first.
func (db *DB) SetSettingIfAbsent(ctx context.Context, key, value string) (bool, error) {
	res, err := db.write.ExecContext(ctx,
		"INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING", key, value)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}
