package server

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ringside-eval/ringside/store"
)

// TestEventsReadTheStampOnceForEveryStream checks the watcher shared by all
// open event streams: a burst of votes is one look at the database however
// many streams are open, every stream gets the new stamp, and nobody looks
// while no stream is open.
func TestEventsReadTheStampOnceForEveryStream(t *testing.T) {
	var votes, looks atomic.Int64
	e := newEvents(func(context.Context) (store.Stamp, error) {
		looks.Add(1)
		return store.Stamp{Votes: votes.Load()}, nil
	}, time.Hour, 20*time.Millisecond) // only nudges count here
	defer e.close()

	// Nobody watching: a nudge reads nothing.
	e.publish()
	time.Sleep(100 * time.Millisecond)
	if n := looks.Load(); n != 0 {
		t.Fatalf("%d looks with no stream open", n)
	}

	streams := make([]chan store.Stamp, 100)
	for i := range streams {
		ch, err := e.subscribe()
		if err != nil {
			t.Fatal(err)
		}
		streams[i] = ch
	}
	votes.Store(5)
	for range 50 { // a burst of votes cast here
		e.publish()
	}
	for i, ch := range streams {
		select {
		case s := <-ch:
			if s.Votes != 5 {
				t.Fatalf("stream %d got %+v", i, s)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("stream %d got nothing", i)
		}
	}
	// The burst lands in the first look, or at most a second one when a
	// nudge came in after the debounce.
	if n := looks.Load(); n < 1 || n > 2 {
		t.Fatalf("%d looks at the database for 100 streams and 50 votes, want 1 or 2", n)
	}

	// A slow stream that has not read an update gets the latest one only.
	votes.Store(6)
	e.publish()
	time.Sleep(100 * time.Millisecond)
	votes.Store(7)
	e.publish()
	time.Sleep(100 * time.Millisecond)
	if s := <-streams[0]; s.Votes != 7 {
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
