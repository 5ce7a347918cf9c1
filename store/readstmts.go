package store

import (
	"context"
	"database/sql"
	"sync"
)

// readStmts holds the read statements that every deal runs, each prepared
// once on the read pool (and by database/sql on each of its connections as
// it is first used there). Parsing and planning them again on every deal
// cost more than running them: 40 % of the server's CPU when judging
// stored battles flat out. Only constant query texts go in, so the map
// stays as small as the code that uses it.
type readStmts struct {
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

// prepared returns query prepared on the read pool; nil when it cannot be
// prepared, and the caller runs it unprepared.
func (db *DB) prepared(ctx context.Context, query string) *sql.Stmt {
	db.stmts.mu.Lock()
	defer db.stmts.mu.Unlock()
	if st, ok := db.stmts.m[query]; ok {
		return st
	}
	st, err := db.read.PrepareContext(ctx, query)
	if err != nil {
		return nil
	}
	if db.stmts.m == nil {
		db.stmts.m = map[string]*sql.Stmt{}
	}
	db.stmts.m[query] = st
	return st
}

// queryHot is db.read.QueryContext for a query run on every deal.
func (db *DB) queryHot(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := db.prepared(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return db.read.QueryContext(ctx, query, args...)
}

// queryRowHot is db.read.QueryRowContext for a query run on every deal.
func (db *DB) queryRowHot(ctx context.Context, query string, args ...any) *sql.Row {
	if st := db.prepared(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return db.read.QueryRowContext(ctx, query, args...)
}

// closeStmts closes the prepared statements, before their pool closes.
func (db *DB) closeStmts() {
	db.stmts.mu.Lock()
	defer db.stmts.mu.Unlock()
	for _, st := range db.stmts.m {
		st.Close()
	}
	db.stmts.m = nil
}
