package arena

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/ringside-eval/ringside"
)

// Entry is one side of a simultaneous start: a model's Streamer, its
// generation parameters, and what to do with its output.
type Entry struct {
	Streamer ringside.Streamer
	Params   ringside.Params
	// OnDelta receives the side's deltas in order, from the side's own
	// goroutine (so the sides never wait for each other). May be nil.
	OnDelta func(ringside.Delta)
	// OnDone is called from the side's goroutine as soon as the side ends,
	// before StartTogether returns, so a caller can store one side while
	// the other still streams. May be nil.
	OnDone func(Outcome)
}

// Outcome is how one side ended.
type Outcome struct {
	Result ringside.Result
	Err    error
	// Started is when the side was released from the start barrier;
	// Ended when its stream returned. Both come from the injected clock.
	Started, Ended time.Time
}

// StartTogether streams req to every entry at once and returns their
// outcomes in entry order when all have ended. Each side gets its own copy
// of req's messages, byte for byte the same, with its entry's Params. The
// sides are released by one barrier once every goroutine is ready, so their
// requests leave within scheduling noise of each other (microseconds, which
// the tests check) rather than one goroutine-start apart; then a slow side
// never holds up a fast one. now is the clock (nil means time.Now).
func StartTogether(ctx context.Context, now func() time.Time, req ringside.Request, entries []Entry) []Outcome {
	if now == nil {
		now = time.Now
	}
	out := make([]Outcome, len(entries))
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	ready.Add(len(entries))
	done.Add(len(entries))
	for i, e := range entries {
		// Everything a side needs is built before the barrier, so that
		// releasing it costs only a channel close.
		sideReq := req
		sideReq.Messages = slices.Clone(req.Messages)
		sideReq.Params = e.Params
		emit := e.OnDelta
		if emit == nil {
			emit = func(ringside.Delta) {}
		}
		go func() {
			defer done.Done()
			ready.Done()
			<-start
			o := Outcome{Started: now()}
			o.Result, o.Err = e.Streamer.Stream(ctx, sideReq, emit)
			o.Ended = now()
			out[i] = o
			if e.OnDone != nil {
				e.OnDone(o)
			}
		}()
	}
	ready.Wait()
	close(start)
	done.Wait()
	return out
}

// RunPair streams req to sides a and b at the same moment, as a live battle
// needs, and returns how each ended.
func RunPair(ctx context.Context, now func() time.Time, req ringside.Request, a, b Entry) (Outcome, Outcome) {
	o := StartTogether(ctx, now, req, []Entry{a, b})
	return o[0], o[1]
}
