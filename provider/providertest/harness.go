package providertest

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/provider"
)

// sleeper records the waits a provider asks for and returns at once, so
// that retry scenarios take no wall time.
type sleeper struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (s *sleeper) Sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeper) got() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.waits...)
}

// setup is one scenario's fake server and the provider pointed at it.
type setup struct {
	fake   *fake
	sleep  *sleeper
	model  ringside.Model
	opts   provider.Options
	stream ringside.Streamer
}

const (
	backoffBase = 100 * time.Millisecond
	maxAttempts = 3
)

func newSetup(t *testing.T, w Wire, tm timings, env map[string]string, responses ...http.HandlerFunc) *setup {
	t.Helper()
	s := &setup{sleep: &sleeper{}}
	s.fake = newFake(t, responses...)
	if tm.timeout == 0 {
		tm.timeout = 10 * time.Second
	}
	if tm.stall == 0 {
		tm.stall = 5 * time.Second
	}
	if env == nil {
		env = map[string]string{w.KeyEnv: Key}
	}
	s.model = ringside.Model{
		Name:         "conformance-model",
		Provider:     w.Provider,
		ModelID:      "test-model-id",
		BaseURL:      w.BaseURL(s.fake.srv.URL),
		APIKeyEnv:    w.KeyEnv,
		Params:       Request.Params,
		Timeout:      tm.timeout,
		StallTimeout: tm.stall,
	}
	s.opts = provider.Options{
		HTTPClient:   s.fake.srv.Client(),
		Sleep:        s.sleep.Sleep,
		Rand:         func() float64 { return 0.5 },
		Getenv:       func(k string) string { return env[k] },
		MaxAttempts:  maxAttempts,
		BackoffBase:  backoffBase,
		BackoffMax:   time.Second,
		MaxRetryWait: time.Minute,
	}
	return s
}

func (s *setup) build(t *testing.T) {
	t.Helper()
	st, err := provider.New(s.model, s.opts)
	if err != nil {
		t.Fatalf("provider.New: %v", err)
	}
	s.stream = st
}

// outcome is what one Stream call produced.
type outcome struct {
	deltas []ringside.Delta
	res    ringside.Result
	err    error
	wall   time.Duration
}

func (s *setup) run(ctx context.Context, t *testing.T, onDelta func(ringside.Delta)) outcome {
	t.Helper()
	if s.stream == nil {
		s.build(t)
	}
	var o outcome
	start := time.Now()
	o.res, o.err = s.stream.Stream(ctx, Request, func(d ringside.Delta) {
		o.deltas = append(o.deltas, d)
		if onDelta != nil {
			onDelta(d)
		}
	})
	o.wall = time.Since(start)
	return o
}

func (o outcome) text() string {
	var b strings.Builder
	for _, d := range o.deltas {
		b.WriteString(d.Text)
	}
	return b.String()
}

// wantOK checks a complete, normal answer: every piece in order, as its own
// delta, with increasing timestamps, and the timings measured.
func (o outcome) wantOK(t *testing.T) {
	t.Helper()
	if o.err != nil {
		t.Fatalf("Stream: %v", o.err)
	}
	if len(o.deltas) != len(Pieces) {
		t.Fatalf("got %d deltas %q, want %d", len(o.deltas), o.text(), len(Pieces))
	}
	for i, d := range o.deltas {
		if d.Text != Pieces[i] {
			t.Errorf("delta %d = %q, want %q", i, d.Text, Pieces[i])
		}
		if i > 0 && d.Elapsed < o.deltas[i-1].Elapsed {
			t.Errorf("delta %d at %v, before delta %d at %v", i, d.Elapsed, i-1, o.deltas[i-1].Elapsed)
		}
	}
	if want := strings.Join(Pieces, ""); o.res.Text != want {
		t.Errorf("Result.Text = %q, want %q", o.res.Text, want)
	}
	if o.res.TTFT <= 0 || o.res.TTFT != o.deltas[0].Elapsed {
		t.Errorf("TTFT = %v, want the first delta's time %v (> 0)", o.res.TTFT, o.deltas[0].Elapsed)
	}
	if last := o.deltas[len(o.deltas)-1].Elapsed; o.res.Total < last {
		t.Errorf("Total = %v, before the last delta at %v", o.res.Total, last)
	}
}

// wantKind checks a failure's kind, and that its message holds each part.
func (o outcome) wantKind(t *testing.T, kind string, parts ...string) *ringside.GenerationError {
	t.Helper()
	var ge *ringside.GenerationError
	if !errors.As(o.err, &ge) {
		t.Fatalf("err = %v (%T), want a *ringside.GenerationError of kind %s", o.err, o.err, kind)
	}
	if ge.Kind != kind {
		t.Fatalf("kind = %s (%v), want %s", ge.Kind, ge, kind)
	}
	t.Logf("error: %v", ge)
	for _, p := range parts {
		if !strings.Contains(ge.Error(), p) {
			t.Errorf("error %q does not mention %q", ge.Error(), p)
		}
	}
	if strings.Contains(ge.Error(), Key) {
		t.Errorf("error %q contains the API key", ge.Error())
	}
	return ge
}

func (s *setup) wantAttempts(t *testing.T, n int) {
	t.Helper()
	if got := s.fake.attempts(); got != n {
		t.Errorf("server saw %d attempts, want %d", got, n)
	}
}

func (s *setup) wantWaits(t *testing.T, want ...time.Duration) {
	t.Helper()
	got := s.sleep.got()
	if len(got) != len(want) {
		t.Fatalf("waits = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("waits = %v, want %v", got, want)
		}
	}
}
