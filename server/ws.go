package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"time"

	"github.com/gorilla/websocket"
	"github.com/labstack/echo/v4"
	"github.com/ringside-eval/ringside"
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
	s.judging.serve(c.Response(), c.Request())
	return nil
}

// messageTimeout bounds the handling of one frame (a vote's commit).
const messageTimeout = 30 * time.Second

// serve upgrades the request and runs the connection until it ends.
func (j *Judging) serve(w http.ResponseWriter, r *http.Request) {
	if !j.enter() {
		http.Error(w, "shutting down", http.StatusServiceUnavailable)
		return
	}
	defer j.leave()
	judge, anonymous, authErr := j.authenticate(r)
	ws, err := j.upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader answered the request
	}
	c := newConn(ws, j)
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
	var s *session
	for range 3 {
		if s, err = j.session(judge, anonymous); err == nil {
			ctx, cancel := context.WithTimeout(j.ctx, messageTimeout)
			err = s.attach(ctx, c)
			cancel()
		}
		if !errors.Is(err, errSessionDropped) {
			break
		}
	}
	if err != nil {
		j.refuse(c, err)
		return
	}
	defer s.detach(c)
	j.readLoop(c, s)
}

// refuse tells a judge why it may not judge, and closes.
func (j *Judging) refuse(c *conn, err error) {
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
func (j *Judging) readLoop(c *conn, s *session) {
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
		var in inMsg
		if err := json.Unmarshal(data, &in); err != nil {
			c.enqueue(errorFrame(codeInvalid, "malformed frame: "+jsonProblem(err), ""))
			continue
		}
		ctx, cancel := context.WithTimeout(j.ctx, messageTimeout)
		j.dispatch(ctx, s, c, &in)
		cancel()
	}
}

func (j *Judging) dispatch(ctx context.Context, s *session, c *conn, in *inMsg) {
	switch in.Type {
	case frameNext:
		s.next(ctx, c)
	case frameVote:
		s.vote(ctx, c, in)
	case frameSkip:
		s.skip(ctx, c, in.BattleID)
	case frameFinish:
		s.finish(ctx, c)
	case "":
		c.enqueue(errorFrame(codeInvalid, "malformed frame: no type", in.BattleID))
	default:
		c.enqueue(errorFrame(codeInvalid, "unknown frame type (want vote, skip, next or finish)", in.BattleID))
	}
}

// jsonProblem says what is wrong with a frame without echoing it back.
func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return "field " + te.Field + " has the wrong type"
	}
	return "not a JSON object"
}

var errRateLimited = errors.New("rate limited")

// tokenRE is the shape of ringside.NewToken's tokens. Only such cookies can
// become anonymous judges, so junk cookies create nothing.
var tokenRE = regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`)

// authenticate finds the judge named by the request's token or cookie.
func (j *Judging) authenticate(r *http.Request) (*ringside.Judge, bool, error) {
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

// enter registers a connection that Close must wait for; false once closed.
func (j *Judging) enter() bool {
	j.bg.mu.Lock()
	defer j.bg.mu.Unlock()
	if j.bg.closed {
		return false
	}
	j.bg.wg.Add(1)
	return true
}

func (j *Judging) leave() { j.bg.wg.Done() }
