// Package providertest is the conformance suite every network provider
// passes: the same scenarios (a normal stream split across TCP reads, usage
// or none, error bodies, 429 with Retry-After, 5xx retried, a connection
// dropped mid-stream, a stalled server, cancellation...) played by a local
// fake server that speaks the provider's own wire format. A provider's test
// describes its wire format in a Wire and calls Run.
package providertest

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ringside-eval/ringside"
)

// Usage is the token usage a scripted stream reports.
type Usage struct{ In, Out int }

// Wire is one provider's side of the protocol, as its fake server speaks
// it. Event functions return complete server-sent events, blank line
// included.
type Wire struct {
	// Provider is the Model.Provider value.
	Provider string
	// KeyEnv is the variable the key is read from when the model names none.
	KeyEnv string
	// BaseURL turns the fake server's address into the model's base URL.
	BaseURL func(server string) string
	// Path is the request path the provider must use.
	Path string
	// Start are the events before the first text; u is nil when the
	// server sends no usage.
	Start func(u *Usage) []string
	// Text is an event carrying one piece of answer text.
	Text func(s string) string
	// End are the events that finish a stream normally: the finish reason,
	// the usage when u is not nil, and the end marker.
	End func(u *Usage) []string
	// Error is an error event sent mid-stream, of kind server_error or
	// rate_limit.
	Error func(kind, message string) string
	// KeepAlive is what the server sends to keep a connection open while
	// the model produces nothing.
	KeepAlive string
	// ErrorBody is the body of a non-2xx response.
	ErrorBody func(status int, message string) string
	// CheckRequest checks the provider-specific parts of a request made for
	// Request: the body's fields and the headers carrying key and version.
	CheckRequest func(t testing.TB, h http.Header, body []byte, key string)
	// WantFinish is the finish reason of a normal stream.
	WantFinish string
}

// Request is what the suite asks every provider: a system prompt, a
// multi-turn chat, and every generation parameter set.
var Request = ringside.Request{
	PromptID: "conformance-1",
	Messages: []ringside.Message{
		{Role: "system", Content: "You are terse."},
		{Role: "user", Content: "Hi"},
		{Role: "assistant", Content: "Hello."},
		{Role: "user", Content: "Say hello world, \"quoted\" and\nmulti-line."},
	},
	Params: ringside.Params{
		Temperature: ptr(0.3),
		TopP:        ptr(0.9),
		MaxTokens:   64,
		Seed:        ptr(int64(7)),
		Stop:        []string{"END"},
	},
	Reference: "never sent",
}

// Key is the API key the suite's environment holds.
const Key = "sk-test-0123456789"

// Pieces are the answer a normal stream sends, one event each: multi-byte
// characters, JSON escapes and newlines included.
var Pieces = []string{"Hel", "lo, ", "wörld", " 👋", "\n\n\"line\"", " two\ttab."}

func ptr[T any](v T) *T { return &v }

// Run plays every scenario against the provider described by w.
func Run(t *testing.T, w Wire) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			sc.run(t, w)
		})
	}
}

// stream is the events of a normal, complete answer.
func (w Wire) stream(u *Usage) []string {
	ev := w.Start(u)
	for _, p := range Pieces {
		ev = append(ev, w.Text(p))
	}
	return append(ev, w.End(u)...)
}

// texts are the events of the first n pieces after the start.
func (w Wire) texts(u *Usage, n int) []string {
	ev := w.Start(u)
	for _, p := range Pieces[:n] {
		ev = append(ev, w.Text(p))
	}
	return ev
}

// crlf rewrites events with "\r\n" line ends.
func crlf(events []string) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = strings.ReplaceAll(e, "\n", "\r\n")
	}
	return out
}

// timings are the limits a scenario runs under; zero fields take the
// suite's defaults, which no healthy scenario comes near.
type timings struct {
	timeout, stall time.Duration
}
