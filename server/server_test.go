package server_test

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/server"
	"github.com/ringside-eval/ringside/store"
	"github.com/ringside-eval/ringside/ui"
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

// TestErrorAnswers: every domain error code is its status with a JSON body
// naming the code; an internal error's own text never reaches the client.
func TestErrorAnswers(t *testing.T) {
	failWith := func(err error) func(*testing.T, *scenarioEnv) {
		return func(_ *testing.T, env *scenarioEnv) {
			env.srv.Echo.GET("/fail", func(echo.Context) error { return err })
		}
	}
	runScenarios(t, []apiScenario{
		{name: "invalid", method: "GET", url: "/fail", before: failWith(ringside.FieldError("quota", "must not be negative")),
			status: 400, wantHeaders: map[string]string{"Content-Type": jsonType},
			contains: []string{`{"error":{"code":"invalid","message":"quota: must not be negative"}}`}},
		{name: "not found", method: "GET", url: "/fail", before: failWith(ringside.Errorf(ringside.ENOTFOUND, "no judge j1")),
			status: 404, contains: []string{`{"error":{"code":"not_found","message":"no judge j1"}}`}},
		{name: "conflict", method: "GET", url: "/fail", before: failWith(ringside.Errorf(ringside.ECONFLICT, "already voted")),
			status: 409, contains: []string{`{"error":{"code":"conflict","message":"already voted"}}`}},
		{name: "unauthorized", method: "GET", url: "/fail", before: failWith(ringside.Errorf(ringside.EUNAUTHORIZED, "revoked")),
			status: 401, contains: []string{`{"error":{"code":"unauthorized","message":"revoked"}}`}},
		{name: "internal hides its text", method: "GET", url: "/fail", before: failWith(io.ErrUnexpectedEOF),
			status: 500, contains: []string{`{"error":{"code":"internal","message":"internal error"}}`}, notContains: []string{"EOF"}},
		{name: "unknown route", method: "GET", url: "/nope",
			status: 404, wantHeaders: map[string]string{"Content-Type": jsonType},
			contains: []string{`{"error":{"code":"not_found","message":"Not Found"}}`}},
		{name: "wrong method", method: "POST", url: "/healthz",
			status: 405, contains: []string{`{"error":{"code":"invalid","message":"Method Not Allowed"}}`}},
		{name: "an error to HEAD has no body", method: "HEAD", url: "/nope", status: 404},
	})
}

func TestHealthRoutes(t *testing.T) {
	runScenarios(t, []apiScenario{
		{name: "ok", method: "GET", url: "/healthz",
			status: 200, wantHeaders: map[string]string{"Content-Type": jsonType},
			contains: []string{`{"status":"ok","version":"` + ringside.Version + `"}`}},
		{name: "HEAD", method: "HEAD", url: "/healthz", status: 200},
		{name: "database closed", method: "GET", url: "/healthz",
			before: func(t *testing.T, env *scenarioEnv) { env.closeDB(t) },
			status: 503, contains: []string{`{"status":"unavailable"}`}},
	})
}

// TestPageRoutes: each page is its own HTML, never cached; assets are
// served with their type.
func TestPageRoutes(t *testing.T) {
	page := map[string]string{"Content-Type": htmlType, "Cache-Control": "no-cache"}
	judgeJS, leaderboardJS := builtAsset(t, "judge", ".js"), builtAsset(t, "leaderboard", ".js")
	seedInvite := func(t *testing.T, env *scenarioEnv) {
		j := &ringside.Judge{Kind: ringside.JudgeHuman, Name: "ana"}
		if err := env.db.CreateJudge(context.Background(), j, ringside.HashToken("tok-1")); err != nil {
			t.Fatal(err)
		}
	}
	runScenarios(t, []apiScenario{
		{name: "home", method: "GET", url: "/", status: 200, wantHeaders: page,
			contains: []string{"<title>ringside</title>", `<p id="health">`}},
		{name: "judge", method: "GET", url: "/judge", status: 200, wantHeaders: page,
			contains:    []string{"<title>ringside · judge</title>", `id="vote-a"`, `src="` + judgeJS + `"`},
			notContains: []string{"Set-Cookie"}},
		{name: "judge with a token keeps it in a cookie", method: "GET", url: "/judge?token=tok-1",
			before: seedInvite, status: 303, wantHeaders: map[string]string{
				"Location":   "/judge",
				"Set-Cookie": "ringside_judge=tok-1; Path=/; Max-Age=31536000; HttpOnly; SameSite=Lax",
			}},
		{name: "judge with an unknown token leaves the cookie alone", method: "GET", url: "/judge?token=tok-2",
			before: seedInvite, status: 401, wantHeaders: map[string]string{"Content-Type": htmlType, "Set-Cookie": ""},
			contains: []string{`id="invalid-invite"`, "This invite link is not valid"}},
		{name: "leaderboard", method: "GET", url: "/leaderboard", status: 200, wantHeaders: page,
			contains: []string{"<title>ringside · leaderboard</title>", `id="board"`, `src="` + leaderboardJS + `"`}},
		{name: "admin", method: "GET", url: "/admin", status: 200, wantHeaders: page,
			contains: []string{"<title>ringside · admin</title>", `id="token-form"`}},
		{name: "stylesheet", method: "GET", url: "/assets/style.css", status: 200,
			wantHeaders: map[string]string{"Content-Type": "text/css; charset=utf-8", "Cache-Control": "no-cache"},
			contains:    []string{"body { font-family: system-ui"}},
		{name: "script", method: "GET", url: judgeJS, status: 200,
			wantHeaders: map[string]string{"Content-Type": "text/javascript; charset=utf-8",
				"Cache-Control": "public, max-age=31536000, immutable"},
			contains: []string{"/ws/judge"}},
		{name: "unknown asset", method: "GET", url: "/assets/nope.css", status: 404,
			contains: []string{"404 page not found"}},
		{name: "asset folder", method: "GET", url: "/assets/", status: 404,
			contains: []string{"404 page not found"}, notContains: []string{"style.css"}},
	})
}

