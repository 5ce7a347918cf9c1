// Package provider turns a configured ringside.Model into a
// ringside.Streamer: a client of the model's API family (openai, anthropic),
// a simulated model (sim) or a file of recorded outputs (replay). Each family
// lives in its own sub-package; they share the retry, timeout and streaming
// machinery in internal/stream.
//
// A network Streamer retries a failed request (429, 5xx, a dropped
// connection, an error event) with exponential backoff and jitter, honouring
// Retry-After, but only while nothing has reached the caller: once a delta
// has been emitted a failure ends the generation. A generation is bounded by
// the model's Timeout (default 120s, waits included) and cut when no output
// comes for its StallTimeout (default 30s); both end as ErrKindTimeout. Every
// failure is a *ringside.GenerationError with its kind, never a panic.
package provider

import (
	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/provider/anthropic"
	"github.com/ringside-eval/ringside/provider/internal/stream"
	"github.com/ringside-eval/ringside/provider/openai"
	"github.com/ringside-eval/ringside/provider/replay"
	"github.com/ringside-eval/ringside/provider/sim"
)

// Options are the injected dependencies and default limits every provider
// is built with: the *http.Client, the clock, the sleep, the jitter source,
// the environment lookup for keys, and the default timeouts and retry
// bounds. The zero value is usable (real clock, os.Getenv, ...); tests set
// the fields they need. See the field comments for each default.
type Options = stream.Options

// Defaults used for a zero Options field or a model that sets none.
const (
	DefaultTimeout      = stream.DefaultTimeout
	DefaultStallTimeout = stream.DefaultStallTimeout
	DefaultMaxAttempts  = stream.DefaultMaxAttempts
)

// New returns the Streamer for m, chosen by m.Provider. It validates the
// model and its provider-specific options, reads the API key through
// opts.Getenv, and loads a replay file; errors are *ringside.Error naming
// the model and the field at fault (a missing key names its variable).
func New(m ringside.Model, opts Options) (ringside.Streamer, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	switch m.Provider {
	case "openai":
		return check(openai.New(m, opts))
	case "anthropic":
		return check(anthropic.New(m, opts))
	case "sim":
		return check(sim.New(m, opts))
	case "replay":
		return check(replay.New(m, opts))
	}
	return nil, ringside.FieldError("provider", "model %q: %q is not one of %v", m.Name, m.Provider, ringside.Providers)
}

// check keeps a failed constructor's typed nil out of the interface, where
// it would not compare equal to nil.
func check[T ringside.Streamer](s T, err error) (ringside.Streamer, error) {
	if err != nil {
		return nil, err
	}
	return s, nil
}
