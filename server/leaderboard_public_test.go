package server_test

import (
	"bufio"
	"context"
	"fmt"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/rank"
	"github.com/ringside-eval/ringside/server"
	"github.com/ringside-eval/ringside/store"
	"github.com/ringside-eval/ringside/ui"
)

// publicAnswers fetches, without a token, every route the server has that
// is not the admin's or the judges' websocket, each leaderboard slicing in
// each format, and every asset, and returns the answers by request. A
// route it does not know how to fetch fails the test, so a new public
// route is looked at here.
func publicAnswers(t *testing.T, d *demoServer) map[string]string {
	t.Helper()
	var paths []string
	seen := map[string]bool{}
	for _, r := range d.srv.Echo.Routes() {
		p := r.Path
		if seen[p] || p == "/api/admin" || strings.HasPrefix(p, "/api/admin/") || p == "/ws/judge" {
			continue
		}
		seen[p] = true
		switch {
		case p == "/api/leaderboard":
			for _, by := range append([]string{"overall"}, rank.SliceBy...) {
				for _, format := range append([]string{"json"}, rank.Formats...) {
					paths = append(paths, fmt.Sprintf("%s?by=%s&format=%s&include_leaks=true", p, by, format))
				}
			}
		case p == "/assets/*":
			err := fs.WalkDir(ui.FS(), "assets", func(name string, e fs.DirEntry, err error) error {
				if err == nil && !e.IsDir() {
					paths = append(paths, "/"+name)
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
		case p == "/api/events":
			// Read below: the stream does not end.
		case strings.ContainsAny(p, ":*"):
			t.Fatalf("public route %s %s: this test does not know how to fetch it", r.Method, p)
		default:
			paths = append(paths, p)
		}
	}
	out := map[string]string{}
	for _, p := range paths {
		_, body := d.do("GET", p, false, "", nil)
		out[p] = body
	}
	if !seen["/api/events"] {
		t.Fatal("no /api/events route: the test's list of routes is out of date")
	}
	out["/api/events"] = firstEvent(t, d.ts.URL+"/api/events")
	return out
}

// firstEvent reads an event stream up to the data of its first event.
func firstEvent(t *testing.T, url string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		b.WriteString(sc.Text() + "\n")
		if strings.HasPrefix(sc.Text(), "data:") {
			break
		}
	}
	return b.String()
}

// secrets are what no public answer may hold: every voted battle's id, the
// labels of the judges who are people or LLMs (rules judges are the
// configured checks, named on the public board), the names of the given
// judges, and the vote times, as the battle records and the admin API
// write them.
func secrets(t *testing.T, db *store.DB, names ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, n := range names {
		out[n] = "a judge's name"
	}
	err := db.EachExportVote(context.Background(), "", func(e *store.ExportVote) error {
		out[e.Battle.ID] = "a battle id"
		if e.JudgeKind != ringside.JudgeRules {
			out[e.JudgeLabel()] = "a judge label"
		}
		at := e.Vote.CreatedAt
		out[at.UTC().Format("2006-01-02T15:04:05")] = "a vote time"
		out[at.Format("2006-01-02T15:04:05")] = "a vote time"
		out[strconv.FormatInt(at.Unix(), 10)] = "a vote time (unix)"
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func checkNoSecrets(t *testing.T, answers, secrets map[string]string) {
	t.Helper()
	for req, body := range answers {
		// One failure per answer and kind of secret is enough to read.
		told := map[string]bool{}
		for s, what := range secrets {
			if !told[what] && strings.Contains(body, s) {
				told[what] = true
				i := strings.Index(body, s)
				t.Errorf("GET %s without a token holds %s, %q: ...%s...", req, what, s, body[max(0, i-80):min(len(body), i+80)])
			}
		}
	}
}

// Nothing reachable without the admin token links a battle to its models,
// or names a judge or the time of a vote.
func TestPublicRoutesHoldNoBattleIDsJudgesOrVoteTimes(t *testing.T) {
	d := newDemoServer(t)
	d.voteOverWebsocket()
	sec := secrets(t, d.db, "ws-voter")
	if len(sec) < 100 {
		t.Fatalf("only %d secrets to look for", len(sec))
	}
	answers := publicAnswers(t, d)
	if !strings.Contains(answers["/api/leaderboard?by=overall&format=json&include_leaks=true"], `"models"`) {
		t.Fatalf("the public leaderboard is not served: %.300s", answers["/api/leaderboard?by=overall&format=json&include_leaks=true"])
	}
	checkNoSecrets(t, answers, sec)

	// The admin has them: the battles download names the battle, its
	// models, the judge and the time.
	code, body := d.do("GET", "/api/admin/battles.jsonl", true, "", nil)
	if code != 200 || !strings.Contains(body, `"judge":"human:ws-voter"`) || !strings.Contains(body, `"tstamp":`) {
		t.Fatalf("admin battles download: %d %.300s", code, body)
	}
}

// A judge dealt a stored battle takes its id from the battle frame and
// looks for it on every public route: none has it, so none can tell the
// judge the models before the vote.
func TestADealtBattleIDIsOnNoPublicRoute(t *testing.T) {
	d := newDemoServer(t)
	inv, err := server.CreateInvite(context.Background(), d.db, "curious", 0, d.ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(d.ts.URL, "http")+"/ws/judge?token="+inv.Token, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	j := &judge{t: t, ws: ws}
	j.until("hello")
	j.send(map[string]string{"type": "next"})
	id := j.until("battle").BattleID
	b, err := d.db.Battle(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	// The battle was voted on before (the demo votes on every battle), so
	// a list of voted battles would have it.
	var voted bool
	d.db.EachExportVote(context.Background(), "", func(e *store.ExportVote) error {
		voted = voted || e.Battle.ID == id
		return nil
	})
	if !voted {
		t.Fatalf("battle %s was never voted on; the test needs one that was", id)
	}
	for req, body := range publicAnswers(t, d) {
		if i := strings.Index(body, id); i >= 0 {
			t.Errorf("GET %s gives the dealt battle's id (models %s, %s): ...%s...", req, b.ModelA, b.ModelB,
				body[max(0, i-80):min(len(body), i+120)])
		}
	}
	// The judge can still vote on it: looking did not disturb the battle.
	j.follow(id)
	if f := j.vote(id, "tie"); f.Winner != "tie" {
		t.Fatalf("vote after looking: %s", f.raw)
	}
}
