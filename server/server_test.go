package server_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/server"
	"github.com/ringside-eval/ringside/store"
)

func newServer(t *testing.T) (*server.Server, *store.DB) {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "ringside.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	return server.New(db, config.Defaults(), logger), db
}

func TestErrorsMapToStatusWithJSONBody(t *testing.T) {
	srv, _ := newServer(t)
	for code, status := range map[string]int{
		ringside.EINVALID: 400, ringside.ENOTFOUND: 404, ringside.ECONFLICT: 409,
		ringside.EUNAUTHORIZED: 401, ringside.EINTERNAL: 500,
	} {
		srv.Echo.GET("/test/"+code, func(c echo.Context) error {
			if code == ringside.EINTERNAL {
				return io.ErrUnexpectedEOF // a raw error: its text must not leak
			}
			return ringside.Errorf(code, "the %s message", code)
		})
		rec := httptest.NewRecorder()
		srv.Echo.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/test/"+code, nil))
		if rec.Code != status {
			t.Errorf("%s: status %d, want %d", code, rec.Code, status)
		}
		var body server.ErrorBody
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
			t.Fatalf("%s: body %q: %v", code, rec.Body, err)
		}
		if body.Error.Code != code {
			t.Errorf("%s: body code %q", code, body.Error.Code)
		}
		if code == ringside.EINTERNAL && strings.Contains(rec.Body.String(), "EOF") {
			t.Errorf("internal error text leaked: %s", rec.Body)
		}
	}
}

func TestRoutes(t *testing.T) {
	srv, db := newServer(t)
	token, err := server.EnsureAdminToken(context.Background(), db, "")
	if err != nil || token == "" {
		t.Fatalf("EnsureAdminToken = %q, %v", token, err)
	}
	for _, tc := range []struct {
		name, method, url, auth string
		status                  int
		contains                string
	}{
		{"health", "GET", "/healthz", "", 200, `"status":"ok"`},
		{"home page", "GET", "/", "", 200, "<h1>ringside</h1>"},
		{"judge page", "GET", "/judge", "", 200, "judge"},
		{"stylesheet", "GET", "/assets/style.css", "", 200, "font-family"},
		{"unknown route", "GET", "/nope", "", 404, `"code":"not_found"`},
		{"admin without token", "GET", "/api/admin/whoami", "", 401, `"code":"unauthorized"`},
		{"admin wrong token", "GET", "/api/admin/whoami", "Bearer nope", 401, "wrong admin token"},
		{"admin right token", "GET", "/api/admin/whoami", "Bearer " + token, 200, `"role":"admin"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, tc.url, nil)
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			rec := httptest.NewRecorder()
			srv.Echo.ServeHTTP(rec, req)
			if rec.Code != tc.status || !strings.Contains(rec.Body.String(), tc.contains) {
				t.Fatalf("%s %s = %d %q; want %d containing %q", tc.method, tc.url, rec.Code, rec.Body, tc.status, tc.contains)
			}
			if csp := rec.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
				t.Errorf("CSP = %q", csp)
			}
		})
	}
}

func TestAdminTokenFromEnvironmentWins(t *testing.T) {
	srv, db := newServer(t)
	ctx := context.Background()
	if _, err := server.EnsureAdminToken(ctx, db, ""); err != nil {
		t.Fatal(err)
	}
	if tok, err := server.EnsureAdminToken(ctx, db, "mine"); err != nil || tok != "" {
		t.Fatalf("EnsureAdminToken(env) = %q, %v", tok, err)
	}
	req := httptest.NewRequest("GET", "/api/admin/whoami", nil)
	req.Header.Set("Authorization", "Bearer mine")
	rec := httptest.NewRecorder()
	srv.Echo.ServeHTTP(rec, req)
	if rec.Code != 200 {
		t.Fatalf("env token refused: %d %s", rec.Code, rec.Body)
	}
}

func TestHealthzFailsWhenDatabaseIsClosed(t *testing.T) {
	srv, db := newServer(t)
	db.Close()
	rec := httptest.NewRecorder()
	srv.Echo.ServeHTTP(rec, httptest.NewRequest("GET", "/healthz", nil))
	if rec.Code != http.StatusServiceUnavailable {
		t.Fatalf("status %d, want 503", rec.Code)
	}
}

func TestGracefulShutdownFinishesInFlightRequests(t *testing.T) {
	srv, db := newServer(t)
	started := make(chan struct{})
	srv.Echo.GET("/slow", func(c echo.Context) error {
		close(started)
		time.Sleep(300 * time.Millisecond)
		// The database must still be open while a request is in flight.
		if err := db.Ping(c.Request().Context()); err != nil {
			return err
		}
		return c.String(200, "done")
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()

	type result struct {
		status int
		body   string
		err    error
	}
	resc := make(chan result, 1)
	go func() {
		resp, err := http.Get("http://" + ln.Addr().String() + "/slow")
		if err != nil {
			resc <- result{err: err}
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		resc <- result{status: resp.StatusCode, body: string(b)}
	}()
	<-started
	cancel() // as SIGTERM would

	res := <-resc
	if res.err != nil || res.status != 200 || res.body != "done" {
		t.Fatalf("in-flight request = %+v; want 200 done", res)
	}
	if err := <-served; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	// New connections are refused once shut down.
	if _, err := http.Get("http://" + ln.Addr().String() + "/healthz"); err == nil {
		t.Fatal("server still accepting after shutdown")
	}
	if err := db.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	// A clean close folds the write-ahead log back into the database file.
	if _, err := os.Stat(db.Path + "-wal"); !os.IsNotExist(err) {
		t.Fatalf("WAL file left after a clean close: %v", err)
	}
}
