package anthropic_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/provider"
	"github.com/ringside-eval/ringside/provider/anthropic"
)

// server answers every request with the events and keeps the last body.
type server struct {
	*httptest.Server
	mu   sync.Mutex
	path string
	body map[string]any
}

func newServer(t *testing.T, events ...string) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.path = r.URL.Path
		s.body = nil
		_ = json.Unmarshal(b, &s.body)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, strings.Join(events, ""))
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) last() (string, map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.path, s.body
}

func newClient(t *testing.T, s *server, m ringside.Model) *anthropic.Client {
	t.Helper()
	if m.BaseURL == "" {
		m.BaseURL = s.URL
	}
	m.Name, m.Provider, m.ModelID = "claude-test", "anthropic", "claude-x"
	c, err := anthropic.New(m, provider.Options{
		HTTPClient: s.Client(), MaxAttempts: 1,
		Getenv: func(k string) string { return map[string]string{"ANTHROPIC_API_KEY": "sk-ant"}[k] },
	})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

func text(s string) string { return wire.Text(s) }

func end(reason string, out int) []string {
	return []string{
		event("message_delta", map[string]any{"type": "message_delta",
			"delta": map[string]any{"stop_reason": reason}, "usage": map[string]any{"output_tokens": out}}),
		event("message_stop", map[string]any{"type": "message_stop"}),
	}
}

func TestSystemMessagesAndDefaultMaxTokens(t *testing.T) {
	s := newServer(t, append([]string{text("ok")}, end("end_turn", 1)...)...)
	c := newClient(t, s, ringside.Model{})
	req := ringside.Request{Messages: []ringside.Message{
		{Role: "system", Content: "Be brief."},
		{Role: "user", Content: "Hi"},
		{Role: "system", Content: "Answer in French."},
		{Role: "user", Content: "Hello?"},
	}}
	if _, err := c.Stream(context.Background(), req, func(ringside.Delta) {}); err != nil {
		t.Fatal(err)
	}
	_, body := s.last()
	if body["system"] != "Be brief.\n\nAnswer in French." {
		t.Errorf("system = %q", body["system"])
	}
	if msgs := body["messages"].([]any); len(msgs) != 2 {
		t.Errorf("messages = %v, want the two user turns", msgs)
	}
	if body["max_tokens"] != float64(anthropic.DefaultMaxTokens) {
		t.Errorf("max_tokens = %v, want the default %d", body["max_tokens"], anthropic.DefaultMaxTokens)
	}
}

func TestThinkingAndStopReasons(t *testing.T) {
	thinking := event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
		"delta": map[string]any{"type": "thinking_delta", "thinking": "Let me think."}})
	signature := event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
		"delta": map[string]any{"type": "signature_delta", "signature": "abc"}})
	for reason, want := range map[string]string{"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length",
		"tool_use": "tool_calls", "refusal": "content_filter", "pause_turn": "pause_turn"} {
		s := newServer(t, append([]string{thinking, signature, text("Answer")}, end(reason, 7)...)...)
		var deltas []ringside.Delta
		res, err := newClient(t, s, ringside.Model{}).Stream(context.Background(),
			ringside.Request{Messages: []ringside.Message{{Role: "user", Content: "q"}}},
			func(d ringside.Delta) { deltas = append(deltas, d) })
		if err != nil {
			t.Fatal(err)
		}
		if len(deltas) != 1 || res.Text != "Answer" || res.FinishReason != want || res.TokensOut != 7 {
			t.Errorf("%s: deltas %v, result %+v; want only the answer, finish %s", reason, deltas, res, want)
		}
		// No message_start came: the input is estimated.
		if !res.TokensEstimated {
			t.Errorf("%s: input tokens not marked estimated", reason)
		}
	}
}

func TestBaseURLWithV1(t *testing.T) {
	s := newServer(t, append([]string{text("ok")}, end("end_turn", 1)...)...)
	c := newClient(t, s, ringside.Model{BaseURL: s.URL + "/v1/"})
	if _, err := c.Stream(context.Background(), ringside.Request{Messages: []ringside.Message{{Role: "user", Content: "q"}}}, func(ringside.Delta) {}); err != nil {
		t.Fatal(err)
	}
	if p, _ := s.last(); p != "/v1/messages" {
		t.Errorf("path = %s", p)
	}
}

func TestTemperatureRange(t *testing.T) {
	hot := 1.5
	_, err := anthropic.New(ringside.Model{Name: "c", Provider: "anthropic", ModelID: "x", Params: ringside.Params{Temperature: &hot}},
		provider.Options{Getenv: func(string) string { return "k" }})
	if err == nil || !strings.Contains(err.Error(), "0..1") {
		t.Errorf("model temperature 1.5: err = %v", err)
	}
	s := newServer(t)
	c := newClient(t, s, ringside.Model{})
	_, err = c.Stream(context.Background(), ringside.Request{
		Messages: []ringside.Message{{Role: "user", Content: "q"}}, Params: ringside.Params{Temperature: &hot},
	}, func(ringside.Delta) {})
	if ringside.GenerationErrorKind(err) != ringside.ErrKindBadResponse {
		t.Errorf("request temperature 1.5: err = %v", err)
	}
}

func TestKeyRequired(t *testing.T) {
	_, err := anthropic.New(ringside.Model{Name: "claude", Provider: "anthropic", ModelID: "x"},
		provider.Options{Getenv: func(string) string { return "" }})
	if err == nil || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") || !strings.Contains(err.Error(), `"claude"`) {
		t.Errorf("err = %v", err)
	}
	// A proxy of one's own may need no key.
	if _, err := anthropic.New(ringside.Model{Name: "claude", Provider: "anthropic", ModelID: "x", BaseURL: "http://127.0.0.1:4000"},
		provider.Options{Getenv: func(string) string { return "" }}); err != nil {
		t.Errorf("proxy without key: %v", err)
	}
}
