package server_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/server"
	"github.com/ringside-eval/ringside/store"
)

// newStyledDemoServer is newDemoServer with imported battles in which the
// demo's weakest model writes longer answers and judges prefer the longer
// answer whoever wrote it: the plain board lifts that model, the
// style-controlled one does not, so ranks change.
func newStyledDemoServer(t *testing.T) *demoServer {
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
	im, err := db.BeginBattleImport(ctx, "styled.jsonl", "sha-styled")
	if err != nil {
		t.Fatal(err)
	}
	defer im.Rollback()
	rng := rand.New(rand.NewPCG(1, 2))
	verbose := demo.Models[len(demo.Models)-1].Name
	for i := 0; i < 600; i++ {
		other := demo.Models[i%(len(demo.Models)-1)].Name
		la, lb := 600+rng.IntN(600), 150+rng.IntN(600)
		ma, mb := verbose, other
		// Sides at random and many judges, as real votes come: one judge
		// always voting for side a would be flagged, and left out, for
		// position bias.
		if rng.IntN(2) == 0 {
			ma, mb, la, lb = mb, ma, lb, la
		}
		l := &store.ImportLine{Line: i + 1, Weight: 1, JudgeKind: ringside.JudgeHuman, JudgeName: fmt.Sprintf("j%d", i%20)}
		l.Battle = ringside.Battle{ModelA: ma, ModelB: mb, Extra: []byte(fmt.Sprintf(
			`{"conv_metadata": {"sum_assistant_a_tokens": %d, "sum_assistant_b_tokens": %d, "list_count_a": {"ordered": %d}, "list_count_b": {"ordered": %d}}}`,
			la, lb, rng.IntN(3), rng.IntN(3)))}
		l.Vote.Winner = ringside.WinnerB
		if (la > lb) != (rng.IntN(10) == 0) {
			l.Vote.Winner = ringside.WinnerA
		}
		if err := im.Add(ctx, l); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := im.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := server.EnsureAdminToken(ctx, db, demoAdminToken); err != nil {
		t.Fatal(err)
	}
	srv := server.New(db, demoConfig(t, demo), slog.New(slog.NewTextHandler(io.Discard, nil)))
	ts := httptest.NewServer(srv.Echo)
	t.Cleanup(func() {
		srv.Close()
		ts.Close()
	})
	return &demoServer{t: t, db: db, srv: srv, ts: ts, demo: demo}
}

// The leaderboard's Control selector: choosing "style" asks the API for
// control=style, shows each model's rank change against the plain rank
// (as the API gives it) and the fitted coefficients, and puts the choice
// in the page's address, so that a link opens the controlled board.
func TestLeaderboardControlInABrowser(t *testing.T) {
	browser := newBrowser(t)
	d := newStyledDemoServer(t)
	var rep server.LeaderboardReport
	d.do("GET", "/api/leaderboard?control=style", false, "", &rep)
	changed := 0
	for _, m := range rep.Models {
		t.Logf("%s: rank %d, plain %d", m.Model, m.Rank, *m.UncontrolledRank)
		if m.Rank != *m.UncontrolledRank {
			changed++
		}
	}
	if len(rep.Coefficients) == 0 || changed == 0 {
		t.Fatalf("the controlled board has coefficients %v and changes %d ranks (notes %v)", rep.Coefficients, changed, rep.Notes)
	}

	p := newTab(t, browser)
	p.run("open the leaderboard", chromedp.Navigate(d.ts.URL+leaderboardPath))
	p.until("the leaderboard renders", `document.body.dataset.state === "ready"`)
	if p.eval(`String(document.getElementById("coefficients-box").hidden)`) != "true" ||
		strings.Contains(p.eval(`document.querySelector("#board thead").textContent`), "Rank change") {
		t.Fatal("the plain board shows coefficients or a rank change")
	}

	p.do(`const s = document.getElementById("control"); s.value = "style"; s.dispatchEvent(new Event("change"))`)
	p.until("the controlled board renders", `!document.getElementById("coefficients-box").hidden && document.body.dataset.state === "ready"`)
	checkControlled(t, p, rep)
	if q := p.eval(`location.search`); !strings.Contains(q, "control=style") {
		t.Fatalf("the address %q does not carry control=style", q)
	}
	if asked := p.eval(`performance.getEntriesByType("resource").map((e) => e.name).filter((n) => n.includes("/api/leaderboard")).join(" ")`); !strings.Contains(asked, "/api/leaderboard?control=style") {
		t.Fatalf("the page asked for %s, not control=style", asked)
	}

	// The address opens the controlled board.
	link := p.eval(`location.href`)
	q := newTab(t, browser)
	q.run("open the link", chromedp.Navigate(link))
	q.until("the controlled board renders", `document.body.dataset.state === "ready" && !document.getElementById("coefficients-box").hidden`)
	if v := q.eval(`document.getElementById("control").value`); v != "style" {
		t.Fatalf("opened from %s, the selector says %q", link, v)
	}
	checkControlled(t, q, rep)

	// Back to none: the plain board.
	p.do(`const s = document.getElementById("control"); s.value = "none"; s.dispatchEvent(new Event("change"))`)
	p.until("the plain board renders", `document.getElementById("coefficients-box").hidden && document.body.dataset.state === "ready"`)
	if strings.Contains(p.eval(`document.querySelector("#board thead").textContent`), "Rank change") || strings.Contains(p.eval(`location.search`), "control") {
		t.Fatalf("back to none, the page still shows a rank change or its address %q a control", p.eval(`location.search`))
	}
}

// checkControlled compares the page's coefficients and rank changes with
// the API's controlled board.
func checkControlled(t *testing.T, p *tab, rep server.LeaderboardReport) {
	t.Helper()
	for _, c := range rep.Coefficients {
		got := p.eval(`document.querySelector('#coefficients li[data-feature="` + c.Name + `"]')?.textContent ?? "missing"`)
		if want := fmt.Sprintf("%s %.3f", c.Name, c.Value); !strings.HasPrefix(got, want) {
			t.Errorf("coefficient %s: the page shows %q, want %q…", c.Name, got, want)
		}
	}
	if n := p.eval(`String(document.querySelectorAll("#coefficients li").length)`); n != fmt.Sprint(len(rep.Coefficients)) {
		t.Errorf("%s coefficients shown, the API has %d", n, len(rep.Coefficients))
	}
	col := p.eval(`String([...document.querySelectorAll("#board thead th")].findIndex((th) => th.textContent.includes("Rank change")))`)
	if col == "-1" {
		t.Fatal("no Rank change column")
	}
	for _, m := range rep.Models {
		d := *m.UncontrolledRank - m.Rank
		want := map[bool]string{true: fmt.Sprintf("+%d", d), false: fmt.Sprintf("−%d", -d)}[d > 0]
		if d == 0 {
			want = "0"
		}
		got := p.eval(`document.querySelector('#board tbody tr[data-model="` + m.Model + `"]').cells[` + col + `].textContent`)
		if got != want {
			t.Errorf("%s: rank change %q, want %q (plain rank %d, controlled %d)", m.Model, got, want, *m.UncontrolledRank, m.Rank)
		}
	}
}

// The leaderboard's Weighting selector asks the API for
// weighting=propensity, says on the page that the votes were weighted,
// and keeps the choice in the address; "default" leaves it out again.
func TestLeaderboardWeightingInABrowser(t *testing.T) {
	browser := newBrowser(t)
	d := newDemoServer(t)
	p := newTab(t, browser)
	p.run("open the leaderboard", chromedp.Navigate(d.ts.URL+leaderboardPath))
	p.until("the leaderboard renders", `document.body.dataset.state === "ready"`)
	if strings.Contains(p.eval(`document.getElementById("summary").textContent`), "weighted") {
		t.Fatal("the default board says it is weighted")
	}
	p.do(`const s = document.getElementById("weighting"); s.value = "propensity"; s.dispatchEvent(new Event("change"))`)
	p.until("the weighted board renders", `document.getElementById("summary").textContent.includes("weighted") && document.body.dataset.state === "ready"`)
	if q := p.eval(`location.search`); !strings.Contains(q, "weighting=propensity") {
		t.Fatalf("the address %q does not carry weighting=propensity", q)
	}
	if asked := p.eval(`performance.getEntriesByType("resource").map((e) => e.name).filter((n) => n.includes("/api/leaderboard")).join(" ")`); !strings.Contains(asked, "weighting=propensity") {
		t.Fatalf("the page asked for %s, not weighting=propensity", asked)
	}
	p.do(`const s = document.getElementById("weighting"); s.value = ""; s.dispatchEvent(new Event("change"))`)
	p.until("the default board renders", `!document.getElementById("summary").textContent.includes("weighted") && document.body.dataset.state === "ready"`)
	if q := p.eval(`location.search`); strings.Contains(q, "weighting") {
		t.Fatalf("back to default, the address %q still carries a weighting", q)
	}
}
