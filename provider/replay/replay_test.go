package replay_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/provider"
	"github.com/ringside-eval/ringside/provider/replay"
)

// clock is a fake clock moved forward by sleeps.
type clock struct {
	mu    sync.Mutex
	now   time.Time
	waits []time.Duration
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *clock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.waits = append(c.waits, d)
	return ctx.Err()
}

func (c *clock) slept() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	var t time.Duration
	for _, w := range c.waits {
		t += w
	}
	return t
}

const file = `{"prompt_id": "refund-001", "model": "gpt-x", "sample": 0, "output": "We have refunded your duplicate charge of $89.99; it will appear within five business days. Sorry for the trouble!", "ttft_ms": 400, "latency_ms": 2400, "tokens_in": 120, "tokens_out": 25, "finish_reason": "stop", "extra": {"ignored": true}}
{"prompt_id": "refund-001", "model": "gpt-x", "sample": 1, "output": "Refund issued.", "ttft_ms": 300, "latency_ms": 500}

{"prompt_id": "refund-001", "model": "other", "sample": 0, "output": "Not mine.", "ttft_ms": 1, "latency_ms": 2}
{"prompt_id": "broken-002", "model": "gpt-x", "output": "Partial ans", "ttft_ms": 200, "latency_ms": 900, "error_kind": "server_error", "error": "HTTP 500 from upstream"}
`

func write(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "outputs.jsonl")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func newReplay(t *testing.T, opts map[string]any) (*replay.Replay, *clock) {
	t.Helper()
	c := &clock{now: time.Unix(0, 0)}
	m := ringside.Model{Name: "gpt-x", Provider: "replay", Options: opts}
	st, err := provider.New(m, provider.Options{Now: c.Now, Sleep: c.Sleep})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return st.(*replay.Replay), c
}

func req(id string, sample int) ringside.Request {
	return ringside.Request{PromptID: id, Sample: sample, Messages: []ringside.Message{{Role: "user", Content: "I was charged twice."}}}
}

type out struct {
	res    ringside.Result
	deltas []ringside.Delta
	err    error
}

func stream(r *replay.Replay, q ringside.Request) out {
	var o out
	o.res, o.err = r.Stream(context.Background(), q, func(d ringside.Delta) { o.deltas = append(o.deltas, d) })
	return o
}

func TestReplayTiming(t *testing.T) {
	r, c := newReplay(t, map[string]any{"file": write(t, file)})
	o := stream(r, req("refund-001", 0))
	if o.err != nil {
		t.Fatal(o.err)
	}
	want := "We have refunded your duplicate charge of $89.99; it will appear within five business days. Sorry for the trouble!"
	var text strings.Builder
	for i, d := range o.deltas {
		text.WriteString(d.Text)
		if i > 0 && d.Elapsed <= o.deltas[i-1].Elapsed {
			t.Errorf("delta %d at %v, not after %v", i, d.Elapsed, o.deltas[i-1].Elapsed)
		}
	}
	if text.String() != want || o.res.Text != want {
		t.Errorf("text %q", text.String())
	}
	if len(o.deltas) < 3 || len(o.deltas) > 8 {
		t.Errorf("%d deltas, want a few", len(o.deltas))
	}
	if o.deltas[0].Elapsed != 400*time.Millisecond || o.deltas[len(o.deltas)-1].Elapsed != 2400*time.Millisecond {
		t.Errorf("first delta at %v, last at %v; want the recorded 400ms and 2400ms", o.deltas[0].Elapsed, o.deltas[len(o.deltas)-1].Elapsed)
	}
	if o.res.TTFT != 400*time.Millisecond || o.res.Total != 2400*time.Millisecond {
		t.Errorf("TTFT %v, total %v", o.res.TTFT, o.res.Total)
	}
	if c.slept() != 2400*time.Millisecond {
		t.Errorf("slept %v, want the recorded 2.4s", c.slept())
	}
	if o.res.TokensIn != 120 || o.res.TokensOut != 25 || o.res.TokensEstimated || o.res.FinishReason != "stop" {
		t.Errorf("result %+v", o.res)
	}
	for _, d := range o.deltas[:len(o.deltas)-1] {
		if !strings.HasSuffix(d.Text, " ") {
			t.Errorf("delta %q breaks a word", d.Text)
		}
	}
}

func TestReplayInstantAndSpeed(t *testing.T) {
	path := write(t, file)
	r, c := newReplay(t, map[string]any{"file": path, "instant": true})
	o := stream(r, req("refund-001", 0))
	if o.err != nil || len(c.waits) != 0 || o.res.TTFT != 400*time.Millisecond {
		t.Errorf("instant: err %v, waits %v, TTFT %v", o.err, c.waits, o.res.TTFT)
	}
	r, c = newReplay(t, map[string]any{"file": path, "speed": 4})
	if o = stream(r, req("refund-001", 0)); o.err != nil || c.slept() != 600*time.Millisecond || o.res.Total != 2400*time.Millisecond {
		t.Errorf("speed 4: err %v, slept %v, total %v", o.err, c.slept(), o.res.Total)
	}
}

