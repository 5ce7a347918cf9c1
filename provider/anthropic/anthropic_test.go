package anthropic_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/provider/providertest"
)

// event is one Messages-API server-sent event.
func event(name string, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return "event: " + name + "\ndata: " + string(b) + "\n\n"
}

// wire is the Messages streaming protocol as the fake server speaks it.
var wire = providertest.Wire{
	Provider: "anthropic",
	KeyEnv:   "ANTHROPIC_API_KEY",
	BaseURL:  func(s string) string { return s },
	Path:     "/v1/messages",
	Start: func(u *providertest.Usage) []string {
		usage := map[string]any{}
		if u != nil {
			usage = map[string]any{"input_tokens": u.In - 5, "cache_read_input_tokens": 5, "output_tokens": 1}
		}
		return []string{
			event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
				"id": "msg_1", "type": "message", "role": "assistant", "model": "test-model-id",
				"content": []any{}, "stop_reason": nil, "usage": usage,
			}}),
			event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
				"content_block": map[string]any{"type": "text", "text": ""}}),
			event("ping", map[string]any{"type": "ping"}),
		}
	},
	Text: func(s string) string {
		return event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": s}})
	},
	End: func(u *providertest.Usage) []string {
		md := map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": "end_turn", "stop_sequence": nil}}
		if u != nil {
			md["usage"] = map[string]any{"output_tokens": u.Out}
		}
		return []string{
			event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0}),
			event("message_delta", md),
			event("message_stop", map[string]any{"type": "message_stop"}),
		}
	},
	Error: func(kind, msg string) string {
		typ := "overloaded_error"
		if kind == ringside.ErrKindRateLimit {
			typ = "rate_limit_error"
		}
		return event("error", map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
	},
	KeepAlive: event("ping", map[string]any{"type": "ping"}),
	ErrorBody: func(status int, msg string) string {
		typ := map[int]string{400: "invalid_request_error", 401: "authentication_error", 429: "rate_limit_error",
			500: "api_error", 503: "api_error", 529: "overloaded_error"}[status]
		return fmt.Sprintf(`{"type": "error", "error": {"type": %q, "message": %q}}`, typ, msg)
	},
	CheckRequest: func(t testing.TB, h http.Header, body []byte, key string) {
		t.Helper()
		if got := h.Get("x-api-key"); got != key {
			t.Errorf("x-api-key = %q, want the key", got)
		}
		if got := h.Get("anthropic-version"); got != "2023-06-01" {
			t.Errorf("anthropic-version = %q", got)
		}
		if h.Get("Authorization") != "" {
			t.Errorf("an Authorization header was sent")
		}
		var b struct {
			Model         string             `json:"model"`
			System        string             `json:"system"`
			Messages      []ringside.Message `json:"messages"`
			Stream        bool               `json:"stream"`
			Temperature   *float64           `json:"temperature"`
			TopP          *float64           `json:"top_p"`
			MaxTokens     int                `json:"max_tokens"`
			StopSequences []string           `json:"stop_sequences"`
			Seed          any                `json:"seed"`
		}
		if err := json.Unmarshal(body, &b); err != nil {
			t.Fatalf("request body: %v", err)
		}
		p := providertest.Request.Params
		switch {
		case b.Model != "test-model-id":
			t.Errorf("model = %q", b.Model)
		case b.System != providertest.Request.Messages[0].Content:
			t.Errorf("system = %q, want the system message", b.System)
		case !reflect.DeepEqual(b.Messages, providertest.Request.Messages[1:]):
			t.Errorf("messages = %+v, want the chat without the system message", b.Messages)
		case !b.Stream:
			t.Errorf("stream = false")
		case b.Temperature == nil || *b.Temperature != *p.Temperature, b.TopP == nil || *b.TopP != *p.TopP:
			t.Errorf("temperature, top_p = %v, %v", b.Temperature, b.TopP)
		case b.MaxTokens != p.MaxTokens, !reflect.DeepEqual(b.StopSequences, p.Stop):
			t.Errorf("max_tokens, stop_sequences = %d, %v", b.MaxTokens, b.StopSequences)
		case b.Seed != nil:
			t.Errorf("seed = %v; the Messages API has none", b.Seed)
		}
	},
	WantFinish: "stop",
}

func TestConformance(t *testing.T) { providertest.Run(t, wire) }
