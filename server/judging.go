package server

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"github.com/labstack/echo/v4/middleware"
	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/store"
	"golang.org/x/time/rate"
)

// Judging deals battles to human judges over websockets and records their
// votes. It keeps one session per connected judge (and, for a while, per
// judge who dropped off in the middle of a battle), so that a judge who
// reconnects resumes the battle they were watching.
type Judging struct {
	db     *store.DB
	writes *store.GroupWriter
	cfg    config.Judging
	dims   []string
	logger *slog.Logger
	now    func() time.Time
	source battleSource

	upgrader  websocket.Upgrader
	ipLimiter ipLimiter

	// ctx lives as long as the server: live streams run under it, so that
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
	conns    map[*conn]struct{}
	closed   bool

	// onVote is told of every vote committed, after it is durable (the
	// leaderboard's live updates).
	onVote func()
}

// ipLimiter limits anonymous judges per client address, with echo's
// rate-limiter store.
type ipLimiter struct {
	store *middleware.RateLimiterMemoryStore
}

func (l ipLimiter) allow(r *http.Request) bool {
	ok, _ := l.store.Allow(clientIP(r))
	return ok
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

func newJudging(db *store.DB, cfg *config.Config, o *options, logger *slog.Logger) *Judging {
	ctx, cancel := context.WithCancel(context.Background())
	jc := cfg.Judging
	j := &Judging{
		db: db, writes: db.NewGroupWriter(64), cfg: jc, dims: cfg.Dimensions,
		logger: logger, now: o.now, ctx: ctx, cancel: cancel, sessions: map[string]*session{},
		upgrader: websocket.Upgrader{
			ReadBufferSize: 1024, WriteBufferSize: 1024,
			// Judges mostly receive; a shared pool keeps an idle judge's
			// memory to its read buffer.
			WriteBufferPool:  &sync.Pool{},
			HandshakeTimeout: 10 * time.Second,
		},
		ipLimiter: ipLimiter{middleware.NewRateLimiterMemoryStoreWithConfig(middleware.RateLimiterMemoryStoreConfig{
			Rate: rate.Limit(jc.Open.IPPerMinute / 60), Burst: jc.Open.IPBurst, ExpiresIn: 5 * time.Minute,
		})},
		conns: map[*conn]struct{}{},
	}
	rnd := &lockedRand{r: rand.New(o.rand)}
	if jc.Source == config.SourceStored {
		j.source = &storedSource{j: j, rand: rnd}
	} else {
		j.source = newLiveSource(j, cfg, o.streamers, rnd)
	}
	return j
}

// background runs fn on a goroutine that Close waits for, and reports
// whether it did: after Close it does nothing.
func (j *Judging) background(fn func()) bool {
	j.bg.mu.Lock()
	defer j.bg.mu.Unlock()
	if j.bg.closed {
		return false
	}
	j.bg.wg.Add(1)
	go func() {
		defer j.bg.wg.Done()
		fn()
	}()
	return true
}

// Close disconnects every judge (close code 1001), stops live streams and
// replays, waits for them, and flushes the vote writer. The database stays
// open: its owner closes it after.
func (j *Judging) Close() {
	j.mu.Lock()
	if j.closed {
		j.mu.Unlock()
		return
	}
	j.closed = true
	sessions := make([]*session, 0, len(j.sessions))
	for _, s := range j.sessions {
		sessions = append(sessions, s)
	}
	for c := range j.conns {
		c.close(websocket.CloseGoingAway, "server shutting down")
	}
	j.mu.Unlock()
	for _, s := range sessions {
		s.shutdown(websocket.CloseGoingAway, "server shutting down")
	}
	j.cancel()
	j.bg.mu.Lock()
	j.bg.closed = true
	j.bg.mu.Unlock()
	j.bg.wg.Wait()
	j.writes.Close()
}

// Revoke disconnects a judge whose invite was revoked.
func (j *Judging) Revoke(judgeID string) {
	j.mu.Lock()
	s := j.sessions[judgeID]
	delete(j.sessions, judgeID)
	j.mu.Unlock()
	if s != nil {
		s.shutdown(closeUnauthorized, "invite revoked")
	}
}

// track registers a connection until it ends, so Close can close it.
func (j *Judging) track(c *conn) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		c.close(websocket.CloseGoingAway, "server shutting down")
		return
	}
	j.conns[c] = struct{}{}
}

func (j *Judging) untrack(c *conn) {
	j.mu.Lock()
	defer j.mu.Unlock()
	delete(j.conns, c)
}

// session returns the judge's session, creating it on first use.
func (j *Judging) session(judge *ringside.Judge, anonymous bool) (*session, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return nil, ringside.Errorf(ringside.EUNAUTHORIZED, "server shutting down")
	}
	s := j.sessions[judge.ID]
	if s == nil {
		s = &session{j: j, judge: *judge, anonymous: anonymous}
		if anonymous {
			s.dealLimiter = rate.NewLimiter(rate.Limit(j.cfg.Open.BattlesPerMinute/60), max(1, int(j.cfg.Open.BattlesPerMinute/4)))
		}
		j.sessions[judge.ID] = s
	}
	return s, nil
}

// forget drops a detached session whose resume window ran out.
func (j *Judging) forget(s *session) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.sessions[s.judge.ID] == s && s.idle() {
		delete(j.sessions, s.judge.ID)
		s.drop()
	}
}

// clientIP is the address of the peer, never a header a client can forge:
// limits per address must not be dodged with X-Forwarded-For.
func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// Connections reports how many judges' websockets are open.
func (j *Judging) Connections() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.conns)
}
