package openai_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/provider/providertest"
)

// data is one chat-completions event.
func data(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return "data: " + string(b) + "\n\n"
}

func chunk(delta map[string]any, finish any) string {
	return data(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "test-model-id",
		"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
	})
}

// wire is the OpenAI chat-completions protocol as the fake server speaks it.
var wire = providertest.Wire{
	Provider: "openai",
	KeyEnv:   "OPENAI_API_KEY",
	BaseURL:  func(s string) string { return s + "/v1" },
	Path:     "/v1/chat/completions",
	Start: func(*providertest.Usage) []string {
		return []string{chunk(map[string]any{"role": "assistant", "content": ""}, nil)}
	},
	Text: func(s string) string { return chunk(map[string]any{"content": s}, nil) },
	End: func(u *providertest.Usage) []string {
		ev := []string{chunk(map[string]any{}, "stop")}
		if u != nil {
			ev = append(ev, data(map[string]any{
				"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": []any{},
				"usage": map[string]any{"prompt_tokens": u.In, "completion_tokens": u.Out, "total_tokens": u.In + u.Out},
			}))
		}
		return append(ev, "data: [DONE]\n\n")
	},
	Error: func(kind, msg string) string {
		typ := "server_error"
		if kind == ringside.ErrKindRateLimit {
			typ = "rate_limit_exceeded"
		}
		return data(map[string]any{"error": map[string]any{"message": msg, "type": typ, "code": nil}})
	},
	KeepAlive: ": keep-alive\n\n",
	ErrorBody: func(status int, msg string) string {
		return fmt.Sprintf(`{"error": {"message": %q, "type": "invalid_request_error", "param": null, "code": null}}`, msg)
	},
	CheckRequest: func(t testing.TB, h http.Header, body []byte, key string) {
		t.Helper()
		if got := h.Get("Authorization"); got != "Bearer "+key {
			t.Errorf("Authorization = %q, want the bearer key", got)
		}
		if got := h.Get("Accept"); got != "text/event-stream" {
			t.Errorf("Accept = %q", got)
		}
		var b struct {
			Model         string             `json:"model"`
			Messages      []ringside.Message `json:"messages"`
			Stream        bool               `json:"stream"`
			StreamOptions struct {
				IncludeUsage bool `json:"include_usage"`
			} `json:"stream_options"`
			Temperature *float64 `json:"temperature"`
			TopP        *float64 `json:"top_p"`
			MaxTokens   int      `json:"max_tokens"`
			Seed        *int64   `json:"seed"`
			Stop        []string `json:"stop"`
		}
		if err := json.Unmarshal(body, &b); err != nil {
			t.Fatalf("request body: %v", err)
		}
		p := providertest.Request.Params
		switch {
		case b.Model != "test-model-id":
			t.Errorf("model = %q", b.Model)
		case !reflect.DeepEqual(b.Messages, providertest.Request.Messages):
			t.Errorf("messages = %+v, want them as given, system first", b.Messages)
		case !b.Stream || !b.StreamOptions.IncludeUsage:
			t.Errorf("stream = %v, include_usage = %v; want both", b.Stream, b.StreamOptions.IncludeUsage)
		case b.Temperature == nil || *b.Temperature != *p.Temperature, b.TopP == nil || *b.TopP != *p.TopP:
			t.Errorf("temperature, top_p = %v, %v", b.Temperature, b.TopP)
		case b.MaxTokens != p.MaxTokens, b.Seed == nil || *b.Seed != *p.Seed, !reflect.DeepEqual(b.Stop, p.Stop):
			t.Errorf("max_tokens, seed, stop = %d, %v, %v", b.MaxTokens, b.Seed, b.Stop)
		}
	},
	WantFinish: "stop",
}

func TestConformance(t *testing.T) { providertest.Run(t, wire) }
