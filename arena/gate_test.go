package arena_test

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/arena"
)

// fakeClock is virtual time: After moves the clock forward by d and fires
// at once, so waits cost nothing and their lengths can be read off Now.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	c.t = c.t.Add(d)
	now := c.t
	c.mu.Unlock()
	ch := make(chan time.Time, 1)
	ch <- now
	return ch
}

// blocks reports whether Acquire(models) is still waiting after a moment.
func blocks(g *arena.Gate, models ...string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	got, err := g.Acquire(ctx, models)
	if err == nil {
		for _, m := range got {
			g.Release(m, nil)
		}
	}
	return err != nil
}

func mustAcquire(t *testing.T, g *arena.Gate, models ...string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	got, err := g.Acquire(ctx, models)
	if err != nil {
		t.Fatalf("Acquire(%v): %v", models, err)
	}
	return got
}

func TestGateLimits(t *testing.T) {
	g := arena.NewGate(arena.GateOptions{Global: 3, PerModel: map[string]int{"a": 1}})
	mustAcquire(t, g, "a", "b")
	if !blocks(g, "a", "c") {
		t.Fatal("a second request for a (limit 1) was admitted")
	}
	mustAcquire(t, g, "c")
	if !blocks(g, "d") {
		t.Fatal("a fourth request in flight was admitted (global limit 3)")
	}
	g.Release("a", nil)
	g.Release("b", nil)
	if got := mustAcquire(t, g, "a", "d"); !reflect.DeepEqual(got, []string{"a", "d"}) {
		t.Fatalf("admitted %v", got)
	}
	g.Release("a", nil)
	g.Release("c", nil)
	g.Release("d", nil)

	// A round larger than the global limit runs alone rather than never.
	small := arena.NewGate(arena.GateOptions{Global: 2})
	if got := mustAcquire(t, small, "a", "b", "c"); len(got) != 3 {
		t.Fatalf("admitted %v", got)
	}
	if !blocks(small, "d") {
		t.Fatal("admitted more beside an oversized round")
	}
}

func TestGateBreakerBacksOffAndGivesUp(t *testing.T) {
	clock := newFakeClock()
	var notices []arena.Notice
	g := arena.NewGate(arena.GateOptions{
		Global: 10, Now: clock.Now, After: clock.After,
		Breaker:  arena.Breaker{Threshold: 3, BaseDelay: time.Second, MaxDelay: 4 * time.Second, GiveUpAfter: 8},
		OnNotice: func(n arena.Notice) { notices = append(notices, n) },
	})
	boom := &ringside.GenerationError{Kind: ringside.ErrKindServer, Err: errors.New("500")}

	// Three requests in flight fail together: the third trips the breaker.
	mustAcquire(t, g, "a")
	mustAcquire(t, g, "a")
	mustAcquire(t, g, "a")
	for range 3 {
		g.Release("a", boom)
	}
	if len(notices) != 1 || notices[0].Pause != time.Second || notices[0].Failures != 3 {
		t.Fatalf("notices after 3 failures = %+v, want one pause of 1s", notices)
	}
	// Another model is not held up; a waits out its pause.
	start := clock.Now()
	mustAcquire(t, g, "b")
	if clock.Now() != start {
		t.Fatal("b waited for a's pause")
	}
	g.Release("b", nil)
	mustAcquire(t, g, "a")
	if waited := clock.Now().Sub(start); waited != time.Second {
		t.Fatalf("a was admitted after %v, want after its 1s pause", waited)
	}
	// Half-open: while the probe is in flight, a gets nothing more.
	if !blocks(g, "a") {
		t.Fatal("a second request went to a model being probed")
	}
	// Each failed probe doubles the pause, up to the maximum.
	var pauses []time.Duration
	for range 4 {
		g.Release("a", boom)
		pauses = append(pauses, notices[len(notices)-1].Pause)
		mustAcquire(t, g, "a")
	}
	if want := []time.Duration{2 * time.Second, 4 * time.Second, 4 * time.Second, 4 * time.Second}; !reflect.DeepEqual(pauses, want) {
		t.Fatalf("pauses %v, want %v", pauses, want)
	}
	// The eighth consecutive failure benches a: it is left out from now on.
	g.Release("a", boom)
	if n := notices[len(notices)-1]; !n.Benched || n.Failures != 8 {
		t.Fatalf("last notice %+v, want a benched after 8 failures", n)
	}
	if got := mustAcquire(t, g, "a", "b"); !reflect.DeepEqual(got, []string{"b"}) {
		t.Fatalf("admitted %v, want only b", got)
	}
	g.Release("b", nil)
	if got := g.Benched(); !reflect.DeepEqual(got, []string{"a"}) {
		t.Fatalf("Benched() = %v", got)
	}
}

func TestGateBreakerClosesOnSuccessAndHonoursRetryAfter(t *testing.T) {
	clock := newFakeClock()
	var notices []arena.Notice
	g := arena.NewGate(arena.GateOptions{
		Global: 10, Now: clock.Now, After: clock.After,
		Breaker:  arena.Breaker{Threshold: 2, BaseDelay: time.Second},
		OnNotice: func(n arena.Notice) { notices = append(notices, n) },
	})
	boom := &ringside.GenerationError{Kind: ringside.ErrKindServer, Err: errors.New("500")}
	mustAcquire(t, g, "a")
	g.Release("a", boom)
	mustAcquire(t, g, "a")
	g.Release("a", nil) // a success forgets the failure before it
	mustAcquire(t, g, "a")
	g.Release("a", boom)
	if len(notices) != 0 {
		t.Fatalf("paused after failures separated by a success: %+v", notices)
	}
	// Cancellations are the caller's doing and are not held against a model.
	for range 3 {
		mustAcquire(t, g, "a")
		g.Release("a", context.Canceled)
	}
	if len(notices) != 0 {
		t.Fatalf("paused after cancellations: %+v", notices)
	}
	// A server's Retry-After pauses the model at once, however long.
	mustAcquire(t, g, "b")
	g.Release("b", &ringside.GenerationError{Kind: ringside.ErrKindRateLimit, RetryAfter: 90 * time.Second, Err: errors.New("429")})
	if len(notices) != 1 || notices[0].Model != "b" || notices[0].Pause != 90*time.Second {
		t.Fatalf("notices %+v, want b paused 90s", notices)
	}
	start := clock.Now()
	mustAcquire(t, g, "b")
	if waited := clock.Now().Sub(start); waited != 90*time.Second {
		t.Fatalf("b was admitted after %v, want 90s", waited)
	}
}
