package stream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/ringside-eval/ringside"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		header map[string]string
		want   time.Duration
		ok     bool
	}{
		{"none", nil, 0, false},
		{"seconds", map[string]string{"Retry-After": "7"}, 7 * time.Second, true},
		{"fractional seconds", map[string]string{"Retry-After": "1.5"}, 1500 * time.Millisecond, true},
		{"http date", map[string]string{"Retry-After": now.Add(90 * time.Second).Format(http.TimeFormat)}, 90 * time.Second, true},
		{"date in the past", map[string]string{"Retry-After": now.Add(-time.Hour).Format(http.TimeFormat)}, 0, true},
		{"milliseconds header wins", map[string]string{"Retry-After-Ms": "250", "Retry-After": "3"}, 250 * time.Millisecond, true},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0, false},
		{"negative", map[string]string{"Retry-After": "-3"}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.header {
				h.Set(k, v)
			}
			got, ok := ParseRetryAfter(h, now)
			if got != tt.want || ok != tt.ok {
				t.Errorf("got %v, %v; want %v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestBackoff(t *testing.T) {
	o := Options{BackoffBase: 100 * time.Millisecond, BackoffMax: time.Second, Rand: func() float64 { return 0.5 }}.WithDefaults()
	want := []time.Duration{75, 150, 300, 600, 750, 750}
	for i, w := range want {
		if got := o.Backoff(i + 1); got != w*time.Millisecond {
			t.Errorf("Backoff(%d) = %v, want %v", i+1, got, w*time.Millisecond)
		}
	}
	lo := Options{BackoffBase: 100 * time.Millisecond, Rand: func() float64 { return 0 }}.WithDefaults()
	hi := Options{BackoffBase: 100 * time.Millisecond, Rand: func() float64 { return 0.999999 }}.WithDefaults()
	if lo.Backoff(1) != 50*time.Millisecond || hi.Backoff(1) < 99*time.Millisecond {
		t.Errorf("jitter range = [%v, %v], want [50ms, 100ms)", lo.Backoff(1), hi.Backoff(1))
	}
}

func TestKinds(t *testing.T) {
	statuses := map[int]string{
		400: ringside.ErrKindBadResponse, 401: ringside.ErrKindAuth, 403: ringside.ErrKindAuth, 404: ringside.ErrKindBadResponse,
		408: ringside.ErrKindTimeout, 429: ringside.ErrKindRateLimit, 500: ringside.ErrKindServer,
		503: ringside.ErrKindServer, 504: ringside.ErrKindServer, 529: ringside.ErrKindServer,
	}
	for code, want := range statuses {
		if got := KindForStatus(code); got != want {
			t.Errorf("KindForStatus(%d) = %s, want %s", code, got, want)
		}
	}
	types := []struct {
		typ    string
		status int
		want   string
	}{
		{"overloaded_error", 0, ringside.ErrKindServer},
		{"api_error", 0, ringside.ErrKindServer},
		{"rate_limit_error", 0, ringside.ErrKindRateLimit},
		{"requests rate_limit_exceeded", 0, ringside.ErrKindRateLimit},
		{"invalid_request_error", 0, ringside.ErrKindBadResponse},
		{"authentication_error", 0, ringside.ErrKindAuth},
		{"permission_error", 0, ringside.ErrKindAuth},
		{"invalid_api_key", 0, ringside.ErrKindAuth},
		{"", 403, ringside.ErrKindAuth},
		{"BadRequestError", 400, ringside.ErrKindBadResponse},
		{"", 503, ringside.ErrKindServer},
		{"", 0, ringside.ErrKindServer},
	}
	for _, tt := range types {
		if got := KindForAPIError(tt.typ, tt.status); got != tt.want {
			t.Errorf("KindForAPIError(%q, %d) = %s, want %s", tt.typ, tt.status, got, tt.want)
		}
	}
}

func TestUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, refused := net.Dial("tcp", addr)
	cases := []struct {
		err  error
		want bool
	}{
		{refused, true},
		{&net.DNSError{Err: "no such host", Name: "nowhere.invalid"}, true},
		{fmt.Errorf("wrapped: %w", syscall.ECONNREFUSED), true},
		{io.ErrUnexpectedEOF, false},
		{syscall.ECONNRESET, false},
	}
	for _, c := range cases {
		if got := unreachable(c.err); got != c.want {
			t.Errorf("unreachable(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

func TestContextError(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if k := ContextError(ctx).Kind; k != ringside.ErrKindCancelled {
		t.Errorf("cancelled context: %s", k)
	}
	ctx, cancel = WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	<-ctx.Done()
	ge := ContextError(ctx)
	if ge.Kind != ringside.ErrKindTimeout || !errors.As(ge.Err, new(timeoutError)) {
		t.Errorf("request timeout: %v", ge)
	}
	ctx, cancel = context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	<-ctx.Done()
	if k := ContextError(ctx).Kind; k != ringside.ErrKindTimeout {
		t.Errorf("caller's deadline: %s", k)
	}
	cctx, ccancel := context.WithCancelCause(context.Background())
	ccancel(stallError{time.Second})
	if ge := ContextError(cctx); ge.Kind != ringside.ErrKindTimeout || ge.Error() != "timeout: no output for 1s (stall timeout)" {
		t.Errorf("stall: %v", ge)
	}
}

func TestPacer(t *testing.T) {
	var slept []time.Duration
	start := time.Unix(0, 0)
	now := start
	o := Options{
		Now:   func() time.Time { return now },
		Sleep: func(_ context.Context, d time.Duration) error { slept = append(slept, d); now = now.Add(d); return nil },
	}.WithDefaults()
	p := NewPacer(context.Background(), o, 2)
	for _, off := range []time.Duration{100, 300, 300, 1000} {
		if err := p.Until(off * time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	want := []time.Duration{50 * time.Millisecond, 100 * time.Millisecond, 350 * time.Millisecond}
	if len(slept) != len(want) {
		t.Fatalf("slept %v, want %v", slept, want)
	}
	for i := range want {
		if slept[i] != want[i] {
			t.Errorf("slept %v, want %v", slept, want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := NewPacer(ctx, o, 0).Until(time.Second); ringside.GenerationErrorKind(err) != ringside.ErrKindCancelled {
		t.Errorf("cancelled pacer: %v", err)
	}
}
