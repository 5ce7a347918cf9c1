package stream

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Backoff is the wait before retry number n (1 for the first retry):
// BackoffBase doubled n-1 times, capped at BackoffMax, with "equal jitter"
// (half fixed, half random) so that many generations failing together do not
// come back together, yet none retries at once.
func (o Options) Backoff(n int) time.Duration {
	d := o.BackoffBase
	for i := 1; i < n && d < o.BackoffMax; i++ {
		d *= 2
	}
	d = min(d, o.BackoffMax)
	return d/2 + time.Duration(o.Rand()*float64(d/2))
}

// ParseRetryAfter reads the wait a server asked for: Retry-After in seconds
// or as an HTTP date (RFC 9110), or the retry-after-ms header some
// OpenAI-compatible servers send. ok is false when there is none.
func ParseRetryAfter(h http.Header, now time.Time) (d time.Duration, ok bool) {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		return time.Duration(secs * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}
