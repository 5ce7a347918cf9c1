package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/ringside-eval/ringside"
)

// RunLock is a process's hold on a run: only the holder generates the
// run's work, so no generation is asked for twice.
type RunLock struct {
	RunID string
	// Owner tells holders apart: a random id per process.
	Owner       string
	PID         int
	Host        string
	StartedAt   time.Time
	HeartbeatAt time.Time
}

// LockRun takes the run's lock for l.Owner, stamping it with the store's
// clock. A lock already held by another owner is taken over only when
// stale(held) says its holder is gone; otherwise LockRun returns ECONFLICT
// with the holder, and the caller should leave the run alone. Taking a lock
// the owner already holds renews it.
func (db *DB) LockRun(ctx context.Context, l RunLock, stale func(held RunLock) bool) (err error) {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	held, err := runLock(ctx, tx, l.RunID)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return err
	case held.Owner != l.Owner && !stale(*held):
		return ringside.Errorf(ringside.ECONFLICT, "run is being run by another process (pid %d on %s, since %s, last heard from %s)",
			held.PID, held.Host, held.StartedAt.Local().Format(time.DateTime), held.HeartbeatAt.Local().Format(time.DateTime))
	}
	now := formatTime(db.Now())
	if _, err := tx.ExecContext(ctx, `INSERT INTO run_locks (run_id, owner, pid, host, started_at, heartbeat_at)
		VALUES ($1, $2, $3, $4, $5, $5)
		ON CONFLICT (run_id) DO UPDATE SET owner = excluded.owner, pid = excluded.pid, host = excluded.host,
			started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at`,
		l.RunID, l.Owner, l.PID, l.Host, now); err != nil {
		return err
	}
	return tx.Commit()
}

func runLock(ctx context.Context, tx *sql.Tx, runID string) (*RunLock, error) {
	l := RunLock{RunID: runID}
	var started, beat string
	err := tx.QueryRowContext(ctx, "SELECT owner, pid, host, started_at, heartbeat_at FROM run_locks WHERE run_id = $1", runID).
		Scan(&l.Owner, &l.PID, &l.Host, &started, &beat)
	if err != nil {
		return nil, err
	}
	l.StartedAt, l.HeartbeatAt = parseTime(started), parseTime(beat)
	return &l, nil
}

// RenewRunLock says the owner is still at work. ECONFLICT when the lock is
// no longer the owner's: another process took it over, believing this one
// gone, and this one must stop.
func (db *DB) RenewRunLock(ctx context.Context, runID, owner string) error {
	res, err := db.write.ExecContext(ctx, "UPDATE run_locks SET heartbeat_at = $1 WHERE run_id = $2 AND owner = $3",
		formatTime(db.Now()), runID, owner)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ringside.Errorf(ringside.ECONFLICT, "another process took over the run")
	}
	return nil
}

// UnlockRun lets go of the owner's lock; a lock that is not the owner's is
// left alone.
func (db *DB) UnlockRun(ctx context.Context, runID, owner string) error {
	_, err := db.write.ExecContext(ctx, "DELETE FROM run_locks WHERE run_id = $1 AND owner = $2", runID, owner)
	return err
}
