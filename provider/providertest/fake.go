package providertest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fake is a local server (httptest, on 127.0.0.1) that plays one scripted
// response per attempt, the last one again for any further attempt, and
// records every request.
type fake struct {
	srv       *httptest.Server
	done      chan struct{}
	mu        sync.Mutex
	requests  []recorded
	responses []http.HandlerFunc
}

type recorded struct {
	method, path string
	header       http.Header
	body         []byte
}

func newFake(t *testing.T, responses ...http.HandlerFunc) *fake {
	t.Helper()
	f := &fake{done: make(chan struct{}), responses: responses}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	// Registered after Close, so it runs first: stalled handlers return and
	// Close does not wait on them.
	t.Cleanup(func() { close(f.done) })
	return f
}

func (f *fake) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	n := len(f.requests)
	f.requests = append(f.requests, recorded{r.Method, r.URL.Path, r.Header.Clone(), body})
	f.mu.Unlock()
	f.responses[min(n, len(f.responses)-1)](w, r)
}

func (f *fake) attempts() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.requests)
}

func (f *fake) request(i int) recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.requests[i]
}

// wait blocks until the client goes away or the test ends, with a bound so
// that a bug cannot hang the suite.
func (f *fake) wait(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-f.done:
	case <-time.After(5 * time.Second):
	}
}

// splits are the sizes the stream is cut into: every line, field and
// multi-byte character boundary falls mid-write somewhere.
var splits = []int{1, 5, 2, 11, 3, 17, 4, 1, 29}

func startStream(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
}

// writeSplit writes s in small pieces, flushing each, so that the client
// reads it across many TCP reads.
func writeSplit(w http.ResponseWriter, s string) {
	rc := http.NewResponseController(w)
	for i := 0; len(s) > 0; i++ {
		n := min(splits[i%len(splits)], len(s))
		_, _ = io.WriteString(w, s[:n])
		_ = rc.Flush()
		s = s[n:]
	}
}

// sse answers with the events, split across reads.
func sse(events ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		startStream(w)
		writeSplit(w, strings.Join(events, ""))
	}
}

// sseThenDrop sends the events, then cuts the connection without ending
// the response, as a crashing server or a broken proxy does.
func sseThenDrop(events ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		startStream(w)
		writeSplit(w, strings.Join(events, ""))
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			panic(http.ErrAbortHandler)
		}
		_ = buf.Flush()
		_ = conn.Close()
	}
}

// sseThenStall sends the events, then keeps the connection open, sending
// every tick (when it is not empty) until the client goes away.
func (f *fake) sseThenStall(tick string, every time.Duration, events ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		startStream(w)
		writeSplit(w, strings.Join(events, ""))
		if tick == "" {
			f.wait(r)
			return
		}
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-r.Context().Done():
				return
			case <-f.done:
				return
			case <-t.C:
				writeSplit(w, tick)
			}
		}
	}
}

// silent accepts the request and never answers.
func (f *fake) silent() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { f.wait(r) }
}

// status answers with an error status and body.
func status(code int, body string, header ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = io.WriteString(w, body)
	}
}
