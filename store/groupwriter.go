package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"
)

// GroupWriter commits many small writes together (group commit). Judging
// writes a few rows per battle and per vote, from many judges at once; one
// transaction per write would make the single write connection the limit,
// while one transaction for everything queued costs about the same as one
// write. Each write runs inside its own savepoint, so one that fails leaves
// the others of its group untouched, and each caller is answered only after
// the group's COMMIT: an acknowledged write is durable.
//
// Writes are not delayed to form a group: a group is whatever queued while
// the previous one committed, so an idle server commits at once. Urgent
// writes (votes, which a judge waits for) go first into every group, ahead
// of the bookkeeping that nobody waits for; groups are kept small so that
// an urgent write waits for at most one group before its own.
type GroupWriter struct {
	db       *DB
	maxGroup int
	urgent   chan *groupOp
	ops      chan *groupOp
	quit     chan struct{}
	done     chan struct{}
	// catchUp asks the writer to finish a background checkpoint (catchUpWAL).
	catchUp chan struct{}
	close   sync.Once
	// stmts holds the writer's statements (groupQueries), prepared once on
	// the write connection: preparing them cost more than running them.
	stmts map[string]*sql.Stmt
	// checkpoints is a connection of its own that folds the write-ahead log
	// back into the database (see checkpointLoop).
	checkpoints *sql.DB
}

type groupOp struct {
	fn   func(ctx context.Context, tx *sql.Tx) error
	errc chan error
}

// ErrWriterClosed is returned for a write submitted after Close.
var ErrWriterClosed = errors.New("store: group writer closed")

// groupStatementTimeout bounds one group, so a wedged statement cannot hold
// every judge's vote forever.
const groupStatementTimeout = 30 * time.Second

// NewGroupWriter starts a group writer on db with at most maxGroup writes
// per transaction. Close it before closing db.
func (db *DB) NewGroupWriter(maxGroup int) *GroupWriter {
	if maxGroup < 1 {
		maxGroup = 1
	}
	g := &GroupWriter{db: db, maxGroup: maxGroup, ops: make(chan *groupOp, 4*maxGroup), urgent: make(chan *groupOp, 4*maxGroup),
		quit: make(chan struct{}), done: make(chan struct{}), catchUp: make(chan struct{}, 1), stmts: map[string]*sql.Stmt{}}
	// Prepared now, while no transaction holds the one write connection: a
	// statement prepared during a group would wait for that group forever.
	// One that fails to prepare simply runs unprepared.
	for _, q := range groupQueries {
		if st, err := db.write.Prepare(q); err == nil {
			g.stmts[q] = st
		}
	}
	g.startCheckpoints()
	go g.loop()
	return g
}

// Checkpoint settings while a GroupWriter runs. SQLite's automatic
// checkpoint runs inside a commit, on the writer's connection, and ends
// with an fsync of the log and one of the database: every judge's vote
// would wait for the disk, 25 to 80 ms under load. Instead a connection of
// its own checkpoints in the background (a PASSIVE checkpoint, which never
// blocks the writer), and the automatic one is pushed back to a safety net
// should the background one fall behind.
//
// A background checkpoint alone cannot keep the log short while writes go
// on: SQLite starts the log over only when a write begins with every frame
// already copied, and frames keep arriving while the background checkpoint
// runs, so the log grew until the safety net went off, about once a second
// when judging flat out. So after each background checkpoint the writer,
// between two groups, copies the few frames written meanwhile itself
// (catchUpWAL): its fsyncs have little left to flush, and its next write
// starts the log over. The log then holds about a second of writes.
const (
	checkpointEvery = time.Second
	// writerAutoCheckpoint is the safety net, in pages: about 200 MB of
	// log, nearly twice the 20,000 to 27,000 pages that a second of judging
	// flat out (3,900 votes/s) writes.
	writerAutoCheckpoint  = 50000
	defaultAutoCheckpoint = 1000 // SQLite's default
	// catchUpFrames is the log length, in pages, below which the writer
	// leaves starting it over to SQLite.
	catchUpFrames = 1000
)

