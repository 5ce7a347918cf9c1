// Package openai streams chat completions from any server that speaks the
// OpenAI chat-completions protocol: OpenAI itself and the local and hosted
// servers that copy it (vLLM, Ollama, llama.cpp server, LM Studio,
// OpenRouter, Together, Groq...). It is a thin client on net/http rather than
// the vendor SDK so that every delta gets its own timestamp, quirky servers'
// raw chunks can be read, and no environment variable silently redirects a
// configured model.
//
// Model fields used: ModelID (sent as "model"), BaseURL, APIKeyEnv, Timeout,
// StallTimeout. The base URL is Model.BaseURL, else $OPENAI_BASE_URL, else
// https://api.openai.com/v1; the request goes to {base}/chat/completions. The
// key is read from the variable Model.APIKeyEnv names, else (only when the
// model sets no base_url of its own) OPENAI_API_KEY, and sent as a bearer
// token. Local servers need no key: a model with a base URL of its own and
// no api_key_env sends no Authorization header.
//
// Model.Options keys (all optional):
//
//	include_usage    bool    ask for the usage chunk with stream_options (default true);
//	                         false for old servers that reject stream_options
//	max_tokens_field string  the name Params.MaxTokens is sent under: "max_tokens"
//	                         (default) or "max_completion_tokens" (OpenAI's
//	                         reasoning models)
//
// Reasoning deltas (reasoning_content, or reasoning on some servers) are not
// part of the answer: they are neither emitted nor taken as the first token,
// because a judge sees the answer and TTFT measures when it starts. They do
// keep the stall watchdog quiet and count toward estimated output tokens.
package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/provider/internal/stream"
)

// Defaults for a model that names no base URL or key variable.
const (
	DefaultBaseURL = "https://api.openai.com/v1"
	BaseURLEnv     = "OPENAI_BASE_URL"
	DefaultKeyEnv  = "OPENAI_API_KEY"
)

// Client is one model behind an OpenAI-compatible server. It is safe for
// concurrent use.
type Client struct {
	model         ringside.Model
	url           string
	key           string
	keyEnv        string
	includeUsage  bool
	maxTokensName string
	opts          stream.Options
}

// New returns the client for m. It fails, naming the model and the variable,
// when the key is missing where one is needed: for OpenAI itself, or when the
// model names its own api_key_env.
func New(m ringside.Model, opts stream.Options) (*Client, error) {
	opts = opts.WithDefaults()
	if m.ModelID == "" {
		return nil, ringside.FieldError("model", "model %q: required for provider openai", m.Name)
	}
	c := &Client{model: m, opts: opts, includeUsage: true, maxTokensName: "max_tokens"}
	if err := c.readOptions(); err != nil {
		return nil, err
	}

	base := m.BaseURL
	if base == "" {
		base = opts.Getenv(BaseURLEnv)
	}
	if base == "" {
		base = DefaultBaseURL
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, ringside.FieldError("base_url", "model %q: %q is not an http(s) URL", m.Name, base)
	}
	c.url = strings.TrimSuffix(base, "/") + "/chat/completions"

	// OPENAI_API_KEY goes only where OpenAI's own conventions point (the
	// default URL or OPENAI_BASE_URL): a model with a base_url of its own
	// gets a key only from the variable it names, so an OpenAI key never
	// leaks to a third-party server by default.
	c.keyEnv = m.APIKeyEnv
	if c.keyEnv == "" && m.BaseURL == "" {
		c.keyEnv = DefaultKeyEnv
	}
	if c.keyEnv != "" {
		c.key = strings.TrimSpace(opts.Getenv(c.keyEnv))
	}
	if c.key == "" && (m.APIKeyEnv != "" || u.Host == "api.openai.com") {
		return nil, ringside.FieldError("api_key_env", "model %q: the API key variable %s is not set", m.Name, c.keyEnv)
	}
	return c, nil
}

func (c *Client) readOptions() error {
	for k, v := range c.model.Options {
		switch k {
		case "include_usage":
			b, ok := v.(bool)
			if !ok {
				return ringside.FieldError("options.include_usage", "model %q: want true or false, got %v", c.model.Name, v)
			}
			c.includeUsage = b
		case "max_tokens_field":
			s, _ := v.(string)
			if s != "max_tokens" && s != "max_completion_tokens" {
				return ringside.FieldError("options.max_tokens_field", "model %q: want max_tokens or max_completion_tokens, got %v", c.model.Name, v)
			}
			c.maxTokensName = s
		default:
			return ringside.FieldError("options."+k, "model %q: not an option of provider openai (include_usage, max_tokens_field)", c.model.Name)
		}
	}
	return nil
}

// String names the client without its key, so that printing one by mistake
// leaks nothing.
func (c *Client) String() string {
	return fmt.Sprintf("openai client for %s at %s", c.model.Name, c.url)
}

// Stream sends req and streams the answer; see stream.Do for retries,
// timeouts and timing. Errors are *ringside.GenerationError.
func (c *Client) Stream(ctx context.Context, req ringside.Request, emit func(ringside.Delta)) (ringside.Result, error) {
	body, err := c.body(req)
	if err != nil {
		return ringside.Result{}, stream.Errorf(ringside.ErrKindBadResponse, "encoding the request: %v", err)
	}
	return stream.Do(ctx, c.opts, stream.Call{
		Model:      c.model,
		Input:      req.Messages,
		KeyEnv:     c.keyEnv,
		URL:        c.url,
		NewRequest: func(ctx context.Context) (*http.Request, error) { return c.request(ctx, body) },
		ParseError: parseError,
		Decode:     decode,
	}, emit)
}

func (c *Client) request(ctx context.Context, body []byte) (*http.Request, error) {
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "text/event-stream")
	r.Header.Set("User-Agent", "ringside")
	if c.key != "" {
		r.Header.Set("Authorization", "Bearer "+c.key)
	}
	return r, nil
}

// body encodes the request.
func (c *Client) body(req ringside.Request) ([]byte, error) {
	p := stream.Params(req, c.model)
	b := map[string]any{
		"model":    c.model.ModelID,
		"messages": req.Messages,
		"stream":   true,
	}
	if c.includeUsage {
		b["stream_options"] = map[string]any{"include_usage": true}
	}
	if p.Temperature != nil {
		b["temperature"] = *p.Temperature
	}
	if p.TopP != nil {
		b["top_p"] = *p.TopP
	}
	if p.MaxTokens > 0 {
		b[c.maxTokensName] = p.MaxTokens
	}
	if p.Seed != nil {
		b["seed"] = *p.Seed
	}
	if len(p.Stop) > 0 {
		b["stop"] = p.Stop
	}
	return json.Marshal(b)
}
