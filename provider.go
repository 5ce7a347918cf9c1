package ringside

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Request is what a candidate model is asked: the prompt's messages with the
// model's generation parameters. PromptID and Sample let deterministic
// providers (sim, replay) tell samples apart; network providers ignore them.
type Request struct {
	PromptID string
	Sample   int
	Messages []Message
	Params   Params
	// Reference is the prompt's reference answer. Only simulated models read
	// it (to answer "correctly" at their configured rate); network providers
	// never send it.
	Reference string
}

// Delta is a piece of streamed output and when it arrived, measured from the
// moment the request was sent.
type Delta struct {
	Text    string
	Elapsed time.Duration
}

// Result is what a finished stream reports besides its text.
type Result struct {
	Text      string
	TokensIn  int
	TokensOut int
	// TokensEstimated is set when the server sent no usage.
	TokensEstimated bool
	FinishReason    string
	TTFT            time.Duration
	Total           time.Duration
}

// Streamer is one candidate model behind its provider. Stream sends the
// request, calls emit for every text delta in order (from the calling
// goroutine), and returns when the stream ends. A failure is returned as a
// *GenerationError so the caller can record its kind.
type Streamer interface {
	Stream(ctx context.Context, req Request, emit func(Delta)) (Result, error)
}

// GenerationError is a failed generation with its kind (one of ErrorKinds).
// RetryAfter is the wait a server asked for, when it asked.
type GenerationError struct {
	Kind       string
	RetryAfter time.Duration
	Err        error
}

func (e *GenerationError) Error() string { return fmt.Sprintf("%s: %v", e.Kind, e.Err) }
func (e *GenerationError) Unwrap() error { return e.Err }

// GenerationErrorKind returns the kind of a generation failure: the kind of
// a *GenerationError in the chain, cancelled or timeout for the context's own
// errors, and bad_response for anything else.
func GenerationErrorKind(err error) string {
	var ge *GenerationError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &ge):
		return ge.Kind
	case errors.Is(err, context.DeadlineExceeded):
		return ErrKindTimeout
	case errors.Is(err, context.Canceled):
		return ErrKindCancelled
	}
	return ErrKindBadResponse
}
