// Package stream is what every provider shares: the injected dependencies
// (HTTP client, clock, sleep, jitter, environment), the network call with its
// retries and timeouts, the server-sent-events reader, token estimates, and
// the pacing of simulated and replayed streams.
package stream

import (
	"context"
	"math/rand/v2"
	"net/http"
	"os"
	"time"

	"github.com/ringside-eval/ringside"
)

// Defaults used when neither the model nor the Options set a value.
const (
	DefaultTimeout      = 120 * time.Second
	DefaultStallTimeout = 30 * time.Second
	DefaultMaxAttempts  = 4
	DefaultBackoffBase  = 500 * time.Millisecond
	DefaultBackoffMax   = 20 * time.Second
	DefaultMaxRetryWait = 60 * time.Second
)

// Options are the dependencies and limits every provider is built with. They
// are injected, never read from package state, so that tests can run a stream
// with a fake server, an instant sleep and a fixed jitter. The zero value is
// usable: every nil or zero field takes the default named in its comment.
type Options struct {
	// HTTPClient sends the network providers' requests. Nil means a client on
	// http.DefaultTransport. Leave its Timeout at zero: a stream's life is
	// bounded by the request and stall timeouts below, which know about
	// streaming; a client timeout would cut long answers.
	HTTPClient *http.Client
	// Now times the deltas. Nil means time.Now.
	Now func() time.Time
	// Sleep waits d, or returns ctx's error as soon as ctx is done. It waits
	// between retries and paces the sim and replay streams. Nil means a timer.
	Sleep func(ctx context.Context, d time.Duration) error
	// Rand returns a number in [0, 1) for retry jitter. It is called from
	// many goroutines at once. Nil means math/rand/v2's Float64.
	Rand func() float64
	// Getenv reads API keys and base URLs. Nil means os.Getenv.
	Getenv func(string) string

	// Timeout bounds a whole generation, retries included, for a model that
	// sets none. Zero means DefaultTimeout.
	Timeout time.Duration
	// StallTimeout bounds the wait for the next piece of output, for a model
	// that sets none. Zero means DefaultStallTimeout.
	StallTimeout time.Duration
	// MaxAttempts bounds the attempts of one generation, the first included.
	// Zero means DefaultMaxAttempts; 1 disables retries.
	MaxAttempts int
	// BackoffBase is the wait before the first retry; it doubles with every
	// further one up to BackoffMax. Zero means the defaults.
	BackoffBase, BackoffMax time.Duration
	// MaxRetryWait is the longest Retry-After a provider waits out itself.
	// A server asking for more fails the generation with its RetryAfter set,
	// so that the caller can back the model off instead of holding a slot.
	// Zero means DefaultMaxRetryWait.
	MaxRetryWait time.Duration
}

// WithDefaults returns o with every unset field at its default.
func (o Options) WithDefaults() Options {
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Sleep == nil {
		o.Sleep = sleep
	}
	if o.Rand == nil {
		o.Rand = rand.Float64
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.StallTimeout <= 0 {
		o.StallTimeout = DefaultStallTimeout
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = DefaultMaxAttempts
	}
	if o.BackoffBase <= 0 {
		o.BackoffBase = DefaultBackoffBase
	}
	if o.BackoffMax <= 0 {
		o.BackoffMax = DefaultBackoffMax
	}
	if o.MaxRetryWait <= 0 {
		o.MaxRetryWait = DefaultMaxRetryWait
	}
	return o
}

// Timeouts returns the whole-generation and stall timeouts for m: the
// model's own when it sets them, else o's.
func (o Options) Timeouts(m ringside.Model) (total, stall time.Duration) {
	total, stall = m.Timeout, m.StallTimeout
	if total <= 0 {
		total = o.Timeout
	}
	if stall <= 0 {
		stall = o.StallTimeout
	}
	return total, stall
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
