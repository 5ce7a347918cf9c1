package server

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ringside-eval/ringside/store"
)

// manualTimers is the watcher's clock driven by the test. Its channels are
// unbuffered, so a tick or a fire returns only once the watcher has taken
// it: the test always knows where the watcher is.
type manualTimers struct {
	t     *testing.T
	ticks chan time.Time
	waits chan chan time.Time // each debounce wait the watcher starts
	quit  chan struct{}
}

func newManualTimers(t *testing.T) *manualTimers {
	m := &manualTimers{t: t, ticks: make(chan time.Time), waits: make(chan chan time.Time), quit: make(chan struct{})}
	t.Cleanup(func() { close(m.quit) })
	return m
}

func (m *manualTimers) timers() eventTimers {
	return eventTimers{
		poll: m.ticks,
		debounce: func() <-chan time.Time {
			c := make(chan time.Time)
			select {
			case m.waits <- c:
			case <-m.quit:
			}
			return c
		},
		stop: func() {},
	}
}

// stuck bounds every hand-over, so a watcher that never gets there fails
// the test instead of hanging it; nothing waits for it to pass.
const stuck = 10 * time.Second

// tick is a poll tick; it returns once the watcher is back at its select,
// so everything the previous look started is finished.
func (m *manualTimers) tick() {
	m.t.Helper()
	select {
	case m.ticks <- time.Now():
	case <-time.After(stuck):
		m.t.Fatal("the watcher never came back for a poll tick")
	}
}

// fire ends the debounce wait the watcher is in or is about to start.
func (m *manualTimers) fire() {
	m.t.Helper()
	select {
	case c := <-m.waits:
		c <- time.Now()
	case <-time.After(stuck):
		m.t.Fatal("the watcher never waited for a debounce")
	}
}

// TestEventsDoNotLookWhileNoStreamIsOpen: with nobody watching, neither a
// nudge nor a poll reads the database.
func TestEventsDoNotLookWhileNoStreamIsOpen(t *testing.T) {
	var looks atomic.Int64
	clock := newManualTimers(t)
	e := newEvents(func(context.Context) (store.Stamp, error) {
		looks.Add(1)
		return store.Stamp{Votes: 1}, nil
	}, clock.timers())
	defer e.close()
	e.publish()
	clock.fire()
	// The second tick is taken only once the first one was dealt with.
	clock.tick()
	clock.tick()
	if n := looks.Load(); n != 0 {
		t.Fatalf("%d looks with no stream open", n)
	}
}

// TestEventsReadTheStampOnceForEveryStream checks the watcher shared by all
// open event streams: a poll or a burst of votes is one look at the
// database however many streams are open, every stream gets the new stamp,
// and a stream that does not keep up gets the latest stamp only.
func TestEventsReadTheStampOnceForEveryStream(t *testing.T) {
	var votes, looks atomic.Int64
	clock := newManualTimers(t)
	e := newEvents(func(context.Context) (store.Stamp, error) {
		looks.Add(1)
		return store.Stamp{Votes: votes.Load()}, nil
	}, clock.timers())
	defer e.close()

	streams := make([]chan store.Stamp, 100)
	for i := range streams {
		ch, err := e.subscribe()
		if err != nil {
			t.Fatal(err)
		}
		streams[i] = ch
	}
	// Every stream has its stamp only once the look that read it is over,
	// so the count of looks is settled when the last one has.
	everyStreamGets := func(want int64) {
		t.Helper()
		for i, ch := range streams {
			select {
			case s := <-ch:
				if s.Votes != want {
					t.Fatalf("stream %d got %+v, want %d votes", i, s, want)
				}
			case <-time.After(stuck):
				t.Fatalf("stream %d got nothing, want %d votes", i, want)
			}
		}
	}

	// A write by another process, with no nudge, is seen at the next poll.
	votes.Store(3)
	clock.tick()
	everyStreamGets(3)
	if n := looks.Load(); n != 1 {
		t.Fatalf("%d looks at the database for one poll tick, want 1", n)
	}

	votes.Store(5)
	for range 50 { // a burst of votes cast here
		e.publish()
	}
	clock.fire()
	everyStreamGets(5)
	// The rest of the burst is at most one nudge waiting for its own
	// debounce, which is never fired.
	if n := looks.Load(); n != 2 {
		t.Fatalf("%d looks at the database for 100 streams and 50 votes, want 1 more", n-1)
	}

	// A slow stream that has not read an update gets the latest one only.
	e.broadcast(store.Stamp{Votes: 6})
	e.broadcast(store.Stamp{Votes: 7})
	if s := latest(streams[0]); s.Votes != 7 {
		t.Fatalf("a slow stream read %+v, want the latest stamp (7 votes)", s)
	}

	// Closing ends the streams' wait.
	e.close()
	select {
	case <-e.done:
	default:
		t.Fatal("done still open after close")
	}
	if _, err := e.subscribe(); err == nil {
		t.Fatal("subscribed after close")
	}
}

// latest reads what a stream holds now; the zero stamp when it holds
// nothing.
func latest(ch chan store.Stamp) store.Stamp {
	select {
	case s := <-ch:
		return s
	default:
		return store.Stamp{}
	}
}
