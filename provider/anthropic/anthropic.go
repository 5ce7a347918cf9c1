// Package anthropic streams answers from Anthropic's Messages API. Like
// package openai it is a thin client on net/http, so that every delta gets
// its own timestamp and nothing is read from the environment implicitly.
//
// Model fields used: ModelID (sent as "model"), BaseURL, APIKeyEnv, Timeout,
// StallTimeout. The base URL is Model.BaseURL, else $ANTHROPIC_BASE_URL, else
// https://api.anthropic.com; the request goes to {base}/v1/messages (a base
// that already ends in /v1 is accepted). The key is read from the variable
// Model.APIKeyEnv names, else ANTHROPIC_API_KEY, and sent as x-api-key with
// anthropic-version 2023-06-01. A model with a base URL of its own (a proxy)
// and no api_key_env may go without a key.
//
// Mapping: system messages, wherever they stand, go to the top-level
// "system" field (joined by blank lines), since the API takes no system
// role; Params.MaxTokens is required by the API and defaults to
// DefaultMaxTokens; Params.Stop is sent as stop_sequences; Params.Seed has
// no counterpart and is not sent; temperature must be within 0..1.
//
// The stop_reason is reported in OpenAI's vocabulary so that finish reasons
// compare across providers: end_turn and stop_sequence are "stop",
// max_tokens is "length", tool_use is "tool_calls", refusal is
// "content_filter"; any other value is passed on as it is. Thinking deltas
// are handled like OpenAI's reasoning deltas: not emitted, not the first
// token, but alive.
//
// No Model.Options keys are defined.
package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/provider/internal/stream"
)

// Defaults for a model that names no base URL, key variable or max tokens.
const (
	DefaultBaseURL   = "https://api.anthropic.com"
	BaseURLEnv       = "ANTHROPIC_BASE_URL"
	DefaultKeyEnv    = "ANTHROPIC_API_KEY"
	APIVersion       = "2023-06-01"
	DefaultMaxTokens = 1024
)

// Client is one model behind the Messages API. It is safe for concurrent use.
type Client struct {
	model  ringside.Model
	url    string
	key    string
	keyEnv string
	opts   stream.Options
}

// New returns the client for m. It fails, naming the model and the variable,
// when the key is missing.
func New(m ringside.Model, opts stream.Options) (*Client, error) {
	opts = opts.WithDefaults()
	if m.ModelID == "" {
		return nil, ringside.FieldError("model", "model %q: required for provider anthropic", m.Name)
	}
	if len(m.Options) > 0 {
		keys := slices.Sorted(maps.Keys(m.Options))
		return nil, ringside.FieldError("options."+keys[0], "model %q: provider anthropic has no options", m.Name)
	}
	if err := checkParams(m.Params); err != nil {
		return nil, ringside.FieldError("params.temperature", "model %q: %v", m.Name, err)
	}
	c := &Client{model: m, opts: opts}

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
	c.url = strings.TrimSuffix(strings.TrimSuffix(base, "/"), "/v1") + "/v1/messages"

	c.keyEnv = m.APIKeyEnv
	if c.keyEnv == "" {
		c.keyEnv = DefaultKeyEnv
	}
	c.key = strings.TrimSpace(opts.Getenv(c.keyEnv))
	if c.key == "" && (m.APIKeyEnv != "" || m.BaseURL == "") {
		return nil, ringside.FieldError("api_key_env", "model %q: the API key variable %s is not set", m.Name, c.keyEnv)
	}
	return c, nil
}

// String names the client without its key.
func (c *Client) String() string {
	return fmt.Sprintf("anthropic client for %s at %s", c.model.Name, c.url)
}

// Stream sends req and streams the answer; see stream.Do for retries,
// timeouts and timing. Errors are *ringside.GenerationError.
func (c *Client) Stream(ctx context.Context, req ringside.Request, emit func(ringside.Delta)) (ringside.Result, error) {
	p := stream.Params(req, c.model)
	if err := checkParams(p); err != nil {
		return ringside.Result{}, stream.Errorf(ringside.ErrKindBadResponse, "%v", err)
	}
	body, err := json.Marshal(newMessagesRequest(c.model.ModelID, req.Messages, p))
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
	r.Header.Set("anthropic-version", APIVersion)
	if c.key != "" {
		r.Header.Set("x-api-key", c.key)
	}
	return r, nil
}

// checkParams catches what the API would reject with a less helpful 400.
func checkParams(p ringside.Params) error {
	if p.Temperature != nil && (*p.Temperature < 0 || *p.Temperature > 1) {
		return fmt.Errorf("temperature %g is outside 0..1, the range of the Messages API", *p.Temperature)
	}
	return nil
}

// messagesRequest is the body of POST /v1/messages.
type messagesRequest struct {
	Model         string             `json:"model"`
	MaxTokens     int                `json:"max_tokens"`
	System        string             `json:"system,omitempty"`
	Messages      []ringside.Message `json:"messages"`
	Stream        bool               `json:"stream"`
	Temperature   *float64           `json:"temperature,omitempty"`
	TopP          *float64           `json:"top_p,omitempty"`
	StopSequences []string           `json:"stop_sequences,omitempty"`
}

func newMessagesRequest(model string, msgs []ringside.Message, p ringside.Params) messagesRequest {
	r := messagesRequest{
		Model:         model,
		MaxTokens:     p.MaxTokens,
		Stream:        true,
		Temperature:   p.Temperature,
		TopP:          p.TopP,
		StopSequences: p.Stop,
		Messages:      make([]ringside.Message, 0, len(msgs)),
	}
	if r.MaxTokens <= 0 {
		r.MaxTokens = DefaultMaxTokens
	}
	var system []string
	for _, m := range msgs {
		if m.Role == "system" {
			system = append(system, m.Content)
			continue
		}
		r.Messages = append(r.Messages, m)
	}
	r.System = strings.Join(system, "\n\n")
	return r
}
