package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/server"
	"github.com/ringside-eval/ringside/server/servertest"
	"github.com/ringside-eval/ringside/store"
)

// apiScenario is one request to a fresh server over its own database, and
// what must come back, in the manner of pocketbase's tests.ApiScenario.
// Every answer must also carry the security headers.
type apiScenario struct {
	name    string
	method  string
	url     string
	headers map[string]string
	// body is sent as application/json unless headers say otherwise.
	body string
	// demo serves a copy of the demo database (servertest.Fill) with the
	// demo's config, for the routes that read runs, judges and votes;
	// otherwise the database is empty and the config the defaults.
	demo bool
	// before seeds data, or registers routes, before the server listens.
	before func(t *testing.T, env *scenarioEnv)

	status int
	// wantHeaders are answer headers with their exact values.
	wantHeaders map[string]string
	// contains and notContains are fragments of the body, JSON compacted;
	// with neither, the body must be empty. An event stream's body is its
	// first event.
	contains, notContains []string
	// after checks what the request changed, or what the fragments cannot.
	after func(t *testing.T, env *scenarioEnv, body string)
}

// scenarioEnv is what a scenario's hooks work on.
type scenarioEnv struct {
	db   *store.DB
	srv  *server.Server
	demo *servertest.Demo
	// dbClosed: the server is left unclosed, as a server is closed before
	// its database.
	dbClosed bool
}

// closeDB closes the database under the server, as a failing disk would.
func (env *scenarioEnv) closeDB(t *testing.T) {
	t.Helper()
	if err := env.db.Close(); err != nil {
		t.Fatal(err)
	}
	env.dbClosed = true
}

// Requests as the admin page sends them; the admin token is demoAdminToken.
var (
	asAdmin    = map[string]string{"Authorization": "Bearer " + demoAdminToken}
	wrongAdmin = map[string]string{"Authorization": "Bearer not-the-token"}
)

const (
	jsonType = "application/json"
	htmlType = "text/html; charset=UTF-8"
)

// runScenarios runs each scenario as a subtest. A demo database is filled
// once for the table and copied for each scenario that asks for it.
func runScenarios(t *testing.T, scenarios []apiScenario) {
	t.Helper()
	var tpl *demoTemplate
	for _, sc := range scenarios {
		if sc.demo && tpl == nil {
			tpl = newDemoTemplate(t)
		}
		t.Run(sc.name, func(t *testing.T) { sc.test(t, tpl) })
	}
}

func (sc *apiScenario) test(t *testing.T, tpl *demoTemplate) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ringside.db")
	env := &scenarioEnv{}
	cfg := config.Defaults()
	if sc.demo {
		tpl.copyTo(t, path)
		env.demo = tpl.demo
		cfg = demoConfig(t, tpl.demo)
	}
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := server.EnsureAdminToken(ctx, db, demoAdminToken); err != nil {
		t.Fatal(err)
	}
	env.db = db
	env.srv = server.New(db, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if sc.before != nil {
		sc.before(t, env)
	}
	ts := httptest.NewServer(env.srv.Echo)
	t.Cleanup(func() {
		if !env.dbClosed {
			env.srv.Close()
		}
		ts.Close()
	})

	resp := sc.do(t, ts.URL)
	body := readScenarioBody(t, resp)
	what := sc.method + " " + sc.url
	if resp.StatusCode != sc.status {
		t.Errorf("%s: status %d, want %d; body %s", what, resp.StatusCode, sc.status, body)
	}
	for k, want := range sc.wantHeaders {
		if got := resp.Header.Get(k); got != want {
			t.Errorf("%s: %s = %q, want %q", what, k, got, want)
		}
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
		t.Errorf("%s: Content-Security-Policy = %q", what, csp)
	}
	if v := resp.Header.Get("X-Content-Type-Options"); v != "nosniff" {
		t.Errorf("%s: X-Content-Type-Options = %q", what, v)
	}
	if len(sc.contains) == 0 && len(sc.notContains) == 0 && body != "" {
		t.Errorf("%s: body %s, want none", what, body)
	}
	for _, frag := range sc.contains {
		if !strings.Contains(body, frag) {
			t.Errorf("%s: no %s in the body %s", what, frag, body)
		}
	}
	for _, frag := range sc.notContains {
		if strings.Contains(body, frag) {
			t.Errorf("%s: %s in the body %s", what, frag, body)
		}
	}
	if sc.after != nil && !t.Failed() {
		sc.after(t, env, body)
	}
}

// do sends the scenario's request; redirects are answers, not followed.
func (sc *apiScenario) do(t *testing.T, base string) *http.Response {
	t.Helper()
	var body io.Reader
	if sc.body != "" {
		body = strings.NewReader(sc.body)
	}
	req, err := http.NewRequest(sc.method, base+sc.url, body)
	if err != nil {
		t.Fatal(err)
	}
	if sc.body != "" {
		req.Header.Set("Content-Type", jsonType)
	}
	for k, v := range sc.headers {
		req.Header.Set(k, v)
	}
	client := &http.Client{
		// A bound for a server that never answers, not a wait.
		Timeout:       30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// readScenarioBody reads the body, compacted when it is JSON; of an event
// stream, which never ends, only the first event.
func readScenarioBody(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	if resp.Header.Get("Content-Type") == "text/event-stream" {
		var ev strings.Builder
		r := bufio.NewReader(resp.Body)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatalf("event stream: %v after %q", err, ev.String())
			}
			if line == "\n" {
				return ev.String()
			}
			ev.WriteString(line)
		}
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if json.Compact(&compact, b) == nil {
		return compact.String()
	}
	return string(b)
}

// demoTemplate is a demo database, filled once and closed, so that its
// write-ahead log is folded into the one file a test copies.
type demoTemplate struct {
	path string
	demo *servertest.Demo
}

// sharedDemo is the package's one demo template: filling a demo (a run of
// the simulated models, the rules judge, simulated people) took seconds
// under the race detector, and nearly every server test wants one.
var sharedDemo demoOnce

type demoOnce struct {
	once sync.Once
	dir  string
	tpl  *demoTemplate
	err  error
}

// newDemoTemplate returns the package's demo template, filling it on first
// use. Tests copy it (copyTo) and never write to it.
func newDemoTemplate(t *testing.T) *demoTemplate {
	t.Helper()
	d := &sharedDemo
	d.once.Do(func() {
		if d.dir, d.err = os.MkdirTemp("", "ringside-demo-"); d.err != nil {
			return
		}
		ctx := context.Background()
		path := filepath.Join(d.dir, "demo.db")
		db, err := store.Open(ctx, path)
		if err != nil {
			d.err = err
			return
		}
		demo, err := servertest.Fill(ctx, db, servertest.Options{Seed: 1})
		if cerr := db.Close(); err == nil {
			err = cerr
		}
		d.tpl, d.err = &demoTemplate{path: path, demo: demo}, err
	})
	if d.err != nil {
		t.Fatalf("fill the demo template: %v", d.err)
	}
	return d.tpl
}

func (d *demoOnce) remove() {
	if d.dir != "" {
		os.RemoveAll(d.dir)
	}
}

func (d *demoTemplate) copyTo(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(d.path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
