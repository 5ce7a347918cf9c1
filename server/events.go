package server

import (
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/ringside-eval/ringside"
)

// Server-sent events tell open leaderboard and admin pages that the data
// changed, so they refresh without a reload. SSE rather than a websocket:
// it is one-way, reconnects by itself in every browser, and passes the CSP
// as a same-origin fetch.
const (
	// maxEventStreams bounds the open streams; each holds a goroutine and
	// a connection.
	maxEventStreams = 512
	// eventPoll is how often a stream looks at the database for changes
	// made by another process (`ringside judge`, `ringside run`), which the
	// in-process notifier cannot see.
	eventPoll = 3 * time.Second
	// eventKeepAlive keeps proxies from closing an idle stream.
	eventKeepAlive = 25 * time.Second
	// eventDebounce gathers a burst of votes into one refresh.
	eventDebounce = 250 * time.Millisecond
)

// events fans a "data changed" nudge out to every open stream. Each stream
// has a one-slot channel, so nudges coalesce and publishing never blocks on
// a slow reader.
type events struct {
	mu     sync.Mutex
	subs   map[chan struct{}]struct{}
	closed bool
	done   chan struct{}
}

func newEvents() *events {
	return &events{subs: map[chan struct{}]struct{}{}, done: make(chan struct{})}
}

// publish nudges every stream.
func (e *events) publish() {
	e.mu.Lock()
	defer e.mu.Unlock()
	for ch := range e.subs {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

func (e *events) subscribe() (chan struct{}, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, ringside.Errorf(ringside.ENOTFOUND, "server shutting down")
	}
	if len(e.subs) >= maxEventStreams {
		return nil, echo.NewHTTPError(http.StatusServiceUnavailable, "too many open event streams")
	}
	ch := make(chan struct{}, 1)
	e.subs[ch] = struct{}{}
	return ch, nil
}

func (e *events) unsubscribe(ch chan struct{}) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.subs, ch)
}

// close ends every stream. http.Server.Shutdown waits for handlers to
// return, and a stream's handler would otherwise wait for its client.
func (e *events) close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.closed {
		e.closed = true
		close(e.done)
	}
}

// voteCommitted is called by the judging sessions after a vote is durable.
func (j *Judging) voteCommitted() {
	if j.onVote != nil {
		j.onVote()
	}
}

func (s *Server) registerEventRoutes(g *echo.Group) {
	g.GET("/events", s.handleEvents)
}

// handleEvents is GET /api/events: a text/event-stream that sends
// "event: votes" with data {"votes": N} whenever the votes or generations
// change (at once for votes cast on this server, within a few seconds for
// writes by other processes), and a comment every 25 s to keep it open.
func (s *Server) handleEvents(c echo.Context) error {
	ch, err := s.events.subscribe()
	if err != nil {
		return err
	}
	defer s.events.unsubscribe(ch)
	ctx := c.Request().Context()
	last, err := s.DB.DataStamp(ctx)
	if err != nil {
		return err
	}
	w := c.Response()
	h := w.Header()
	h.Set(echo.HeaderContentType, "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w.Writer)
	send := func(format string, args ...any) bool {
		// A client that stops reading must not hold the handler forever.
		_ = rc.SetWriteDeadline(time.Now().Add(10 * time.Second))
		if _, err := fmt.Fprintf(w, format, args...); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	if !send("retry: 2000\nevent: hello\ndata: {\"votes\":%d}\n\n", last.Votes) {
		return nil
	}
	poll := time.NewTicker(eventPoll)
	defer poll.Stop()
	keep := time.NewTicker(eventKeepAlive)
	defer keep.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-s.events.done:
			return nil
		case <-keep.C:
			if !send(": keep-alive\n\n") {
				return nil
			}
			continue
		case <-ch:
			// Let the rest of a burst land before the pages refetch.
			select {
			case <-time.After(eventDebounce):
			case <-ctx.Done():
				return nil
			}
		case <-poll.C:
		}
		now, err := s.DB.DataStamp(ctx)
		if err != nil {
			return nil // the client reconnects and tries again
		}
		if now == last {
			continue
		}
		last = now
		if !send("event: votes\ndata: {\"votes\":%d,\"generations\":%d}\n\n", now.Votes, now.Generations) {
			return nil
		}
	}
}
