package providertest

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/provider"
)

type scenario struct {
	name string
	run  func(t *testing.T, w Wire)
}

var usage = &Usage{In: 31, Out: 9}

// scenarios are the conformance cases, each independent of the others.
var scenarios = []scenario{
	{"normal stream split across reads", func(t *testing.T, w Wire) {
		s := newSetup(t, w, timings{}, nil, sse(w.stream(usage)...))
		o := s.run(context.Background(), t, nil)
		o.wantOK(t)
		if o.res.TokensIn != usage.In || o.res.TokensOut != usage.Out || o.res.TokensEstimated {
			t.Errorf("tokens = %d in, %d out, estimated %v; want %d, %d, false",
				o.res.TokensIn, o.res.TokensOut, o.res.TokensEstimated, usage.In, usage.Out)
		}
		if o.res.FinishReason != w.WantFinish {
			t.Errorf("finish reason = %q, want %q", o.res.FinishReason, w.WantFinish)
		}
		s.wantAttempts(t, 1)
		s.wantWaits(t)
		r := s.fake.request(0)
		if r.method != http.MethodPost || r.path != w.Path {
			t.Errorf("request = %s %s, want POST %s", r.method, r.path, w.Path)
		}
		if ct := r.header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type = %q", ct)
		}
		if strings.Contains(string(r.body), Request.Reference) {
			t.Errorf("the reference answer was sent: %s", r.body)
		}
		w.CheckRequest(t, r.header, r.body, Key)
	}},

	{"crlf line ends and keep-alives", func(t *testing.T, w Wire) {
		var ev []string
		for _, e := range w.stream(usage) {
			ev = append(ev, w.KeepAlive, e)
		}
		s := newSetup(t, w, timings{}, nil, sse(crlf(ev)...))
		s.run(context.Background(), t, nil).wantOK(t)
	}},

	{"no usage is estimated", func(t *testing.T, w Wire) {
		s := newSetup(t, w, timings{}, nil, sse(w.stream(nil)...))
		o := s.run(context.Background(), t, nil)
		o.wantOK(t)
		want := (utf8.RuneCountInString(strings.Join(Pieces, "")) + 3) / 4
		if !o.res.TokensEstimated || o.res.TokensOut != want || o.res.TokensIn <= 0 {
			t.Errorf("tokens = %d in, %d out, estimated %v; want >0, %d, true",
				o.res.TokensIn, o.res.TokensOut, o.res.TokensEstimated, want)
		}
	}},

	{"api_key_env names the key variable", func(t *testing.T, w Wire) {
		s := newSetup(t, w, timings{}, map[string]string{"RINGSIDE_TEST_KEY": "sk-own-key"}, sse(w.stream(usage)...))
		s.model.APIKeyEnv = "RINGSIDE_TEST_KEY"
		s.run(context.Background(), t, nil).wantOK(t)
		r := s.fake.request(0)
		w.CheckRequest(t, r.header, r.body, "sk-own-key")
	}},

	{"missing key names model and variable", func(t *testing.T, w Wire) {
		s := newSetup(t, w, timings{}, map[string]string{}, sse(w.stream(usage)...))
		s.model.APIKeyEnv = "RINGSIDE_TEST_KEY"
		_, err := provider.New(s.model, s.opts)
		if err == nil || !strings.Contains(err.Error(), "RINGSIDE_TEST_KEY") || !strings.Contains(err.Error(), s.model.Name) {
			t.Fatalf("err = %v, want one naming the model and RINGSIDE_TEST_KEY", err)
		}
		if ringside.ErrorCode(err) != ringside.EINVALID {
			t.Errorf("code = %s, want %s", ringside.ErrorCode(err), ringside.EINVALID)
		}
	}},

	{"400 is a bad response, not retried", func(t *testing.T, w Wire) {
		s := newSetup(t, w, timings{}, nil, status(400, w.ErrorBody(400, "max_tokens is too large")))
		o := s.run(context.Background(), t, nil)
		o.wantKind(t, ringside.ErrKindBadResponse, "400", "max_tokens is too large")
		s.wantAttempts(t, 1)
		s.wantWaits(t)
	}},

	{"401 is an auth failure naming the key variable and the endpoint, not retried", func(t *testing.T, w Wire) {
		s := newSetup(t, w, timings{}, nil, status(401, w.ErrorBody(401, "invalid api key")))
		o := s.run(context.Background(), t, nil)
		o.wantKind(t, ringside.ErrKindAuth, "401", "invalid api key", "$"+w.KeyEnv, s.fake.srv.URL)
		s.wantAttempts(t, 1)
	}},

	{"403 is an auth failure, not retried", func(t *testing.T, w Wire) {
		s := newSetup(t, w, timings{}, nil, status(403, w.ErrorBody(403, "model not allowed for this key")))
		o := s.run(context.Background(), t, nil)
		o.wantKind(t, ringside.ErrKindAuth, "403", "model not allowed", "$"+w.KeyEnv)
		s.wantAttempts(t, 1)
	}},

	{"a server nobody listens at is unreachable, after the retries", func(t *testing.T, w Wire) {
		s := newSetup(t, w, timings{}, nil)
		url := s.fake.srv.URL
		s.fake.srv.Close() // the port is now closed: connection refused
		o := s.run(context.Background(), t, nil)
		o.wantKind(t, ringside.ErrKindUnreachable, "cannot reach", url)
		if got := len(s.sleep.got()); got != maxAttempts-1 {
			t.Errorf("waited %d times between attempts, want %d", got, maxAttempts-1)
		}
	}},

	{"error body that is not JSON", func(t *testing.T, w Wire) {
		s := newSetup(t, w, timings{}, nil, func(rw http.ResponseWriter, r *http.Request) {
			rw.Header().Set("Content-Type", "text/html")
			rw.WriteHeader(404)
			_, _ = rw.Write([]byte("<html><body>404 page\nnot found</body></html>"))
		})
		o := s.run(context.Background(), t, nil)
		o.wantKind(t, ringside.ErrKindBadResponse, "404", "not found")
	}},

	{"429 waits out Retry-After in seconds", func(t *testing.T, w Wire) {
		s := newSetup(t, w, timings{}, nil,
			status(429, w.ErrorBody(429, "slow down"), "Retry-After", "7"),
			sse(w.stream(usage)...))
		s.run(context.Background(), t, nil).wantOK(t)
		s.wantAttempts(t, 2)
		s.wantWaits(t, 7*time.Second)
	}},

	{"429 waits out Retry-After as a date", func(t *testing.T, w Wire) {
		s := newSetup(t, w, timings{}, nil,
			status(429, w.ErrorBody(429, "slow down"), "Retry-After", time.Now().Add(30*time.Second).UTC().Format(http.TimeFormat)),
			sse(w.stream(usage)...))
		s.run(context.Background(), t, nil).wantOK(t)
		s.wantAttempts(t, 2)
		if got := s.sleep.got(); len(got) != 1 || got[0] < 28*time.Second || got[0] > 31*time.Second {
			t.Errorf("waits = %v, want one of about 30s", got)
		}
	}},

	{"429 asking for too long a wait is returned", func(t *testing.T, w Wire) {
		s := newSetup(t, w, timings{}, nil, status(429, w.ErrorBody(429, "quota exceeded"), "Retry-After", "3600"))
		o := s.run(context.Background(), t, nil)
		ge := o.wantKind(t, ringside.ErrKindRateLimit, "429", "quota exceeded")
		if ge.RetryAfter != time.Hour {
			t.Errorf("RetryAfter = %v, want 1h for the caller to back off", ge.RetryAfter)
		}
		s.wantAttempts(t, 1)
		s.wantWaits(t)
	}},

	{"500 and 503 are retried with backoff", func(t *testing.T, w Wire) {
		s := newSetup(t, w, timings{}, nil,
			status(500, w.ErrorBody(500, "boom")),
			status(503, w.ErrorBody(503, "unavailable")),
			sse(w.stream(usage)...))
		s.run(context.Background(), t, nil).wantOK(t)
		s.wantAttempts(t, 3)
		// Equal jitter at Rand 0.5: three quarters of 100ms, then of 200ms.
		s.wantWaits(t, 75*time.Millisecond, 150*time.Millisecond)
	}},

	{"5xx every time gives up after the attempts", func(t *testing.T, w Wire) {
		s := newSetup(t, w, timings{}, nil, status(503, w.ErrorBody(503, "unavailable")))
		o := s.run(context.Background(), t, nil)
		o.wantKind(t, ringside.ErrKindServer, "503", "unavailable", "3 attempts")
		s.wantAttempts(t, maxAttempts)
		if n := len(s.sleep.got()); n != maxAttempts-1 {
			t.Errorf("%d waits, want %d", n, maxAttempts-1)
		}
	}},

	{"connection dropped mid-stream is not retried", func(t *testing.T, w Wire) {
		s := newSetup(t, w, timings{}, nil, sseThenDrop(w.texts(usage, 2)...), sse(w.stream(usage)...))
		o := s.run(context.Background(), t, nil)
		o.wantKind(t, ringside.ErrKindServer)
		s.wantAttempts(t, 1)
		if len(o.deltas) != 2 || o.res.Text != Pieces[0]+Pieces[1] {
			t.Errorf("deltas %q, partial text %q; want the two pieces sent", o.text(), o.res.Text)
		}
		if o.res.TTFT <= 0 {
			t.Errorf("partial result TTFT = %v, want the first delta's", o.res.TTFT)
		}
	}},

	{"connection dropped before the first delta is retried", func(t *testing.T, w Wire) {
		s := newSetup(t, w, timings{}, nil, sseThenDrop(w.Start(usage)...), sse(w.stream(usage)...))
		s.run(context.Background(), t, nil).wantOK(t)
		s.wantAttempts(t, 2)
		s.wantWaits(t, 75*time.Millisecond)
	}},

	{"error event mid-stream ends the generation", func(t *testing.T, w Wire) {
		s := newSetup(t, w, timings{}, nil,
			sse(append(w.texts(usage, 1), w.Error(ringside.ErrKindServer, "Overloaded"))...),
			sse(w.stream(usage)...))
		o := s.run(context.Background(), t, nil)
		o.wantKind(t, ringside.ErrKindServer, "Overloaded")
		s.wantAttempts(t, 1)
		if len(o.deltas) != 1 {
			t.Errorf("deltas %q, want the one piece sent", o.text())
		}
	}},

	{"error event before any text is retried", func(t *testing.T, w Wire) {
		s := newSetup(t, w, timings{}, nil,
			sse(append(w.Start(usage), w.Error(ringside.ErrKindRateLimit, "Rate limited"))...),
			sse(w.stream(usage)...))
		s.run(context.Background(), t, nil).wantOK(t)
		s.wantAttempts(t, 2)
	}},

	{"malformed event is a bad response", func(t *testing.T, w Wire) {
		s := newSetup(t, w, timings{}, nil, sse(append(w.texts(usage, 1), "data: {not json\n\n")...))
		o := s.run(context.Background(), t, nil)
		o.wantKind(t, ringside.ErrKindBadResponse, "malformed")
		s.wantAttempts(t, 1)
	}},

	{"stream closed without its end is an error", func(t *testing.T, w Wire) {
		s := newSetup(t, w, timings{}, nil, sse(w.texts(usage, 3)...))
		o := s.run(context.Background(), t, nil)
		o.wantKind(t, ringside.ErrKindServer, "ended before")
		s.wantAttempts(t, 1)
	}},

	{"stalled stream times out", func(t *testing.T, w Wire) {
		s := newSetup(t, w, timings{stall: 100 * time.Millisecond}, nil)
		s.fake.responses = []http.HandlerFunc{s.fake.sseThenStall("", 0, w.texts(usage, 2)...)}
		o := s.run(context.Background(), t, nil)
		o.wantKind(t, ringside.ErrKindTimeout, "stall")
		s.wantAttempts(t, 1)
		if len(o.deltas) != 2 {
			t.Errorf("deltas %q, want the two pieces sent", o.text())
		}
	}},

	{"keep-alives do not hold off the stall timeout", func(t *testing.T, w Wire) {
		s := newSetup(t, w, timings{stall: 150 * time.Millisecond}, nil)
		s.fake.responses = []http.HandlerFunc{s.fake.sseThenStall(w.KeepAlive, 20*time.Millisecond, w.texts(usage, 1)...)}
		o := s.run(context.Background(), t, nil)
		o.wantKind(t, ringside.ErrKindTimeout, "stall")
	}},

	{"server that never answers times out", func(t *testing.T, w Wire) {
		s := newSetup(t, w, timings{stall: 100 * time.Millisecond}, nil)
		s.fake.responses = []http.HandlerFunc{s.fake.silent()}
		o := s.run(context.Background(), t, nil)
		o.wantKind(t, ringside.ErrKindTimeout)
		s.wantAttempts(t, 1)
	}},

	{"request timeout bounds a stream that keeps going", func(t *testing.T, w Wire) {
		s := newSetup(t, w, timings{timeout: 300 * time.Millisecond}, nil)
		s.fake.responses = []http.HandlerFunc{s.fake.sseThenStall(w.Text("more "), 20*time.Millisecond, w.Start(usage)...)}
		o := s.run(context.Background(), t, nil)
		o.wantKind(t, ringside.ErrKindTimeout, "request timeout")
		if len(o.deltas) == 0 {
			t.Errorf("no deltas; the server was streaming")
		}
	}},

	{"cancel mid-stream", func(t *testing.T, w Wire) {
		s := newSetup(t, w, timings{}, nil)
		s.fake.responses = []http.HandlerFunc{s.fake.sseThenStall("", 0, w.texts(usage, 1)...)}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		o := s.run(ctx, t, func(ringside.Delta) { cancel() })
		o.wantKind(t, ringside.ErrKindCancelled)
		s.wantAttempts(t, 1)
	}},

	{"cancel during a retry wait", func(t *testing.T, w Wire) {
		s := newSetup(t, w, timings{}, nil, status(503, w.ErrorBody(503, "unavailable")))
		ctx, cancel := context.WithCancel(context.Background())
		s.opts.Sleep = func(ctx context.Context, d time.Duration) error { cancel(); return context.Canceled }
		o := s.run(ctx, t, nil)
		o.wantKind(t, ringside.ErrKindCancelled)
		s.wantAttempts(t, 1)
	}},

	{"cancelled before the start", func(t *testing.T, w Wire) {
		s := newSetup(t, w, timings{}, nil, sse(w.stream(usage)...))
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		o := s.run(ctx, t, nil)
		o.wantKind(t, ringside.ErrKindCancelled)
		s.wantAttempts(t, 0)
	}},

	{"concurrent streams share a client", func(t *testing.T, w Wire) {
		s := newSetup(t, w, timings{}, nil, sse(w.stream(usage)...))
		s.build(t)
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for range 8 {
			wg.Go(func() {
				res, err := s.stream.Stream(context.Background(), Request, func(ringside.Delta) {})
				if err == nil && res.Text != strings.Join(Pieces, "") {
					err = fmt.Errorf("concurrent stream got %q", res.Text)
				}
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Error(err)
			}
		}
	}},
}