// builtAsset is the path of the built asset name-HASH.ext: the build names
// scripts and styles by their content.
func builtAsset(t *testing.T, name, ext string) string {
	t.Helper()
	matches, err := fs.Glob(ui.FS(), "assets/"+name+"-*"+ext)
	if err != nil || len(matches) != 1 {
		t.Fatalf("built assets %s-*%s: %v, %v; want exactly one", name, ext, matches, err)
	}
	return "/" + matches[0]
}

// TestAdminAuth: the admin API wants "Authorization: Bearer" with the
// stored token.
func TestAdminAuth(t *testing.T) {
	runScenarios(t, []apiScenario{
		{name: "no token", method: "GET", url: "/api/admin/whoami",
			status: 401, wantHeaders: map[string]string{"Content-Type": jsonType},
			contains: []string{`{"error":{"code":"unauthorized","message":"admin token required"}}`}},
		{name: "empty bearer", method: "GET", url: "/api/admin/whoami", headers: map[string]string{"Authorization": "Bearer "},
			status: 401, contains: []string{`"message":"admin token required"`}},
		{name: "not a bearer", method: "GET", url: "/api/admin/whoami", headers: map[string]string{"Authorization": demoAdminToken},
			status: 401, contains: []string{`"message":"admin token required"`}},
		{name: "wrong token", method: "GET", url: "/api/admin/whoami", headers: wrongAdmin,
			status: 401, contains: []string{`{"error":{"code":"unauthorized","message":"wrong admin token"}}`}},
		{name: "right token", method: "GET", url: "/api/admin/whoami", headers: asAdmin,
			status: 200, wantHeaders: map[string]string{"Content-Type": jsonType}, contains: []string{`{"role":"admin"}`}},
		{name: "a token from the environment replaces the stored one", method: "GET", url: "/api/admin/whoami",
			headers: map[string]string{"Authorization": "Bearer mine"},
			before: func(t *testing.T, env *scenarioEnv) {
				if tok, err := server.EnsureAdminToken(context.Background(), env.db, "mine"); err != nil || tok != "" {
					t.Fatalf("EnsureAdminToken(env) = %q, %v; want nothing to print", tok, err)
				}
			},
			status: 200, contains: []string{`{"role":"admin"}`}},
		{name: "the replaced token is refused", method: "GET", url: "/api/admin/whoami", headers: asAdmin,
			before: func(t *testing.T, env *scenarioEnv) {
				if _, err := server.EnsureAdminToken(context.Background(), env.db, "mine"); err != nil {
					t.Fatal(err)
				}
			},
			status: 401, contains: []string{`"message":"wrong admin token"`}},
	})
}

// TestFirstStartGeneratesTheAdminTokenOnce: the token is made, and
// returned to be printed, on the first start only.
func TestFirstStartGeneratesTheAdminTokenOnce(t *testing.T) {
	_, db := newServer(t)
	ctx := context.Background()
	first, err := server.EnsureAdminToken(ctx, db, "")
	if err != nil || first == "" {
		t.Fatalf("first start: EnsureAdminToken = %q, %v", first, err)
	}
	if again, err := server.EnsureAdminToken(ctx, db, ""); err != nil || again != "" {
		t.Fatalf("second start: EnsureAdminToken = %q, %v; want nothing new", again, err)
	}
}

// TestEventsRoute: the stream opens with the current vote count; once the
// server is shutting down no stream opens.
func TestEventsRoute(t *testing.T) {
	runScenarios(t, []apiScenario{
		{name: "hello", method: "GET", url: "/api/events",
			status: 200, wantHeaders: map[string]string{"Content-Type": "text/event-stream", "Cache-Control": "no-cache"},
			contains: []string{"retry: 2000\nevent: hello\ndata: {\"votes\":0}\n"}},
		{name: "hello counts the votes", method: "GET", url: "/api/events", demo: true,
			status: 200, contains: []string{"event: hello\n"}, notContains: []string{`{"votes":0}`},
			after: func(t *testing.T, env *scenarioEnv, body string) {
				st, err := env.db.DataStamp(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if want := fmt.Sprintf("data: {\"votes\":%d}\n", st.Votes); !strings.Contains(body, want) {
					t.Fatalf("first event %q, want %q", body, want)
				}
			}},
		{name: "shutting down", method: "GET", url: "/api/events",
			before: func(_ *testing.T, env *scenarioEnv) { env.srv.Close() },
			status: 404, contains: []string{`{"error":{"code":"not_found","message":"server shutting down"}}`}},
	})
}

func TestGracefulShutdownFinishesInFlightRequests(t *testing.T) {
	srv, db := newServer(t)
	started, shuttingDown := make(chan struct{}), make(chan struct{})
	srv.Echo.GET("/slow", func(c echo.Context) error {
		// The request is answered only once shutdown has begun, so it is
		// in flight all through.
		c.Echo().Server.RegisterOnShutdown(func() { close(shuttingDown) })
		close(started)
		<-shuttingDown
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
