package server_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gorilla/websocket"
	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/server"
	"github.com/ringside-eval/ringside/server/servertest"
	"github.com/ringside-eval/ringside/store"
)

const demoAdminToken = "test-admin-token-0123456789"

// demoServer is a server over a filled demo database: the judging source is
// the stored battles, played instantly, so a judge page has a battle at once.
type demoServer struct {
	t    *testing.T
	db   *store.DB
	srv  *server.Server
	ts   *httptest.Server
	demo *servertest.Demo
}

func newDemoServer(t *testing.T, opts ...server.Option) *demoServer {
	t.Helper()
	ctx := context.Background()
	tpl := newDemoTemplate(t)
	path := filepath.Join(t.TempDir(), "ringside.db")
	tpl.copyTo(t, path)
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	demo := tpl.demo
	if _, err := server.EnsureAdminToken(ctx, db, demoAdminToken); err != nil {
		t.Fatal(err)
	}
	srv := server.New(db, demoConfig(t, demo), slog.New(slog.NewTextHandler(io.Discard, nil)), opts...)
	ts := httptest.NewServer(srv.Echo)
	t.Cleanup(func() {
		srv.Close()
		ts.Close()
	})
	return &demoServer{t: t, db: db, srv: srv, ts: ts, demo: demo}
}

// demoConfig serves the demo's models and judges its stored battles,
// played instantly.
func demoConfig(t *testing.T, demo *servertest.Demo) *config.Config {
	t.Helper()
	cfg := config.Defaults()
	cfg.Models = demo.Models
	cfg.PromptSets = []config.PromptSet{{Name: servertest.PromptSet, File: "unused.jsonl"}}
	cfg.Judging.Source = config.SourceStored
	cfg.Judging.Pace = config.PaceInstant
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// get fetches path, with the admin token when admin is set, and decodes a
// JSON answer into out (when not nil). It returns the status and body.
func (d *demoServer) do(method, path string, admin bool, body string, out any) (int, string) {
	d.t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, d.ts.URL+path, r)
	if err != nil {
		d.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if admin {
		req.Header.Set("Authorization", "Bearer "+demoAdminToken)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		d.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		d.t.Fatal(err)
	}
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(b, out); err != nil {
			d.t.Fatalf("%s %s: %v in %s", method, path, err, b)
		}
	}
	return resp.StatusCode, string(b)
}

// voteOverWebsocket invites a judge, takes a battle over the judges'
// websocket and votes on it, as the judge page does.
func (d *demoServer) voteOverWebsocket() {
	d.t.Helper()
	inv, err := server.CreateInvite(context.Background(), d.db, "ws-voter", 0, d.ts.URL)
	if err != nil {
		d.t.Fatal(err)
	}
	u := "ws" + strings.TrimPrefix(d.ts.URL, "http") + "/ws/judge?token=" + inv.Token
	ws, _, err := websocket.DefaultDialer.Dial(u, nil)
	if err != nil {
		d.t.Fatal(err)
	}
	d.t.Cleanup(func() { ws.Close() })
	j := &judge{t: d.t, ws: ws}
	if hello := j.read(); hello.Type != "hello" {
		d.t.Fatalf("first frame %s", hello.raw)
	}
	w := j.watch()
	if f := j.vote(w.id, "a"); f.Winner != "a" {
		d.t.Fatalf("voted frame %s", f.raw)
	}
}

// castVote stores a vote by a new human judge on a battle straight into
// the database, as another process (an import) would.
func (d *demoServer) castVote(w ringside.Winner) {
	d.t.Helper()
	ctx := context.Background()
	j := &ringside.Judge{Kind: ringside.JudgeHuman, Name: "direct"}
	if err := d.db.CreateJudge(ctx, j, ringside.HashToken(ringside.NewToken())); err != nil {
		d.t.Fatal(err)
	}
	bs, err := d.db.BattlesToJudge(ctx, j.ID, d.demo.Run.ID)
	if err != nil || len(bs) == 0 {
		d.t.Fatalf("battles: %v", err)
	}
	if _, err := d.db.CreateVote(ctx, &ringside.Vote{BattleID: bs[0].ID, JudgeID: j.ID, Winner: w}); err != nil {
		d.t.Fatal(err)
	}
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }
