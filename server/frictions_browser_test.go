package server_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/ringside-eval/ringside/battlefile"
	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/server"
	"github.com/ringside-eval/ringside/store"
)

// importedServer serves a database holding the battle file lines (none:
// an empty database), with open judging as asked.
func importedServer(t *testing.T, lines string, open bool) *httptest.Server {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "ringside.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if lines != "" {
		im, err := db.BeginBattleImport(ctx, "t.jsonl", "sha")
		if err != nil {
			t.Fatal(err)
		}
		err = battlefile.Read(strings.NewReader(lines), "t.jsonl", func(n int, rec *battlefile.Record) error {
			l, err := battlefile.ImportLine(rec, n, "ana")
			if err == nil {
				err = im.Add(ctx, l)
			}
			return err
		})
		if err == nil {
			_, err = im.Commit(ctx)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := server.EnsureAdminToken(ctx, db, demoAdminToken); err != nil {
		t.Fatal(err)
	}
	cfg := config.Defaults()
	cfg.Judging.Open.Enabled = open
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	srv := server.New(db, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	ts := httptest.NewServer(srv.Echo)
	t.Cleanup(func() {
		srv.Close()
		ts.Close()
	})
	return ts
}

// equalButUndefeated: three models that only ever tie overall (every
// rating 1000), each side measured, while on factual_accuracy "xeno" won
// every battle it took part in.
func equalButUndefeated() string {
	var b strings.Builder
	pairs := [][2]string{{"xeno", "yarn"}, {"xeno", "zinc"}, {"yarn", "zinc"}}
	for i := range 12 {
		p := pairs[i%3]
		dim := "model_a"
		if p[0] == "yarn" && i%2 == 0 {
			dim = "model_b"
		}
		fmt.Fprintf(&b, `{"model_a":%q,"model_b":%q,"winner":"tie","judge":"ana","question_id":"q%d","dimensions":{"factual_accuracy":%q},"latency_ms_a":%d,"latency_ms_b":%d,"cost_usd_a":0.001,"cost_usd_b":0.002}`+"\n",
			p[0], p[1], i, dim, 400+i, 900+i)
	}
	return b.String()
}

// The per-dimension chart shows a model that won every battle on a
// dimension, marked; with every rating equal the cost and latency charts'
// rating axis reads in whole points, not millionths.
func TestLeaderboardChartsEdgeCasesInABrowser(t *testing.T) {
	browser := newBrowser(t)
	ts := importedServer(t, equalButUndefeated(), false)
	p := newTab(t, browser)
	p.run("open the leaderboard", chromedp.Navigate(ts.URL+leaderboardPath))
	p.until("the leaderboard renders", `document.body.dataset.state === "ready" && document.querySelector("#chart-dims svg") !== null`)
	dims := p.eval(`document.getElementById("chart-dims").textContent`)
	if !strings.Contains(dims, "undefeated") || p.eval(`String(document.querySelectorAll("#chart-dims .unbounded path, #chart-dims .unbounded *").length > 0)`) != "true" {
		t.Fatalf("the undefeated model is not shown on the dimension chart: %q", dims)
	}
	long := regexp.MustCompile(`\d\.\d{3,}`)
	for _, id := range []string{"chart-cost", "chart-latency"} {
		text := p.eval(`Array.from(document.querySelectorAll("#` + id + ` svg g[aria-label='y-axis tick label'] text")).map(t => t.textContent).join(" ")`)
		if text == "" || long.MatchString(text) || !strings.Contains(text, "1,000") {
			t.Fatalf("%s: rating axis labels %q", id, text)
		}
	}
	if p.eval(`String(document.getElementById("empty").hidden)`) != "true" {
		t.Fatal("the empty-state message shows on a board with votes")
	}
}

// The empty leaderboard and the admin page before any run say what to do
// next.
func TestEmptyStatesInABrowser(t *testing.T) {
	browser := newBrowser(t)
	ts := importedServer(t, "", false)
	p := newTab(t, browser)
	p.run("open the leaderboard", chromedp.Navigate(ts.URL+leaderboardPath))
	p.until("the leaderboard renders", `document.body.dataset.state === "ready"`)
	if msg := p.eval(`document.getElementById("empty").hidden ? "hidden" : document.getElementById("empty").textContent`); !strings.Contains(msg, "ringside run") {
		t.Fatalf("empty leaderboard says %q", msg)
	}
	p.run("open the admin page", chromedp.Navigate(ts.URL+"/admin"))
	p.eval(`document.getElementById("token").value = "` + demoAdminToken + `"; document.getElementById("token-form").requestSubmit(); ""`)
	p.until("the admin page loads", `document.body.dataset.state === "ready"`)
	if runs := p.eval(`document.getElementById("runs").textContent`); !strings.Contains(runs, "No runs yet") || !strings.Contains(runs, "ringside run") {
		t.Fatalf("admin runs before any run: %q", runs)
	}
	if v := p.eval(`document.body.dataset.csp`); v != "0" {
		t.Fatalf("CSP violations: %s", v)
	}
}

// The home page says how to get to judge on this server, and the favicon
// is served rather than a 404 on every page.
func TestHomePageSaysHowToJudge(t *testing.T) {
	for _, tc := range []struct {
		open      bool
		want, not string
	}{{true, "no invite needed", "invite link"}, {false, "invite link", "no invite needed"}} {
		ts := importedServer(t, "", tc.open)
		body := httpGet(t, ts.URL+"/")
		if !strings.Contains(body, tc.want) || strings.Contains(body, tc.not) || !strings.Contains(body, `rel="icon"`) {
			t.Errorf("open judging %v: home page %s", tc.open, body)
		}
		resp, err := http.Get(ts.URL + "/favicon.ico")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/svg+xml" {
			t.Errorf("favicon: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
	}
}

func httpGet(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
