package server

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/judging"
	"github.com/ringside-eval/ringside/store"
	"golang.org/x/time/rate"
)

func (s *Server) registerJudgeRoutes(e *echo.Echo) {
	e.GET("/ws/judge", s.handleJudgeSocket)
}

// handleJudgeSocket is GET /ws/judge: the judges' websocket
// (docs/protocol.md). The judge is named by ?token= or the judge cookie;
// with open judging, a cookie the server does not know yet becomes an
// anonymous judge. A refused judge still gets a websocket, carrying an
// error frame and close code 4001, because a browser cannot read the
// status of a refused handshake.
func (s *Server) handleJudgeSocket(c echo.Context) error {
	s.sockets.serve(c.Response(), c.Request())
	return nil
}

// messageTimeout bounds the handling of one frame (a vote's commit).
const messageTimeout = 30 * time.Second

// judgeSockets is the websocket side of judging: it upgrades and
// authenticates, reads the judges' frames and hands them to the engine,
// whose messages go back through each connection (judgeconn.go).
type judgeSockets struct {
	engine *judging.Engine
	db     *store.DB
	cfg    config.Judging
	logger *slog.Logger

	upgrader  websocket.Upgrader
	ipLimiter ipLimiter

	// ctx bounds the handling of frames; Close cancels it.
	ctx    context.Context
	cancel context.CancelFunc
	// wg tracks the connections' handlers, which Close waits for.
	wg sync.WaitGroup

	mu     sync.Mutex
	conns  map[*conn]struct{}
	closed bool
	// untracked, when set, is told after a connection ended (tests).
	untracked func()
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

func newJudgeSockets(engine *judging.Engine, db *store.DB, jc config.Judging, logger *slog.Logger) *judgeSockets {
	ctx, cancel := context.WithCancel(context.Background())
	return &judgeSockets{
		engine: engine, db: db, cfg: jc, logger: logger, ctx: ctx, cancel: cancel,
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
}

// close closes every connection (1001), cancels the frames being handled
// and waits for the handlers to end, so that the engine can close after.
func (j *judgeSockets) close() {
	j.mu.Lock()
	if j.closed {
		j.mu.Unlock()
		return
	}
	j.closed = true
	for c := range j.conns {
		c.close(websocket.CloseGoingAway, "server shutting down")
	}
	j.mu.Unlock()
	j.cancel()
	j.wg.Wait()
}

// enter registers a handler that close must wait for; false once closed.
func (j *judgeSockets) enter() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return false
	}
	j.wg.Add(1)
	return true
}

// track registers a connection until it ends, so close can close it.
func (j *judgeSockets) track(c *conn) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		c.close(websocket.CloseGoingAway, "server shutting down")
		return
	}
	j.conns[c] = struct{}{}
}

func (j *judgeSockets) untrack(c *conn) {
	j.mu.Lock()
	delete(j.conns, c)
	hook := j.untracked
	j.mu.Unlock()
	if hook != nil {
		hook()
	}
}

// connections reports how many judges' websockets are open.
func (j *judgeSockets) connections() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.conns)
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

// serve upgrades the request and runs the connection until it ends.
func (j *judgeSockets) serve(w http.ResponseWriter, r *http.Request) {
	if !j.enter() {
		http.Error(w, "shutting down", http.StatusServiceUnavailable)
		return
	}
	defer j.wg.Done()
	judge, anonymous, authErr := j.authenticate(r)
	ws, err := j.upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader answered the request
	}
	c := newConn(ws, j.cfg)
	j.track(c)
	defer j.untrack(c)
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		c.writeLoop()
	}()
	defer func() {
		c.closeSilently()
		<-wrote
	}()
	c.prepare()
	if authErr != nil {
		j.refuse(c, authErr)
		return
	}
	ctx, cancel := context.WithTimeout(j.ctx, messageTimeout)
	a, err := j.engine.Attach(ctx, judge, anonymous, c)
	cancel()
	if err != nil {
		j.refuse(c, err)
		return
	}
	defer a.Detach()
	j.readLoop(c, a)
}

// refuse tells a judge why it may not judge, and closes.
func (j *judgeSockets) refuse(c *conn, err error) {
	code := ringside.ErrorCode(err)
	switch {
	case errors.Is(err, errRateLimited):
		c.enqueue(errorFrame(codeRateLimited, "too many connections from your address; try again later", ""))
		c.close(websocket.CloseTryAgainLater, "rate limited")
	case code == ringside.EUNAUTHORIZED:
		c.enqueue(errorFrame(codeUnauthorized, ringside.ErrorMessage(err), ""))
		c.close(closeUnauthorized, "unauthorized")
	default:
		if code == ringside.EINTERNAL {
			j.logger.Error("judge connection", "err", err)
		}
		c.enqueue(errorFrame(code, ringside.ErrorMessage(err), ""))
		c.close(websocket.CloseInternalServerErr, "try again")
	}
	// Wait for the judge to read it and close, or for the deadline.
	for {
		if _, _, err := c.read(); err != nil && !errors.Is(err, errTooLarge) {
			return
		}
	}
}

