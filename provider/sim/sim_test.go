package sim_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/provider"
	"github.com/ringside-eval/ringside/provider/sim"
)

// clock is a fake clock that a sleep moves forward, so that streams run
// instantly while their pacing is still observable.
type clock struct {
	mu    sync.Mutex
	now   time.Time
	slept time.Duration
	calls int
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *clock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.slept += d
	c.calls++
	return ctx.Err()
}

func newSim(t testing.TB, name string, opts map[string]any) (*sim.Model, *clock) {
	t.Helper()
	c := &clock{now: time.Unix(1_700_000_000, 0)}
	s, err := sim.New(ringside.Model{Name: name, Provider: "sim", Options: opts}, provider.Options{Now: c.Now, Sleep: c.Sleep})
	if err != nil {
		t.Fatalf("sim.New: %v", err)
	}
	return s, c
}

type out struct {
	res    ringside.Result
	deltas []ringside.Delta
	err    error
}

func run(s *sim.Model, req ringside.Request) out {
	var o out
	o.res, o.err = s.Stream(context.Background(), req, func(d ringside.Delta) { o.deltas = append(o.deltas, d) })
	return o
}

func user(id, text string) ringside.Request {
	return ringside.Request{PromptID: id, Messages: []ringside.Message{{Role: "user", Content: text}}}
}

func TestDeterministic(t *testing.T) {
	req := user("p1", "How do I rotate log files in a Go service without losing lines?")
	a, _ := newSim(t, "sim-a", map[string]any{"seed": 42, "error_rate": 0.3})
	b, _ := newSim(t, "sim-b", map[string]any{"seed": 42, "error_rate": 0.3})
	x, y := run(a, req), run(b, req)
	if fmt.Sprint(x) != fmt.Sprint(y) {
		t.Fatalf("same seed, same request, different streams:\n%v\n%v", x, y)
	}
	// Different samples differ somewhere (text or timing).
	differ := false
	for k := 1; k < 5 && !differ; k++ {
		req.Sample = k
		differ = fmt.Sprint(run(a, req)) != fmt.Sprint(x)
	}
	if !differ {
		t.Errorf("samples 1..4 all equal sample 0")
	}
	// Temperature 0: every sample the same.
	zero := 0.0
	req.Params.Temperature = &zero
	req.Sample = 0
	first := fmt.Sprint(run(a, req))
	for k := 1; k < 4; k++ {
		req.Sample = k
		if got := fmt.Sprint(run(a, req)); got != first {
			t.Errorf("temperature 0, sample %d differs from sample 0", k)
		}
	}
}

func TestStreamPacing(t *testing.T) {
	s, c := newSim(t, "sim-pace", map[string]any{"ttft_ms": 500, "tokens_per_sec": 40, "speed": 4})
	o := run(s, user("p", "Explain what a hash map is."))
	if o.err != nil {
		t.Fatal(o.err)
	}
	if len(o.deltas) < 3 {
		t.Fatalf("%d deltas, want a stream", len(o.deltas))
	}
	var text strings.Builder
	for i, d := range o.deltas {
		text.WriteString(d.Text)
		if i > 0 && d.Elapsed < o.deltas[i-1].Elapsed {
			t.Errorf("delta %d goes back in time", i)
		}
	}
	if text.String() != o.res.Text || o.res.TTFT != o.deltas[0].Elapsed || o.res.Total < o.deltas[len(o.deltas)-1].Elapsed {
		t.Errorf("result %+v does not match its deltas", o.res)
	}
	// Timings are in profile time; the real waits are a quarter of them.
	if want := o.res.Total / 4; c.slept < want-time.Millisecond || c.slept > want+time.Millisecond {
		t.Errorf("slept %v, want about %v (Total %v at speed 4)", c.slept, want, o.res.Total)
	}
	if o.res.TokensOut == 0 || o.res.TokensIn == 0 || o.res.TokensEstimated || o.res.FinishReason != "stop" {
		t.Errorf("result %+v", o.res)
	}
}

func TestCancelAndTimeout(t *testing.T) {
	s, _ := newSim(t, "sim-c", map[string]any{"ttft_ms": 100, "tokens_per_sec": 20})
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	res, err := s.Stream(ctx, user("p", "Explain recursion with an example."), func(ringside.Delta) { n++; cancel() })
	if ringside.GenerationErrorKind(err) != ringside.ErrKindCancelled || n != 1 || res.Text == "" {
		t.Errorf("cancel: %d deltas, text %q, err %v", n, res.Text, err)
	}

	c := &clock{}
	slow, err := sim.New(ringside.Model{Name: "sim-slow", Provider: "sim", Timeout: 2 * time.Second,
		Options: map[string]any{"ttft_ms": 500, "tokens_per_sec": 5}}, provider.Options{Now: c.Now, Sleep: c.Sleep})
	if err != nil {
		t.Fatal(err)
	}
	o := run(slow, user("p", "Write a long essay about the history of bridges and tunnels."))
	if ringside.GenerationErrorKind(o.err) != ringside.ErrKindTimeout || o.res.Total != 2*time.Second || len(o.deltas) == 0 {
		t.Errorf("timeout: %d deltas, total %v, err %v", len(o.deltas), o.res.Total, o.err)
	}
}

