package server

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/store"
)

// Server-sent events tell open leaderboard and admin pages that the data
// changed, so they refresh without a reload. SSE rather than a websocket:
// it is one-way, reconnects by itself in every browser, and passes the CSP
// as a same-origin fetch.
const (
	// maxEventStreams bounds the open streams; each holds a goroutine and
	// a connection.
	maxEventStreams = 512
	// eventPoll is how often the database is looked at for changes made by
	// another process (`ringside judge`, `ringside run`), which the
	// in-process notifier cannot see.
	eventPoll = 3 * time.Second
	// eventKeepAlive keeps proxies from closing an idle stream.
	eventKeepAlive = 25 * time.Second
	// eventDebounce gathers a burst of votes into one refresh.
	eventDebounce = 250 * time.Millisecond
)

// events fans "data changed" out to every open stream. One goroutine
// watches the database for all of them, every eventPoll for writes by
// other processes and eventDebounce after a vote cast here, so the stamp is
// read once a look however many pages are open (counting a million votes
// is not free). Each stream gets the new stamp through a one-slot channel:
// updates coalesce, and a slow reader never holds up the others.
type events struct {
	stamp  func(context.Context) (store.Stamp, error)
	timers eventTimers
	nudges chan struct{}

	mu     sync.Mutex
	subs   map[chan store.Stamp]struct{}
	closed bool
	done   chan struct{}
}

// eventTimers is the watcher's clock: a tick for every look at writes by
// other processes, and the wait after a nudge. Tests drive both by hand.
type eventTimers struct {
	poll     <-chan time.Time
	debounce func() <-chan time.Time
	stop     func()
}

// realEventTimers ticks every poll and waits debounce after a nudge.
func realEventTimers(poll, debounce time.Duration) eventTimers {
	t := time.NewTicker(poll)
	return eventTimers{
		poll:     t.C,
		debounce: func() <-chan time.Time { return time.After(debounce) },
		stop:     t.Stop,
	}
}

// newEvents starts the watcher; it reads the stamp at every poll tick, and
// once the debounce wait after a nudge is over.
func newEvents(stamp func(context.Context) (store.Stamp, error), timers eventTimers) *events {
	e := &events{stamp: stamp, timers: timers, nudges: make(chan struct{}, 1),
		subs: map[chan store.Stamp]struct{}{}, done: make(chan struct{})}
	go e.watch()
	return e
}

// publish tells the watcher that this server changed the data.
func (e *events) publish() {
	select {
	case e.nudges <- struct{}{}:
	default:
	}
}

// watch reads the stamp when there is reason to, while a stream is open,
// and hands every stream a stamp that changed.
func (e *events) watch() {
	defer e.timers.stop()
	var last store.Stamp
	for {
		select {
		case <-e.done:
			return
		case <-e.timers.poll:
		case <-e.nudges:
			// Let the rest of a burst land before the pages refetch.
			select {
			case <-e.timers.debounce():
			case <-e.done:
				return
			}
		}
		if e.streams() == 0 {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), eventPoll)
		now, err := e.stamp(ctx)
		cancel()
		if err != nil || now == last {
			continue // a failed look is retried at the next one
		}
		last = now
		e.broadcast(now)
	}
}

func (e *events) streams() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.subs)
}

// broadcast replaces whatever stamp each stream has not read yet.
func (e *events) broadcast(s store.Stamp) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for ch := range e.subs {
		select {
		case <-ch:
		default:
		}
		select {
		case ch <- s:
		default:
		}
	}
}

func (e *events) subscribe() (chan store.Stamp, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, ringside.Errorf(ringside.ENOTFOUND, "server shutting down")
	}
	if len(e.subs) >= maxEventStreams {
		return nil, echo.NewHTTPError(http.StatusServiceUnavailable, "too many open event streams")
	}
	ch := make(chan store.Stamp, 1)
	e.subs[ch] = struct{}{}
	return ch, nil
}

func (e *events) unsubscribe(ch chan store.Stamp) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.subs, ch)
}

// close ends every stream and the watcher. http.Server.Shutdown waits for
// handlers to return, and a stream's handler would otherwise wait for its
// client.
func (e *events) close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.closed {
		e.closed = true
		close(e.done)
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
		case now := <-ch:
			if now == last {
				continue
			}
			last = now
			if !send("event: votes\ndata: {\"votes\":%d,\"generations\":%d}\n\n", now.Votes, now.Generations) {
				return nil
			}
		}
	}
}