func TestReplayKeys(t *testing.T) {
	path := write(t, file)
	r, _ := newReplay(t, map[string]any{"file": path})
	// Missing counts are estimated and marked so.
	o := stream(r, req("refund-001", 1))
	if o.err != nil || o.res.Text != "Refund issued." || !o.res.TokensEstimated || o.res.TokensOut != 4 {
		t.Errorf("sample 1: %+v, %v", o.res, o.err)
	}
	o = stream(r, req("refund-001", 7))
	if ringside.GenerationErrorKind(o.err) != ringside.ErrKindBadResponse ||
		!strings.Contains(o.err.Error(), `"refund-001" sample 7`) || !strings.Contains(o.err.Error(), "gpt-x") {
		t.Errorf("missing sample: %v", o.err)
	}
	// Options["model"] reads another model's lines.
	other, _ := newReplay(t, map[string]any{"file": path, "model": "other"})
	if o = stream(other, req("refund-001", 0)); o.res.Text != "Not mine." {
		t.Errorf("model option: %q, %v", o.res.Text, o.err)
	}
}

func TestReplayRecordedFailure(t *testing.T) {
	r, _ := newReplay(t, map[string]any{"file": write(t, file)})
	o := stream(r, req("broken-002", 0))
	if ringside.GenerationErrorKind(o.err) != ringside.ErrKindServer || !strings.Contains(o.err.Error(), "HTTP 500 from upstream") {
		t.Fatalf("err = %v", o.err)
	}
	if o.res.Text != "Partial ans" || o.res.Total != 900*time.Millisecond {
		t.Errorf("partial result %+v", o.res)
	}
}

func TestReplayCancel(t *testing.T) {
	r, _ := newReplay(t, map[string]any{"file": write(t, file)})
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	_, err := r.Stream(ctx, req("refund-001", 0), func(ringside.Delta) { n++; cancel() })
	if ringside.GenerationErrorKind(err) != ringside.ErrKindCancelled || n != 1 {
		t.Errorf("%d deltas, err %v", n, err)
	}
}

func TestReplayLoadErrors(t *testing.T) {
	tests := []struct {
		name, content, want string
	}{
		{"not json", "{\"prompt_id\": \"a\", \"model\": \"gpt-x\"}\nnot json\n", ":2: line: not a JSON object"},
		{"missing prompt_id", `{"model": "gpt-x"}`, ":1: prompt_id: required"},
		{"missing model", `{"prompt_id": "a"}`, ":1: model: required"},
		{"wrong type", `{"prompt_id": "a", "model": "gpt-x", "ttft_ms": "fast"}`, ":1: ttft_ms: want a float64"},
		{"negative sample", `{"prompt_id": "a", "model": "gpt-x", "sample": -1}`, ":1: sample: must not be negative"},
		{"latency before ttft", `{"prompt_id": "a", "model": "gpt-x", "ttft_ms": 900, "latency_ms": 100}`, ":1: latency_ms: 100 is less than ttft_ms 900"},
		{"unknown error kind", `{"prompt_id": "a", "model": "gpt-x", "error_kind": "oops"}`, ":1: error_kind:"},
		{"duplicate key", "{\"prompt_id\": \"a\", \"model\": \"gpt-x\"}\n{\"prompt_id\": \"a\", \"model\": \"gpt-x\", \"sample\": 0}\n", ":2: prompt \"a\" sample 0 of model \"gpt-x\" is also on line 1"},
		{"broken line of another model", "{\"prompt_id\": \"a\", \"model\": \"gpt-x\"}\n{\"prompt_id\": \"b\", \"model\": \"other\", \"tokens_out\": -2}\n", ":2: tokens_out: must not be negative"},
		{"no line for the model", `{"prompt_id": "a", "model": "other"}`, `has no line for model "gpt-x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := write(t, tt.content)
			_, err := provider.New(ringside.Model{Name: "gpt-x", Provider: "replay", Options: map[string]any{"file": path}}, provider.Options{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
			if !strings.Contains(err.Error(), path) && tt.name != "no line for the model" {
				t.Errorf("err = %v, want it to name the file", err)
			}
		})
	}
	for opts, want := range map[string]map[string]any{
		"options.file: model \"gpt-x\": required": {},
		"options.file":    {"file": filepath.Join(t.TempDir(), "missing.jsonl")},
		"options.speed":   {"file": "x", "speed": -1},
		"options.instant": {"file": "x", "instant": "yes"},
		"options.fiel":    {"fiel": "x"},
	} {
		_, err := provider.New(ringside.Model{Name: "gpt-x", Provider: "replay", Options: want}, provider.Options{})
		if err == nil || !strings.Contains(err.Error(), opts) {
			t.Errorf("%v: err = %v, want %q", want, err, opts)
		}
	}
}
