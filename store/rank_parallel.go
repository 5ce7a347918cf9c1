package store

import (
	"context"
	"runtime"
)

// rankSpan is the number of vote rowids one range query reads: enough to
// amortise a query, small enough that a few ranges in flight stay a few
// megabytes.
const rankSpan = 1 << 15

// rankChunk is one range of votes, read by a worker and handed on in order.
type rankChunk struct {
	lo, hi int64
	votes  []RankVote
	err    error
	done   chan struct{}
}

// eachRankVoteParallel streams every vote in rowid order, reading ranges
// of rowids on up to min(GOMAXPROCS, 4) read connections at once while the caller
// consumes the previous ones: reading a million votes is SQLite's work on
// a join, and it spreads over the cores like the battle file's decoding.
//
// Each range is read in its own snapshot. Votes are appended, never
// updated, and the ranges stop at the largest rowid when reading began, so
// votes cast meanwhile are left out rather than half in.
func (db *DB) eachRankVoteParallel(ctx context.Context, rq *rankQuery, f RankFilter, span int64, fn func(*RankVote) error) error {
	var lo, hi int64
	var n int
	if err := db.read.QueryRowContext(ctx, `SELECT coalesce(min(rowid), 0), coalesce(max(rowid), -1), count(*) FROM votes
		WHERE rowid > $1 AND ($2 = 0 OR rowid <= $2)`, f.After, f.Through).
		Scan(&lo, &hi, &n); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	workers := min(runtime.GOMAXPROCS(0), 4)
	q := rq.cols + ` FROM votes v JOIN battles b ON b.id = v.battle_id JOIN judges j ON j.id = v.judge_id ` + rq.joins + `
		WHERE v.rowid BETWEEN $1 AND $2 ORDER BY v.rowid`
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan *rankChunk, workers)
	order := make(chan *rankChunk, 2*workers)
	go func() {
		defer close(order)
		defer close(jobs)
		for start := lo; start <= hi; start += span {
			c := &rankChunk{lo: start, hi: min(start+span-1, hi), done: make(chan struct{})}
			select {
			case order <- c:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- c:
			case <-ctx.Done():
				close(c.done)
				return
			}
		}
	}()
	for w := 0; w < workers; w++ {
		go func() {
			in := newInterner() // one per worker: the interner is not shared
			for c := range jobs {
				c.err = db.readRankChunk(ctx, rq, q, in, c)
				close(c.done)
			}
		}()
	}
	var err error
	for c := range order {
		<-c.done
		if err == nil {
			err = c.err
		}
		for i := 0; err == nil && i < len(c.votes); i++ {
			err = fn(&c.votes[i])
		}
		if err != nil {
			cancel() // the producer stops; the chunks in flight are drained
		}
	}
	return err
}

// readRankChunk reads one range of votes into its chunk.
func (db *DB) readRankChunk(ctx context.Context, rq *rankQuery, q string, in *interner, c *rankChunk) error {
	rows, err := db.read.QueryContext(ctx, q, c.lo, c.hi)
	if err != nil {
		return err
	}
	defer rows.Close()
	return rq.scan(rows, in, func(v *RankVote) error {
		c.votes = append(c.votes, *v)
		return nil
	})
}
