package openai_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/provider"
	"github.com/ringside-eval/ringside/provider/openai"
)

// server answers every request with body (as an event stream unless ct
// says otherwise) and keeps the last request.
type server struct {
	*httptest.Server
	mu     sync.Mutex
	header http.Header
	body   map[string]any
}

func newServer(t *testing.T, status int, ct, body string) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.header = r.Header.Clone()
		s.body = nil
		_ = json.Unmarshal(b, &s.body)
		s.mu.Unlock()
		w.Header().Set("Content-Type", ct)
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) last() (http.Header, map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.header, s.body
}

func opts(s *server, env map[string]string) provider.Options {
	return provider.Options{
		HTTPClient:  s.Client(),
		Getenv:      func(k string) string { return env[k] },
		Sleep:       func(ctx context.Context, d time.Duration) error { return ctx.Err() },
		MaxAttempts: 1,
	}
}

func model(base string) ringside.Model {
	return ringside.Model{Name: "local", Provider: "openai", ModelID: "llama3", BaseURL: base}
}

var req = ringside.Request{Messages: []ringside.Message{{Role: "user", Content: "What is 2+2?"}}}

func stream(t *testing.T, m ringside.Model, o provider.Options) (ringside.Result, []ringside.Delta, error) {
	t.Helper()
	c, err := openai.New(m, o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	var deltas []ringside.Delta
	res, err := c.Stream(context.Background(), req, func(d ringside.Delta) { deltas = append(deltas, d) })
	return res, deltas, err
}

const sseType = "text/event-stream"

func TestReasoningIsNotTheAnswer(t *testing.T) {
	body := chunk(map[string]any{"role": "assistant"}, nil) +
		chunk(map[string]any{"reasoning_content": "Two plus two, "}, nil) +
		chunk(map[string]any{"reasoning": "carry nothing... "}, nil) +
		chunk(map[string]any{"content": "4"}, nil) +
		chunk(map[string]any{}, "stop") + "data: [DONE]\n\n"
	s := newServer(t, 200, sseType, body)
	res, deltas, err := stream(t, model(s.URL), opts(s, nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(deltas) != 1 || deltas[0].Text != "4" || res.Text != "4" {
		t.Fatalf("deltas %+v, text %q; want only the answer", deltas, res.Text)
	}
	if res.TTFT != deltas[0].Elapsed {
		t.Errorf("TTFT %v, want the answer's first delta %v", res.TTFT, deltas[0].Elapsed)
	}
	// No usage: the estimate counts the reasoning, which is billed.
	if !res.TokensEstimated || res.TokensOut != 1+(len("Two plus two, carry nothing... ")+3)/4 {
		t.Errorf("tokens out %d (estimated %v)", res.TokensOut, res.TokensEstimated)
	}
}

func TestRefusalDeltaIsAnswerText(t *testing.T) {
	body := chunk(map[string]any{"refusal": "I can't help with that."}, nil) + chunk(map[string]any{}, "stop") + "data: [DONE]\n\n"
	s := newServer(t, 200, sseType, body)
	res, _, err := stream(t, model(s.URL), opts(s, nil))
	if err != nil || res.Text != "I can't help with that." {
		t.Fatalf("text %q, err %v", res.Text, err)
	}
}

func TestUsageOnEveryChunkLastWins(t *testing.T) {
	u := func(in, out int) map[string]any {
		return map[string]any{"prompt_tokens": in, "completion_tokens": out}
	}
	body := data(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": "a"}}}, "usage": u(10, 1)}) +
		data(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": "b"}, "finish_reason": "length"}}, "usage": u(10, 2)}) +
		"data: [DONE]\n\n"
	s := newServer(t, 200, sseType, body)
	res, _, err := stream(t, model(s.URL), opts(s, nil))
	if err != nil || res.TokensIn != 10 || res.TokensOut != 2 || res.TokensEstimated || res.FinishReason != "length" {
		t.Fatalf("result %+v, err %v", res, err)
	}
}

func TestFinishWithoutDoneIsAccepted(t *testing.T) {
	// Some servers close the stream after the finish reason with no [DONE].
	s := newServer(t, 200, sseType, chunk(map[string]any{"content": "ok"}, nil)+chunk(map[string]any{}, "stop"))
	if res, _, err := stream(t, model(s.URL), opts(s, nil)); err != nil || res.Text != "ok" {
		t.Fatalf("text %q, err %v", res.Text, err)
	}
}

func TestErrorShapes(t *testing.T) {
	tests := []struct {
		name   string
		status int
		ct     string
		body   string
		kind   string
		msg    string
	}{
		{"ollama string error", 404, "application/json", `{"error": "model \"llama9\" not found, try pulling it first"}`,
			ringside.ErrKindBadResponse, `model "llama9" not found`},
		{"vllm numeric code mid-stream", 200, sseType,
			`data: {"error": {"object": "error", "message": "prompt too long", "type": "BadRequestError", "code": 400}}` + "\n\n",
			ringside.ErrKindBadResponse, "prompt too long"},
		{"rate limit code mid-stream", 200, sseType,
			`data: {"error": {"message": "slow down", "type": "requests", "code": "rate_limit_exceeded"}}` + "\n\n",
			ringside.ErrKindRateLimit, "slow down"},
		{"json instead of a stream", 200, "application/json",
			`{"id": "x", "choices": [{"message": {"content": "hi"}}]}`, ringside.ErrKindBadResponse, "instead of an event stream"},
		{"json error with 200", 200, "application/json; charset=utf-8",
			`{"error": {"message": "upstream overloaded", "type": "server_error"}}`, ringside.ErrKindServer, "upstream overloaded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, tt.status, tt.ct, tt.body)
			_, _, err := stream(t, model(s.URL), opts(s, nil))
			if ringside.GenerationErrorKind(err) != tt.kind || err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("err = %v, want kind %s mentioning %q", err, tt.kind, tt.msg)
			}
		})
	}
}

func TestKeysAndBaseURL(t *testing.T) {
	s := newServer(t, 200, sseType, chunk(map[string]any{"content": "ok"}, "stop")+"data: [DONE]\n\n")

	t.Run("local server without a key sends no Authorization", func(t *testing.T) {
		if _, _, err := stream(t, model(s.URL), opts(s, nil)); err != nil {
			t.Fatal(err)
		}
		if h, _ := s.last(); h.Get("Authorization") != "" {
			t.Errorf("Authorization = %q", h.Get("Authorization"))
		}
	})
	t.Run("OPENAI_API_KEY is not sent to a base_url of the model's own", func(t *testing.T) {
		if _, _, err := stream(t, model(s.URL), opts(s, map[string]string{"OPENAI_API_KEY": "sk-a"})); err != nil {
			t.Fatal(err)
		}
		if h, _ := s.last(); h.Get("Authorization") != "" {
			t.Errorf("Authorization = %q, want none: the key belongs to OpenAI", h.Get("Authorization"))
		}
	})
	t.Run("the key api_key_env names is sent to the model's base_url", func(t *testing.T) {
		m := model(s.URL)
		m.APIKeyEnv = "OPENROUTER_API_KEY"
		if _, _, err := stream(t, m, opts(s, map[string]string{"OPENROUTER_API_KEY": "sk-or"})); err != nil {
			t.Fatal(err)
		}
		if h, _ := s.last(); h.Get("Authorization") != "Bearer sk-or" {
			t.Errorf("Authorization = %q", h.Get("Authorization"))
		}
	})
	t.Run("OPENAI_API_KEY is sent to OPENAI_BASE_URL", func(t *testing.T) {
		env := map[string]string{"OPENAI_BASE_URL": s.URL, "OPENAI_API_KEY": "sk-a"}
		if _, _, err := stream(t, model(""), opts(s, env)); err != nil {
			t.Fatal(err)
		}
		if h, _ := s.last(); h.Get("Authorization") != "Bearer sk-a" {
			t.Errorf("Authorization = %q", h.Get("Authorization"))
		}
	})
	t.Run("OPENAI_BASE_URL is honoured", func(t *testing.T) {
		m := model("")
		if _, _, err := stream(t, m, opts(s, map[string]string{"OPENAI_BASE_URL": s.URL + "/"})); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("OpenAI itself needs a key", func(t *testing.T) {
		_, err := openai.New(model(""), opts(s, nil))
		if err == nil || !strings.Contains(err.Error(), "OPENAI_API_KEY") || !strings.Contains(err.Error(), `"local"`) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("bad base URL", func(t *testing.T) {
		if _, err := openai.New(model("localhost:11434/v1"), opts(s, nil)); err == nil || !strings.Contains(err.Error(), "base_url") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("String hides the key", func(t *testing.T) {
		c, err := openai.New(model(s.URL), opts(s, map[string]string{"OPENAI_API_KEY": "sk-secret"}))
		if err != nil {
			t.Fatal(err)
		}
		if str := c.String(); strings.Contains(str, "sk-secret") {
			t.Errorf("String() = %q", str)
		}
	})
}

func TestOptionsAndParams(t *testing.T) {
	s := newServer(t, 200, sseType, chunk(map[string]any{"content": "ok"}, "stop")+"data: [DONE]\n\n")
	seed := int64(3)
	m := model(s.URL)
	m.Params = ringside.Params{MaxTokens: 50, Seed: &seed}
	m.Options = map[string]any{"include_usage": false, "max_tokens_field": "max_completion_tokens"}
	// The request carries no params: the model's are sent.
	if _, _, err := stream(t, m, opts(s, nil)); err != nil {
		t.Fatal(err)
	}
	_, body := s.last()
	if _, ok := body["stream_options"]; ok {
		t.Errorf("stream_options sent with include_usage false")
	}
	if body["max_completion_tokens"] != 50.0 || body["max_tokens"] != nil || body["seed"] != 3.0 {
		t.Errorf("body = %v", body)
	}
	if _, ok := body["temperature"]; ok {
		t.Errorf("temperature sent though unset")
	}

	m.Options = map[string]any{"max_tokens_feild": "x"}
	if _, err := openai.New(m, opts(s, nil)); err == nil || !strings.Contains(err.Error(), "options.max_tokens_feild") {
		t.Errorf("unknown option: err = %v", err)
	}
}
