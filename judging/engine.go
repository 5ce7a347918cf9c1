// Package judging deals battles to human judges and records their votes:
// which battle a judge gets (live generations or stored battles), streaming
// both sides at the configured pace, resuming after a reconnection or a
// restart, and committing votes. It knows nothing of HTTP or websockets: a
// judge's connection is a Conn, which the server adapts to frames.
package judging

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/store"
	"golang.org/x/time/rate"
)

// Engine deals battles to judges and records their votes. It keeps one
// session per connected judge (and, for a while, per judge who dropped off
// in the middle of a battle), so that a judge who reconnects resumes the
// battle they were watching.
type Engine struct {
	db     *store.DB
	writes *store.GroupWriter
	cfg    config.Judging
	dims   []string
	logger *slog.Logger
	now    func() time.Time
	source battleSource
	// chat holds the candidates and guardrails of chat battles.
	chat *chatRules

	// ctx lives as long as the engine: live streams run under it, so that
	// they outlast the connection of the judge who asked for them.
	ctx    context.Context
	cancel context.CancelFunc
	// bg tracks every goroutine Close must wait for. Its lock is its own,
	// never held while taking another, so a pump can start work from
	// anywhere.
	bg struct {
		mu     sync.Mutex
		wg     sync.WaitGroup
		closed bool
	}

	mu       sync.Mutex
	sessions map[string]*session
	closed   bool

	// onVote is told of every vote committed, after it is durable (the
	// leaderboard's live updates).
	onVote func()

	// pairer chooses pairs under judging.pairing = "adaptive".
	pairer *pairer
	// prompts caches what stored battles show of their prompts.
	prompts promptCache
	// unshowable is set once a stored battle was passed over as one that
	// cannot be shown (logged the first time only).
	unshowable atomic.Bool
}

// Deps are what an Engine needs beyond the database and the config; the
// zero value of each field has a default.
type Deps struct {
	// Streamers are live judging's models, by configured model name.
	Streamers map[string]ringside.Streamer
	// Now is the clock (time.Now).
	Now func() time.Time
	// Rand draws prompts, pairs and stored battles (a random seed).
	Rand rand.Source
	// Logger gets server faults (discarded).
	Logger *slog.Logger
	// OnVote is told of every vote committed, after it is durable.
	OnVote func()
}

// battleSource deals a new battle to a judge: live generations or stored
// battles. A source with nothing to deal returns ENOTFOUND.
type battleSource interface {
	deal(ctx context.Context, judgeID string) (*deal, error)
}

// lockedRand is a random source shared by every session.
type lockedRand struct {
	mu sync.Mutex
	r  *rand.Rand
}

func (l *lockedRand) with(fn func(r *rand.Rand)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fn(l.r)
}

