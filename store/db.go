// Package store keeps ringside's data in SQLite (modernc.org/sqlite, pure Go):
// embedded numbered migrations, one writer connection beside a pool of
// readers, and every method taking a context.
package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/ringside-eval/ringside"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// DB is an open ringside database. Writes go through one connection, so
// SQLite never answers SQLITE_BUSY between our own writers; reads use a pool
// and, thanks to WAL, never wait for the writer.
type DB struct {
	Path string
	// Now is the clock; tests replace it.
	Now func() time.Time

	write *sql.DB
	read  *sql.DB
	stmts readStmts
}

// Open opens (creating if needed) the database file at path and applies any
// migrations it has not seen.
func Open(ctx context.Context, path string) (*DB, error) {
	if path == "" {
		return nil, ringside.FieldError("db", "no database path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	db := &DB{Path: abs, Now: time.Now}
	if db.write, err = sql.Open("sqlite", dsn(abs, true)); err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	db.write.SetMaxOpenConns(1)
	// The writer connection never closes while the DB is open: an idle
	// close would drop the WAL's shared memory and cost a re-open.
	db.write.SetConnMaxIdleTime(0)
	if err := db.migrate(ctx); err != nil {
		db.write.Close()
		return nil, fmt.Errorf("store: %s: %w", path, err)
	}
	if db.read, err = sql.Open("sqlite", dsn(abs, false)); err != nil {
		db.write.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	readers := max(4, runtime.NumCPU())
	db.read.SetMaxOpenConns(readers)
	// Every reader stays open: one closed when idle (database/sql keeps
	// two by default) is opened again on the next burst, with its pragmas
	// and its prepared statements (readStmts) all over again.
	db.read.SetMaxIdleConns(readers)
	return db, nil
}

// dsn builds the connection string. busy_timeout comes first so that every
// later pragma already waits rather than failing on a locked file.
func dsn(path string, writer bool) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "foreign_keys(ON)")
	q.Add("_pragma", "synchronous(NORMAL)")
	if writer {
		// BEGIN IMMEDIATE takes the write lock up front, so a transaction
		// never fails half-way on a lock upgrade.
		q.Add("_txlock", "immediate")
	} else {
		q.Add("_pragma", "query_only(ON)")
	}
	return "file:" + path + "?" + q.Encode()
}

// Close closes both pools. It is safe to call more than once.
func (db *DB) Close() error {
	var errs []error
	if db.read != nil {
		db.closeStmts()
		errs = append(errs, db.read.Close())
		db.read = nil
	}
	if db.write != nil {
		// Fold the WAL back into the main file so the database is one file
		// again after a clean shutdown.
		_, _ = db.write.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
		errs = append(errs, db.write.Close())
		db.write = nil
	}
	for _, err := range errs {
		if err != nil {
			return fmt.Errorf("store: close: %w", err)
		}
	}
	return nil
}

// Ping checks that both pools answer; /healthz uses it.
func (db *DB) Ping(ctx context.Context) error {
	if db.write == nil || db.read == nil {
		return ringside.Errorf(ringside.EINTERNAL, "database closed")
	}
	var one int
	if err := db.read.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		return fmt.Errorf("store: ping: %w", err)
	}
	return db.write.PingContext(ctx)
}

// migrate applies every embedded migration not yet recorded, each in its own
// transaction together with its record and its Go step if it has one
// (goSteps), so a failed migration leaves the database at the previous
// version.
func (db *DB) migrate(ctx context.Context) error {
	if _, err := db.write.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL) STRICT`); err != nil {
		return fmt.Errorf("create schema_migrations: %w", err)
	}
	names, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, name := range names {
		version, err := migrationVersion(name)
		if err != nil {
			return err
		}
		if err := db.applyMigration(ctx, version, name); err != nil {
			return fmt.Errorf("migration %s: %w", filepath.Base(name), err)
		}
	}
	return nil
}

func migrationVersion(name string) (int, error) {
	base := filepath.Base(name)
	n, err := strconv.Atoi(strings.SplitN(base, "_", 2)[0])
	if err != nil {
		return 0, fmt.Errorf("migration %s: name must start with a number", base)
	}
	return n, nil
}

func (db *DB) applyMigration(ctx context.Context, version int, name string) error {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()

	var n int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM schema_migrations WHERE version = $1", version).Scan(&n); err != nil {
		return err
	} else if n > 0 {
		return nil
	}
	body, err := migrationFS.ReadFile(name)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, string(body)); err != nil {
		return err
	}
	if step := goSteps[version]; step != nil {
		if err := step(ctx, tx); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)",
		version, filepath.Base(name), formatTime(db.Now())); err != nil {
		return err
	}
	return tx.Commit()
}

// MigrationVersions returns the versions applied, in order.
func (db *DB) MigrationVersions(ctx context.Context) ([]int, error) {
	rows, err := db.read.QueryContext(ctx, "SELECT version FROM schema_migrations ORDER BY version")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// newID returns a time-ordered UUID (v7), so ids sort by creation.
func newID() string {
	return uuid.Must(uuid.NewV7()).String()
}

// Times are stored as RFC 3339 text with nanoseconds in UTC: readable in the
// sqlite3 shell and sortable as text.
func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func parseTime(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}