func (g *GroupWriter) startCheckpoints() {
	cp, err := sql.Open("sqlite", dsn(g.db.Path, true))
	if err != nil {
		return // the automatic checkpoint stays as it was
	}
	cp.SetMaxOpenConns(1)
	if _, err := g.db.write.Exec(fmt.Sprintf("PRAGMA wal_autocheckpoint=%d", writerAutoCheckpoint)); err != nil {
		cp.Close()
		return
	}
	g.checkpoints = cp
	go func() {
		t := time.NewTicker(checkpointEvery)
		defer t.Stop()
		for {
			select {
			case <-g.done:
				return
			case <-t.C:
				// A busy database just means next time.
				var busy, logFrames, copied int
				err := cp.QueryRow("PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &logFrames, &copied)
				if err == nil && busy == 0 && logFrames >= catchUpFrames {
					select {
					case g.catchUp <- struct{}{}:
					default:
					}
				}
			}
		}
	}()
}

// catchUpWAL runs on the writer, between groups, after a background
// checkpoint: it copies what was written since, so that the next write
// starts the log over instead of growing it. It costs the writer about
// 12 ms once a second under load, against a stall of 25 to 80 ms for each
// automatic checkpoint. Failing (a reader still on an old snapshot) only
// means the log is started over after a later checkpoint.
func (g *GroupWriter) catchUpWAL() {
	_, _ = g.db.write.Exec("PRAGMA wal_checkpoint(PASSIVE)")
}

func (g *GroupWriter) stopCheckpoints() {
	if g.checkpoints == nil {
		return
	}
	g.checkpoints.Close()
	_, _ = g.db.write.Exec(fmt.Sprintf("PRAGMA wal_autocheckpoint=%d", defaultAutoCheckpoint))
}

// Do runs fn inside a shared transaction and returns its error, or the
// commit's. It returns only once the group is committed (or rolled back).
// fn must use only tx, and must not keep it; it may run twice (see commit),
// so it must set anything it reports afresh on each run. ctx bounds the wait to join a
// group; once fn is queued it runs, so that a caller who stops waiting can
// retry and find its write done rather than half-done.
func (g *GroupWriter) Do(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error {
	return g.do(ctx, g.ops, fn)
}

// DoUrgent is Do for a write someone is waiting for: it joins the next
// group ahead of the others.
func (g *GroupWriter) DoUrgent(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error {
	return g.do(ctx, g.urgent, fn)
}

func (g *GroupWriter) do(ctx context.Context, queue chan *groupOp, fn func(ctx context.Context, tx *sql.Tx) error) error {
	op := &groupOp{fn: fn, errc: make(chan error, 1)}
	select {
	case queue <- op:
	case <-g.quit:
		return ErrWriterClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	return <-op.errc
}

// Close stops accepting writes, commits what is queued and returns.
func (g *GroupWriter) Close() {
	g.close.Do(func() {
		close(g.quit)
		<-g.done
		g.stopCheckpoints()
	})
	<-g.done
}

func (g *GroupWriter) loop() {
	defer close(g.done)
	defer func() {
		for _, st := range g.stmts {
			st.Close()
		}
	}()
	for {
		var first *groupOp
		select {
		case first = <-g.urgent:
		case first = <-g.ops:
		case <-g.catchUp:
			g.catchUpWAL()
			continue
		case <-g.quit:
			// Writes that made it into a queue were promised a run.
			for {
				select {
				case op := <-g.urgent:
					g.commit([]*groupOp{op})
				case op := <-g.ops:
					g.commit([]*groupOp{op})
				default:
					return
				}
			}
		}
		group := append(make([]*groupOp, 0, g.maxGroup), first)
		group = g.take(group, g.urgent, g.maxGroup)
		// Few ordinary writes per group, so that a vote arriving now waits
		// for a short group ahead of it.
		group = g.take(group, g.ops, min(g.maxGroup, len(group)+maxOrdinary))
		g.commit(group)
	}
}

// maxOrdinary bounds the ordinary writes added to a group.
const maxOrdinary = 24

// take adds what is queued in q to the group, up to size.
func (g *GroupWriter) take(group []*groupOp, q chan *groupOp, size int) []*groupOp {
	for len(group) < size {
		select {
		case op := <-q:
			group = append(group, op)
		default:
			return group
		}
	}
	return group
}

// commit runs one group in one transaction and answers every caller. It
// first runs the writes one after another, which is all a group needs when
// none fails; when one fails, that attempt is rolled back and the group runs
// again with each write in a savepoint, so the failure undoes only its own
// writes. Savepoints cost a fifth of a write, and failures are rare.
func (g *GroupWriter) commit(group []*groupOp) {
	ctx, cancel := context.WithTimeout(context.Background(), groupStatementTimeout)
	defer cancel()
	errs := make([]error, len(group))
	err := g.run(ctx, group, errs, false)
	if errors.Is(err, errRetryCareful) {
		err = g.run(ctx, group, errs, true)
	}
	for i, op := range group {
		if err != nil {
			// Nothing of the group was kept, whatever each write returned.
			errs[i] = fmt.Errorf("store: commit: %w", err)
		}
		op.errc <- errs[i]
	}
}

// errRetryCareful stops a group's first attempt at the first failed write.
var errRetryCareful = errors.New("a write failed: run the group with savepoints")

// run runs the group in one transaction and commits it, filling errs.
func (g *GroupWriter) run(ctx context.Context, group []*groupOp, errs []error, careful bool) error {
	tx, err := g.db.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for i, op := range group {
		if !careful {
			if errs[i] = runWrite(ctx, tx, op.fn); errs[i] != nil {
				return errRetryCareful
			}
			continue
		}
		var broken error
		errs[i], broken = g.runInSavepoint(ctx, tx, op.fn)
		if broken != nil {
			// The savepoint could not be undone: the transaction may hold
			// half a write, so none of it is kept.
			return broken
		}
	}
	return tx.Commit()
}

// runWrite runs fn, turning a panic into its error, so one bad write cannot
// take the writer (and every judge's vote) down with it.
func runWrite(ctx context.Context, tx *sql.Tx, fn func(context.Context, *sql.Tx) error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("store: write panicked: %v", p)
		}
	}()
	return fn(ctx, tx)
}

// runInSavepoint runs fn so that its failure undoes only its own writes.
// It returns fn's error, and broken when the savepoint itself failed.
func (g *GroupWriter) runInSavepoint(ctx context.Context, tx *sql.Tx, fn func(context.Context, *sql.Tx) error) (err, broken error) {
	if _, err := g.exec(ctx, tx, qSavepoint); err != nil {
		return err, err
	}
	defer func() {
		if err != nil {
			if _, rerr := g.exec(ctx, tx, qRollbackTo); rerr != nil {
				broken = rerr
			}
		}
		if _, rerr := g.exec(ctx, tx, qRelease); rerr != nil && broken == nil {
			broken = rerr
		}
	}()
	return runWrite(ctx, tx, fn), nil
}

// exec runs query in tx, prepared when it is one of groupQueries.
func (g *GroupWriter) exec(ctx context.Context, tx *sql.Tx, query string, args ...any) (sql.Result, error) {
	if st, ok := g.stmts[query]; ok {
		return tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	return tx.ExecContext(ctx, query, args...)
}

// queryRow runs query in tx, prepared when it is one of groupQueries.
func (g *GroupWriter) queryRow(ctx context.Context, tx *sql.Tx, query string, args ...any) *sql.Row {
	if st, ok := g.stmts[query]; ok {
		return tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
	}
	return tx.QueryRowContext(ctx, query, args...)
}