// readLoop reads the judge's frames until the connection ends. Frames are
// handled one at a time, in order: a vote is acknowledged before the next
// frame is read.
func (j *judgeSockets) readLoop(c *conn, a *judging.Attachment) {
	for {
		mt, data, err := c.read()
		switch {
		case errors.Is(err, errTooLarge):
			c.enqueue(errorFrame(codeTooLarge, "frame too large; it was dropped", ""))
			continue
		case errors.Is(err, websocket.ErrReadLimit):
			// Above the hard limit: gorilla has sent close 1009 without
			// reading the frame. The rest of it is discarded for a moment
			// before closing, since closing a socket with unread data
			// resets it, and the judge might lose the close frame (and so
			// the reason) with it.
			c.linger(time.Second)
			return
		case err != nil:
			// Gone, or silent past the pong deadline.
			return
		case !c.limiter.Allow():
			c.enqueue(errorFrame(codeRateLimited, "too many frames; this one was dropped", ""))
			continue
		case mt != websocket.TextMessage:
			c.enqueue(errorFrame(codeInvalid, "frames must be JSON text", ""))
			continue
		}
		in, err := decodeFrame(data)
		if err != nil {
			c.enqueue(errorFrame(codeInvalid, "malformed frame: "+ringside.ErrorMessage(err), in.BattleID))
			continue
		}
		ctx, cancel := context.WithTimeout(j.ctx, messageTimeout)
		j.dispatch(ctx, a, c, &in)
		cancel()
	}
}

func (j *judgeSockets) dispatch(ctx context.Context, a *judging.Attachment, c *conn, in *inMsg) {
	switch in.Type {
	case frameNext:
		a.Next(ctx)
	case frameVote:
		a.Vote(ctx, &judging.VoteRequest{BattleID: in.BattleID, Winner: in.Winner, Dimensions: in.Dimensions, Reason: in.Reason, Correction: in.Correction})
	case frameSkip:
		a.Skip(ctx, in.BattleID)
	case frameFinish:
		a.Finish(ctx)
	case frameAsk:
		a.Ask(ctx, in.Text)
	case frameFollowUp:
		a.FollowUp(ctx, in.BattleID, in.Text)
	case frameSuggest:
		a.Suggest(ctx)
	}
	// decodeFrame refused a frame without a known type before this.
}

var errRateLimited = errors.New("rate limited")

// tokenRE is the shape of ringside.NewToken's tokens. Only such cookies can
// become anonymous judges, so junk cookies create nothing.
var tokenRE = regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`)

// authenticate finds the judge named by the request's token or cookie.
func (j *judgeSockets) authenticate(r *http.Request) (*ringside.Judge, bool, error) {
	ctx, cancel := context.WithTimeout(r.Context(), messageTimeout)
	defer cancel()
	token, fromCookie := r.URL.Query().Get("token"), false
	if token == "" {
		if ck, err := r.Cookie(judgeCookie); err == nil {
			token, fromCookie = ck.Value, true
		}
	}
	if token == "" {
		return nil, false, ringside.Errorf(ringside.EUNAUTHORIZED, "an invite link is needed to judge")
	}
	open := j.cfg.Open.Enabled
	hash := ringside.HashToken(token)
	judge, err := j.db.JudgeByToken(ctx, hash)
	if err == nil {
		anonymous, err := j.db.IsAnonymousJudge(ctx, judge.ID)
		switch {
		case err != nil:
			return nil, false, err
		case anonymous && !open:
			return nil, false, ringside.Errorf(ringside.EUNAUTHORIZED, "open judging is closed; an invite link is needed")
		case anonymous && !j.ipLimiter.allow(r):
			return nil, false, errRateLimited
		}
		return judge, anonymous, nil
	}
	if ringside.ErrorCode(err) != ringside.EUNAUTHORIZED || !open || !fromCookie || !tokenRE.MatchString(token) {
		return nil, false, err
	}
	if !j.ipLimiter.allow(r) {
		return nil, false, errRateLimited
	}
	// A revoked anonymous judge stays revoked: creating it again collides
	// with its token and returns the refusal.
	judge, err = j.db.CreateAnonymousJudge(ctx, hash, j.cfg.Open.Quota)
	return judge, true, err
}
