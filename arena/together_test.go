package arena_test

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/arena"
)

// rendezvous is a Streamer for a side that records what it was sent and
// when, then waits until every side has started: run one after the other,
// the sides would never all arrive and the test would time out.
type rendezvous struct {
	mu      sync.Mutex
	started []time.Time
	reqs    []ringside.Request
	all     chan struct{}
	n       int
	delay   time.Duration
}

func (rv *rendezvous) side(delay time.Duration) ringside.Streamer {
	return streamerFunc(func(ctx context.Context, req ringside.Request, emit func(ringside.Delta)) (ringside.Result, error) {
		at := time.Now()
		rv.mu.Lock()
		rv.started = append(rv.started, at)
		rv.reqs = append(rv.reqs, req)
		if len(rv.started) == rv.n {
			close(rv.all)
		}
		rv.mu.Unlock()
		select {
		case <-rv.all:
		case <-time.After(10 * time.Second):
			return ringside.Result{}, &ringside.GenerationError{Kind: ringside.ErrKindTimeout, Err: context.DeadlineExceeded}
		}
		time.Sleep(delay)
		emit(ringside.Delta{Text: "x"})
		return ringside.Result{Text: "x"}, nil
	})
}

type streamerFunc func(ctx context.Context, req ringside.Request, emit func(ringside.Delta)) (ringside.Result, error)

func (f streamerFunc) Stream(ctx context.Context, req ringside.Request, emit func(ringside.Delta)) (ringside.Result, error) {
	return f(ctx, req, emit)
}

func TestRunPairStartsBothSidesTogetherOnIdenticalInput(t *testing.T) {
	req := ringside.Request{
		PromptID: "p1", Sample: 2, Reference: "ref",
		Messages: []ringside.Message{{Role: "system", Content: "Answer in JSON. «ünïcödé» \u00a0"}, {Role: "user", Content: "hi"}, {Role: "assistant", Content: "hello"}, {Role: "user", Content: "again"}},
	}
	temp := 0.2
	var skews []time.Duration
	for round := range 20 {
		rv := &rendezvous{all: make(chan struct{}), n: 2}
		var deltasA, deltasB int
		var doneOrder []string
		var mu sync.Mutex
		// Side a is slow: side b must end (and be reported) first.
		a := arena.Entry{Streamer: rv.side(30 * time.Millisecond), Params: ringside.Params{Temperature: &temp},
			OnDelta: func(ringside.Delta) { deltasA++ },
			OnDone:  func(arena.Outcome) { mu.Lock(); doneOrder = append(doneOrder, "a"); mu.Unlock() }}
		b := arena.Entry{Streamer: rv.side(0), Params: ringside.Params{MaxTokens: 50},
			OnDelta: func(ringside.Delta) { deltasB++ },
			OnDone:  func(arena.Outcome) { mu.Lock(); doneOrder = append(doneOrder, "b"); mu.Unlock() }}
		oa, ob := arena.RunPair(context.Background(), nil, req, a, b)
		if oa.Err != nil || ob.Err != nil {
			t.Fatalf("round %d: errors %v, %v (the sides did not run at once)", round, oa.Err, ob.Err)
		}
		if deltasA != 1 || deltasB != 1 {
			t.Fatalf("deltas a=%d b=%d, want one each", deltasA, deltasB)
		}
		if doneOrder[0] != "b" {
			t.Fatalf("the fast side was reported after the slow one: %v", doneOrder)
		}
		want, _ := json.Marshal(req.Messages)
		for i, r := range rv.reqs {
			got, _ := json.Marshal(r.Messages)
			if string(got) != string(want) {
				t.Fatalf("side %d was sent %s, want %s", i, got, want)
			}
			if r.PromptID != req.PromptID || r.Sample != req.Sample || r.Reference != req.Reference {
				t.Fatalf("side %d was sent %+v", i, r)
			}
		}
		// Each side gets its own parameters, and its own copy of the
		// messages: one side cannot change what the other reads.
		if (rv.reqs[0].Params.Temperature == nil) == (rv.reqs[1].Params.Temperature == nil) {
			t.Fatal("the sides' parameters were mixed up")
		}
		if &rv.reqs[0].Messages[0] == &rv.reqs[1].Messages[0] {
			t.Fatal("the sides share one messages slice")
		}
		skews = append(skews, rv.started[1].Sub(rv.started[0]))
		if d := ob.Started.Sub(oa.Started).Abs(); d > time.Second {
			t.Fatalf("outcomes report starts %v apart", d)
		}
	}
	// The median, not the maximum: on two shared cores under -race the OS
	// may preempt one side's thread now and then, which says nothing about
	// the code. Released by one barrier, the sides typically start some
	// microseconds apart.
	slices.Sort(skews)
	if med := skews[len(skews)/2]; med > 5*time.Millisecond {
		t.Fatalf("median start skew %v over %d rounds (all: %v)", med, len(skews), skews)
	}
	t.Logf("start skew: median %v, max %v", skews[len(skews)/2], skews[len(skews)-1])
}

func TestStartTogetherManySides(t *testing.T) {
	rv := &rendezvous{all: make(chan struct{}), n: 6}
	var entries []arena.Entry
	for range 6 {
		entries = append(entries, arena.Entry{Streamer: rv.side(0)})
	}
	for i, o := range arena.StartTogether(context.Background(), nil, ringside.Request{Messages: []ringside.Message{{Role: "user", Content: "q"}}}, entries) {
		if o.Err != nil || o.Result.Text != "x" {
			t.Fatalf("side %d: %+v", i, o)
		}
	}
}
