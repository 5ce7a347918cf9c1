package stream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"time"

	"github.com/ringside-eval/ringside"
)

// maxErrorBody bounds how much of an error response is read for its message.
const maxErrorBody = 64 << 10

// Call is one network provider's generation: how to build its request, how
// to read the server's errors, and how to decode its event stream.
type Call struct {
	Model ringside.Model
	// Input is what was sent, for estimating tokens when the server
	// reports no usage.
	Input []ringside.Message
	// KeyEnv names the variable the API key came from, so that an
	// authentication failure can say where to look.
	KeyEnv string
	// URL is the endpoint the requests go to, so that an authentication
	// failure or an unreachable server can say which.
	URL string
	// NewRequest builds the request of one attempt. It is called again for
	// every retry, with that attempt's context.
	NewRequest func(ctx context.Context) (*http.Request, error)
	// ParseError reads an error body: the server's message, and its type or
	// code for KindForAPIError ("" and 0 when the body says nothing).
	ParseError func(body []byte) (message, typ string, status int)
	// Decode reads the event stream into out until the end marker or the
	// end of the body. It returns nil at the end, a *GenerationError for an
	// error the server sent or a chunk it could not parse, or the reader's
	// error as it is.
	Decode func(events *SSEReader, out *Output) error
}

// Do runs the generation: attempts until one succeeds or one fails in a way
// that must not be retried. An attempt is retried only while nothing has
// reached the caller, only for a rate limit or a server failure (a 429, a
// 5xx, a dropped connection, an error event), and at most MaxAttempts times
// in all, waiting out Retry-After when the server sends one and a jittered
// exponential backoff otherwise. The whole of it, waits included, is bounded
// by the model's timeout; each attempt is also cut when no output comes for
// the stall timeout.
//
// Timings are measured from the moment the successful attempt's request was
// sent: time spent in an earlier attempt or a rate-limit wait belongs to the
// account, not to the model. On failure Do returns the partial result of the
// last attempt (its text and timings) with the error.
func Do(ctx context.Context, o Options, c Call, emit func(ringside.Delta)) (ringside.Result, error) {
	total, stall := o.Timeouts(c.Model)
	ctx, cancel := WithTimeout(ctx, total)
	defer cancel()
	for attempt := 1; ; attempt++ {
		res, out, err := c.attempt(ctx, o, stall, emit)
		if err == nil {
			return res, nil
		}
		if (out != nil && out.Emitted()) || !Retryable(err.Kind) {
			return res, err
		}
		if attempt >= o.MaxAttempts {
			err.Err = fmt.Errorf("%w (gave up after %d attempts)", err.Err, attempt)
			return res, err
		}
		wait := err.RetryAfter
		if wait > o.MaxRetryWait {
			return res, err
		}
		if wait <= 0 {
			wait = o.Backoff(attempt)
		}
		if o.Sleep(ctx, wait) != nil {
			return res, ContextError(ctx)
		}
	}
}

// attempt sends the request once and reads the answer. out is nil when the
// attempt failed before a response came.
func (c Call) attempt(ctx context.Context, o Options, stall time.Duration, emit func(ringside.Delta)) (ringside.Result, *Output, *ringside.GenerationError) {
	if ctx.Err() != nil {
		return ringside.Result{}, nil, ContextError(ctx)
	}
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// The watchdog starts before the request is sent: a server that accepts
	// the connection and never answers has stalled as surely as one that
	// stops mid-answer.
	watchdog := time.AfterFunc(stall, func() { cancel(stallError{stall}) })
	defer watchdog.Stop()
	alive := func() { watchdog.Reset(stall) }

	req, err := c.NewRequest(actx)
	if err != nil {
		return ringside.Result{}, nil, Errorf(ringside.ErrKindBadResponse, "building the request: %v", err)
	}
	out := newOutput(o.Now, emit, alive)
	resp, err := o.HTTPClient.Do(req)
	if err != nil {
		return out.result(c.Input), nil, c.failure(actx, err, "sending the request")
	}
	defer resp.Body.Close()

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return out.result(c.Input), nil, c.statusError(resp, o.Now())
	}
	if ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ct == "application/json" {
		// A server that ignored "stream": true, or that reports an error
		// with a 200; either way there is no stream to read.
		body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		if msg, typ, status := c.ParseError(body); msg != "" {
			return out.result(c.Input), nil, Errorf(KindForAPIError(typ, status), "%s", Clip(msg, 500))
		}
		return out.result(c.Input), nil, Errorf(ringside.ErrKindBadResponse,
			"the server answered with JSON instead of an event stream (does it support streaming?)")
	}
	alive()

	err = c.Decode(NewSSEReader(resp.Body), out)
	if err == nil && !out.complete() {
		err = Errorf(ringside.ErrKindServer, "the stream ended before the server said it was done")
	}
	res := out.result(c.Input)
	if err != nil {
		return res, out, c.failure(actx, err, "connection lost mid-stream")
	}
	// Read what little follows the end marker so that the connection goes
	// back to the pool; a new TLS handshake would add to the next TTFT.
	_, _ = io.CopyN(io.Discard, resp.Body, 4<<10)
	return res, out, nil
}

// failure classifies an attempt's error. A done context explains any error
// that follows from it (a cancelled read looks like a broken connection);
// then an error the decoder classified keeps its kind; anything else is the
// connection failing, which is the server's side.
func (c Call) failure(actx context.Context, err error, doing string) *ringside.GenerationError {
	if actx.Err() != nil {
		return ContextError(actx)
	}
	var ge *ringside.GenerationError
	if errors.As(err, &ge) {
		return ge
	}
	if unreachable(err) {
		return Errorf(ringside.ErrKindUnreachable, "cannot reach %s: %v", c.url(), err)
	}
	return Errorf(ringside.ErrKindServer, "%s: %v", doing, err)
}

// statusError turns a non-2xx response into a generation error carrying the
// server's own message and the wait it asked for.
func (c Call) statusError(resp *http.Response, now time.Time) *ringside.GenerationError {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	// The status decides the kind: it is what the server's retry contract
	// is written in. The body only supplies the words.
	msg, _, _ := c.ParseError(body)
	if msg == "" {
		msg = http.StatusText(resp.StatusCode)
	}
	kind := KindForStatus(resp.StatusCode)
	ge := Errorf(kind, "HTTP %d: %s", resp.StatusCode, Clip(msg, 500))
	if kind == ringside.ErrKindAuth {
		ge = Errorf(kind, "HTTP %d: %s (the API key came from %s; endpoint %s)",
			resp.StatusCode, Clip(msg, 500), c.keyEnv(), c.url())
	}
	if d, ok := ParseRetryAfter(resp.Header, now); ok {
		ge.RetryAfter = d
	}
	return ge
}

func (c Call) keyEnv() string {
	if c.KeyEnv == "" {
		return "no variable (api_key_env is not set)"
	}
	return "$" + c.KeyEnv
}

func (c Call) url() string {
	if c.URL == "" {
		return "the model's base_url"
	}
	return c.URL
}