// New returns an engine on db, configured by cfg's models, prompt sets,
// dimensions and [judging]. Close it before closing db.
func New(db *store.DB, cfg *config.Config, d Deps) *Engine {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Rand == nil {
		d.Rand = rand.NewPCG(rand.Uint64(), rand.Uint64())
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	if d.OnVote == nil {
		d.OnVote = func() {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	e := &Engine{
		db: db, writes: db.NewGroupWriter(64), cfg: cfg.Judging, dims: cfg.Dimensions,
		logger: d.Logger, now: d.Now, ctx: ctx, cancel: cancel, sessions: map[string]*session{},
		onVote: d.OnVote, pairer: newPairer(db, cfg.Judging),
	}
	rnd := &lockedRand{r: rand.New(d.Rand)}
	e.chat = newChatRules(cfg, d.Streamers, rnd)
	e.source = newSourceMix(e, cfg, d.Streamers, rnd)
	e.source = withGold(e, e.source, rnd)
	return e
}

// background runs fn on a goroutine that Close waits for, and reports
// whether it did: after Close it does nothing.
func (e *Engine) background(fn func()) bool {
	e.bg.mu.Lock()
	defer e.bg.mu.Unlock()
	if e.bg.closed {
		return false
	}
	e.bg.wg.Add(1)
	go func() {
		defer e.bg.wg.Done()
		fn()
	}()
	return true
}

// Close closes every judge's connection (ShuttingDown), stops live streams
// and replays, waits for them, and flushes the vote writer. The database
// stays open: its owner closes it after. Callers of Attach's sessions must
// be done before.
func (e *Engine) Close() {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return
	}
	e.closed = true
	sessions := make([]*session, 0, len(e.sessions))
	for _, s := range e.sessions {
		sessions = append(sessions, s)
	}
	e.mu.Unlock()
	for _, s := range sessions {
		s.shutdown(ShuttingDown)
	}
	e.cancel()
	e.bg.mu.Lock()
	e.bg.closed = true
	e.bg.mu.Unlock()
	e.bg.wg.Wait()
	e.writes.Close()
}

// Revoke disconnects a judge whose invite was revoked.
func (e *Engine) Revoke(judgeID string) {
	e.mu.Lock()
	s := e.sessions[judgeID]
	delete(e.sessions, judgeID)
	e.mu.Unlock()
	if s != nil {
		s.shutdown(Revoked)
	}
}

// Attach makes c the judge's connection, replacing (and closing) an older
// one, and greets the judge with Hello. The judge's frames then go to the
// returned Attachment, until Detach. After Close it fails with
// EUNAUTHORIZED.
func (e *Engine) Attach(ctx context.Context, judge *ringside.Judge, anonymous bool, c Conn) (*Attachment, error) {
	var err error
	// A session may leave memory between lookup and attach (its resume
	// window ran out): look it up again.
	for range 3 {
		var s *session
		if s, err = e.session(judge, anonymous); err == nil {
			if err = s.attach(ctx, c); err == nil {
				return &Attachment{s: s, c: c}, nil
			}
		}
		if !errors.Is(err, errSessionDropped) {
			break
		}
	}
	return nil, err
}

// session returns the judge's session, creating it on first use.
func (e *Engine) session(judge *ringside.Judge, anonymous bool) (*session, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, ringside.Errorf(ringside.EUNAUTHORIZED, "server shutting down")
	}
	s := e.sessions[judge.ID]
	if s == nil {
		s = &session{e: e, judge: *judge, anonymous: anonymous}
		if anonymous {
			perMinute := e.cfg.Open.BattlesPerMinute
			s.dealLimiter = rate.NewLimiter(rate.Limit(perMinute/60), max(1, int(perMinute/4)))
		}
		e.sessions[judge.ID] = s
	}
	return s, nil
}

// forget drops a detached session whose resume window ran out.
func (e *Engine) forget(s *session) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.sessions[s.judge.ID] == s && s.idle() {
		delete(e.sessions, s.judge.ID)
		s.drop()
	}
}

// Attachment is one connection's hold on a judge's session: what the judge
// asks goes through it. Once another connection of the same judge
// attached, its methods do nothing.
type Attachment struct {
	s *session
	c Conn
}

// Next deals a battle: the one being shown, resumed from the start, or a
// new one, or Done when the quota is met or nothing is left.
func (a *Attachment) Next(ctx context.Context) { a.s.next(ctx, a.c) }

// Vote records a vote; Voted acknowledges it once committed.
func (a *Attachment) Vote(ctx context.Context, v *VoteRequest) { a.s.vote(ctx, a.c, v) }

// Skip closes the battle being shown unvoted and deals the next.
func (a *Attachment) Skip(ctx context.Context, battleID string) { a.s.skip(ctx, a.c, battleID) }

// Finish ends the session with Done.
func (a *Attachment) Finish(ctx context.Context) { a.s.finish(ctx, a.c) }

// Detach tells the engine the connection ended. The battle being shown
// goes on for the resume window, waiting for the judge to come back.
func (a *Attachment) Detach() { a.s.detach(a.c) }
