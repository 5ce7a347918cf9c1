package stream

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	"github.com/ringside-eval/ringside"
)

// Errorf returns a generation error of the given kind.
func Errorf(kind, format string, args ...any) *ringside.GenerationError {
	return &ringside.GenerationError{Kind: kind, Err: fmt.Errorf(format, args...)}
}

// stallError and timeoutError are the causes with which the watchdogs cancel
// a stream's context, so that a cancelled read can be told apart from the
// caller's own cancellation.
type stallError struct{ after time.Duration }

func (e stallError) Error() string { return fmt.Sprintf("no output for %s (stall timeout)", e.after) }

type timeoutError struct{ after time.Duration }

func (e timeoutError) Error() string {
	return fmt.Sprintf("no complete answer within %s (request timeout)", e.after)
}

// WithTimeout is context.WithTimeout whose expiry ContextError reports as
// the request timeout, not as the caller's deadline.
func WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, d, timeoutError{d})
}

// ContextError is the generation error for a done context: timeout for a
// stall, the request timeout or a deadline, cancelled for anything else.
func ContextError(ctx context.Context) *ringside.GenerationError {
	cause := context.Cause(ctx)
	if cause == nil {
		cause = context.Canceled
	}
	var st stallError
	var to timeoutError
	switch {
	case errors.As(cause, &st), errors.As(cause, &to):
		return &ringside.GenerationError{Kind: ringside.ErrKindTimeout, Err: cause}
	case errors.Is(cause, context.DeadlineExceeded):
		return &ringside.GenerationError{Kind: ringside.ErrKindTimeout, Err: cause}
	}
	return &ringside.GenerationError{Kind: ringside.ErrKindCancelled, Err: cause}
}

// KindForStatus maps an HTTP status to the kind of failure it reports.
func KindForStatus(code int) string {
	switch {
	case code == http.StatusTooManyRequests:
		return ringside.ErrKindRateLimit
	case code == http.StatusRequestTimeout:
		return ringside.ErrKindTimeout
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return ringside.ErrKindAuth
	case code >= 500: // 504 included: the gateway failed, and a retry may pass
		return ringside.ErrKindServer
	}
	return ringside.ErrKindBadResponse
}

// KindForAPIError maps an error a server sent in its body or mid-stream (its
// type or code, and the HTTP-like status some servers put in "code") to a
// kind. An error the server raised while generating is its own failure, so
// the default is server_error.
func KindForAPIError(typ string, status int) string {
	t := strings.ToLower(typ)
	switch {
	case status == http.StatusTooManyRequests, strings.Contains(t, "rate_limit"), strings.Contains(t, "ratelimit"),
		strings.Contains(t, "too_many_requests"), strings.Contains(t, "quota"):
		return ringside.ErrKindRateLimit
	case strings.Contains(t, "timeout"):
		return ringside.ErrKindTimeout
	case status >= 500, strings.Contains(t, "overloaded"), strings.Contains(t, "server"),
		strings.Contains(t, "internal"), strings.Contains(t, "unavailable"), strings.Contains(t, "api_error"):
		return ringside.ErrKindServer
	case status == http.StatusUnauthorized, status == http.StatusForbidden, strings.Contains(t, "authentication"),
		strings.Contains(t, "permission"), strings.Contains(t, "invalid_api_key"), strings.Contains(t, "unauthorized"):
		return ringside.ErrKindAuth
	case status >= 400, strings.Contains(t, "invalid"), strings.Contains(t, "bad_request"), strings.Contains(t, "badrequest"),
		strings.Contains(t, "not_found"),
		strings.Contains(t, "too_large"):
		return ringside.ErrKindBadResponse
	}
	return ringside.ErrKindServer
}

// Retryable reports whether a failure of this kind is worth another attempt
// when nothing has reached the caller yet: rate limits and server failures
// pass, and so does a refused connection (a server restarting refuses for a
// moment); a bad request or a rejected key fails the same way again, and a
// timeout has already spent its time.
func Retryable(kind string) bool {
	return kind == ringside.ErrKindRateLimit || kind == ringside.ErrKindServer || kind == ringside.ErrKindUnreachable
}

// unreachable reports whether err means no connection to the server could
// be made at all: its name did not resolve, or nothing listens at the
// address. A connection that was made and then broke is not that: it is the
// server failing.
func unreachable(err error) bool {
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return true
	}
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH) {
		return true
	}
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// Clip shortens a server's message for an error text: one line, at most n
// bytes, so that an HTML error page does not flood a log.
func Clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		cut := n
		for cut > 0 && !utf8Start(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