func TestMaxTokensAndStop(t *testing.T) {
	s, _ := newSim(t, "sim-m", map[string]any{"refuse_benign": 0})
	req := user("p", "Explain how TCP congestion control works in detail.")
	req.Params.MaxTokens = 5
	o := run(s, req)
	if o.err != nil || o.res.FinishReason != "length" || o.res.TokensOut > 5 {
		t.Errorf("max_tokens 5: %+v, %v", o.res, o.err)
	}
	full := run(s, user("p", "Explain how TCP congestion control works in detail.")).res.Text
	stop := strings.Fields(full)[3]
	req.Params = ringside.Params{Stop: []string{stop}}
	o = run(s, req)
	if strings.Contains(o.res.Text, stop) || !strings.HasPrefix(full, o.res.Text) || o.res.FinishReason != "stop" {
		t.Errorf("stop %q: %q", stop, o.res.Text)
	}
}

func TestOptionErrors(t *testing.T) {
	for opts, want := range map[string]map[string]any{
		"options.corect":      {"corect": 0.5},
		"options.correct":     {"correct": 1.5},
		"options.ttft_ms":     {"ttft_ms": "fast"},
		"options.error_kinds": {"error_kinds": []any{"cancelled"}},
		"options.speed":       {"speed": 0},
		"options.self_name":   {"self_name": ""},
	} {
		_, err := sim.New(ringside.Model{Name: "sim-x", Provider: "sim", Options: want}, provider.Options{})
		if err == nil || !strings.Contains(err.Error(), opts) || !strings.Contains(err.Error(), `"sim-x"`) {
			t.Errorf("%v: err = %v, want one naming %s and the model", want, err, opts)
		}
	}
	// TOML gives int64, JSON float64: both are numbers.
	if _, err := sim.New(ringside.Model{Name: "sim-y", Provider: "sim", Options: map[string]any{"ttft_ms": int64(300), "seed": 7, "correct": 1}}, provider.Options{}); err != nil {
		t.Errorf("numeric types: %v", err)
	}
}

func TestSimulatedFailures(t *testing.T) {
	for _, kind := range []string{"rate_limit", "timeout", "server_error", "bad_response"} {
		t.Run(kind, func(t *testing.T) {
			c := &clock{}
			s, err := sim.New(ringside.Model{Name: "sim-fail", Provider: "sim", StallTimeout: 3 * time.Second,
				Options: map[string]any{"error_rate": 1, "error_kinds": kind}}, provider.Options{Now: c.Now, Sleep: c.Sleep})
			if err != nil {
				t.Fatal(err)
			}
			before, mid := 0, 0
			for i := range 40 {
				o := run(s, user(fmt.Sprint("f", i), "Explain how vaccines train the immune system, step by step."))
				var ge *ringside.GenerationError
				if !errors.As(o.err, &ge) || ge.Kind != kind {
					t.Fatalf("err = %v, want a %s GenerationError", o.err, kind)
				}
				if len(o.deltas) == 0 {
					before++
				} else {
					mid++
					if o.res.Text == "" || o.res.TTFT != o.deltas[0].Elapsed {
						t.Errorf("partial result %+v does not match its deltas", o.res)
					}
				}
				switch kind {
				case "rate_limit":
					if len(o.deltas) > 0 || ge.RetryAfter < time.Second || ge.RetryAfter > 5*time.Second {
						t.Errorf("rate limit after %d deltas, Retry-After %v", len(o.deltas), ge.RetryAfter)
					}
				case "timeout":
					last := time.Duration(0)
					if len(o.deltas) > 0 {
						last = o.deltas[len(o.deltas)-1].Elapsed
					}
					if o.res.Total-last != 3*time.Second {
						t.Errorf("stalled %v after the last delta, want the 3s stall timeout", o.res.Total-last)
					}
				}
			}
			if kind != "rate_limit" && (before == 0 || mid == 0) {
				t.Errorf("%d failures before the first delta, %d mid-stream; want both", before, mid)
			}
		})
	}
}
