package server_test

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/ringside-eval/ringside/server"
)

// tab drives one browser tab with a test's failures reported well.
type tab struct {
	t   *testing.T
	ctx context.Context
}

func newTab(t *testing.T, browser context.Context) *tab {
	ctx, cancel := chromedp.NewContext(browser)
	t.Cleanup(cancel)
	// The first action opens the tab, which lives as long as the context
	// of that action: it must not carry a timeout.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	return &tab{t: t, ctx: ctx}
}

func (b *tab) run(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		state, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`location.pathname + " state=" + document.body.dataset.state + " status=" + (document.getElementById("status")||{}).textContent + " html=" + document.documentElement.outerHTML.slice(0, 600)`))
		b.t.Fatalf("%s: %v (page: %s)", what, err, state)
	}
}

func (b *tab) eval(expr string) string {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](expr))
	if err != nil {
		b.t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// do runs statements in a function of their own (declarations do not
// leak from one call to the next).
func (b *tab) do(stmts string) {
	b.t.Helper()
	_, err := chromedp.Run(b.ctx, chromedp.Evaluate[string]("(() => {"+stmts+"; return \"\"})()"))
	if err != nil {
		b.t.Fatalf("%s: %v", stmts, err)
	}
}

// until polls a JavaScript condition.
func (b *tab) until(what, cond string) {
	b.t.Helper()
	// A poll started while a navigation replaces the document can lose its
	// JavaScript context ("Cannot find context with specified id"); it is
	// simply started again.
	for try := 0; ; try++ {
		ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
		err := chromedp.Do(ctx, chromedp.Poll[chromedp.Void](cond, chromedp.WithPollingTimeout(20*time.Second)))
		cancel()
		if err == nil {
			return
		}
		if try == 4 || !strings.Contains(err.Error(), "context with specified id") {
			b.run(what, chromedp.Poll[chromedp.Void](cond, chromedp.WithPollingTimeout(time.Second)))
			return
		}
		b.run(what+": the new document", chromedp.WaitReady("body"))
	}
}

// The page gets the configured rounds: a visitor cannot choose them.
const leaderboardPath = "/leaderboard"

func TestLeaderboardPageInABrowser(t *testing.T) {
	browser := newBrowser(t)
	d := newDemoServer(t)
	p := newTab(t, browser)
	p.run("open the leaderboard", chromedp.Navigate(d.ts.URL+leaderboardPath))
	p.until("the leaderboard renders", `document.body.dataset.state === "ready"`)

	var rep server.LeaderboardReport
	d.do("GET", "/api/leaderboard", false, "", &rep)
	if n := p.eval(`String(document.querySelectorAll("#board tbody tr").length)`); n != strconv.Itoa(len(rep.Models)) {
		t.Fatalf("%s table rows for %d rated models", n, len(rep.Models))
	}
	for _, col := range []string{"Rank (UB)", "Rating", "95% interval", "Win rate", "TTFT p50 / p95", "Latency p50 / p95", "Cost / 1k resp.", "Errors", "Pass rate", "pass^k"} {
		if !strings.Contains(p.eval(`document.querySelector("#board thead").textContent`), col) {
			t.Fatalf("no column %q", col)
		}
	}

	// Every chart is an SVG with a mark for each demo model.
	for _, id := range []string{"chart-ratings", "chart-heatmap", "chart-cost", "chart-latency", "chart-dims"} {
		if n := p.eval(`String(document.querySelectorAll("#` + id + ` svg").length)`); n == "0" {
			t.Fatalf("%s: no SVG: %s", id, p.eval(`document.getElementById("`+id+`").textContent`))
		}
		text := p.eval(`document.getElementById("` + id + `").textContent`)
		for _, m := range d.demo.Models {
			if !strings.Contains(text, m.Name) {
				t.Fatalf("%s does not show %s: %q", id, m.Name, text)
			}
		}
	}
	if n := p.eval(`String(document.querySelectorAll("#chart-ratings svg circle").length)`); n != strconv.Itoa(len(rep.Models)) {
		t.Fatalf("ratings chart: %s dots for %d models", n, len(rep.Models))
	}
	models := len(rep.Models) + len(rep.Flagged)
	if n := p.eval(`String(document.querySelectorAll("#chart-heatmap svg rect").length)`); n != strconv.Itoa(models*(models-1)) {
		t.Fatalf("heatmap: %s cells for %d models", n, models)
	}
	if n := p.eval(`String(document.querySelectorAll("#chart-cost svg path").length)`); n == "0" {
		t.Fatal("cost chart: no Pareto frontier line")
	}
	if n := p.eval(`String(document.querySelectorAll("#chart-dims svg circle").length)`); n == "0" {
		t.Fatal("dimension chart: no dots")
	}
	if v := p.eval(`document.body.dataset.csp`); v != "0" {
		t.Fatalf("the CSP blocked %s things on the leaderboard", v)
	}

	// Sorting by cost puts the cheapest model first.
	cheapest := rep.Models[0]
	for _, m := range rep.Models {
		if *m.CostPer1kResponsesUSD < *cheapest.CostPer1kResponsesUSD {
			cheapest = m
		}
	}
	p.do(`document.querySelector('#board th button[data-key="cost"]').click()`)
	if first := p.eval(`document.querySelector("#board tbody tr").dataset.model`); first != cheapest.Model {
		t.Fatalf("sorted by cost, first row %s, want %s", first, cheapest.Model)
	}

	// Switching the slice changes the table.
	before := p.eval(`document.querySelector("#board tbody").textContent`)
	for _, slice := range []string{"kind", "judge_kind", "dimension"} {
		p.do(`const s = document.getElementById("by"); s.value = "` + slice + `"; s.dispatchEvent(new Event("change"))`)
		p.until("slice "+slice, `(document.body.dataset.slice || "").startsWith("`+slice+`=")`)
		after := p.eval(`document.querySelector("#board tbody").textContent`)
		if after == before {
			t.Fatalf("slice %s: the table did not change", slice)
		}
		if n := p.eval(`String(document.getElementById("value").options.length)`); n == "0" || n == "1" {
			t.Fatalf("slice %s: %s values to choose from", slice, n)
		}
		before = after
	}
	p.do(`const v = document.getElementById("value"); v.selectedIndex = v.options.length - 1; v.dispatchEvent(new Event("change"))`)
	if after := p.eval(`document.querySelector("#board tbody").textContent`); after == before {
		t.Fatal("choosing another dimension did not change the table")
	}
	screenshot(t, p.ctx, "leaderboard-desktop.png")

	// A phone-sized screen: no sideways scrolling of the page.
	// The page redraws its charts a moment after a resize: the chart drawn
	// last is marked, and the redraw replaces it with an unmarked one.
	p.do(`document.querySelector("#chart-dims svg").beforeResize = true`)
	p.run("phone", chromedp.EmulateViewport(390, 844))
	p.do(`window.dispatchEvent(new Event("resize"))`)
	p.until("the charts redraw at the phone's width", `!document.querySelector("#chart-dims svg")?.beforeResize`)
	if w := p.eval(`String(document.documentElement.scrollWidth)`); w != "390" {
		t.Fatalf("on a phone the page is %s px wide", w)
	}
	screenshot(t, p.ctx, "leaderboard-phone.png")
}

func TestAdminInviteInABrowser(t *testing.T) {
	browser := newBrowser(t)
	d := newDemoServer(t)
	p := newTab(t, browser)
	p.run("open the admin page", chromedp.Navigate(d.ts.URL+"/admin"))
	p.do(`document.getElementById("token").value = "wrong"; document.getElementById("token-form").requestSubmit()`)
	p.until("a wrong token is refused", `document.getElementById("status").textContent.includes("not accepted")`)
	p.eval(`document.getElementById("token").value = "` + demoAdminToken + `"; document.getElementById("token-form").requestSubmit(); ""`)
	p.until("the admin page loads", `document.body.dataset.state === "ready"`)
	if s := p.eval(`sessionStorage.getItem("ringside.admin_token")`); s != demoAdminToken {
		t.Fatalf("token not kept in sessionStorage: %q", s)
	}

	runs := p.eval(`document.getElementById("runs").textContent`)
	if !strings.Contains(runs, "demo") || !strings.Contains(runs, "244 / 244") {
		t.Fatalf("runs: %q", runs)
	}
	if models := p.eval(`document.getElementById("models").textContent`); !strings.Contains(models, "sim-breeze") {
		t.Fatalf("models: %q", models)
	}
	if ag := p.eval(`document.getElementById("agreement").textContent`); !strings.Contains(ag, "rules:rules") || !strings.Contains(ag, "human") {
		t.Fatalf("agreement: %q", ag)
	}
	// ana is one of the demo's people: her row shows her median time per
	// vote in seconds.
	if m := p.eval(`document.querySelector('#judges tr[data-judge="ana"]')?.cells[3].textContent ?? "no row for ana"`); !regexp.MustCompile(`^\d+\.\d s$`).MatchString(m) {
		t.Fatalf("ana's time per vote: %q in %q", m, p.eval(`document.getElementById("judges").textContent`))
	}

	// Create an invite; its link works on the judge page.
	p.do(`document.getElementById("invite-name").value = "maria"; document.getElementById("invite-quota").value = "3"; document.getElementById("invite-form").requestSubmit()`)
	p.until("the invite link is shown", `!document.getElementById("new-invite").hidden && document.getElementById("judges").textContent.includes("maria")`)
	link := p.eval(`document.getElementById("new-invite-url").value`)
	if !strings.HasPrefix(link, d.ts.URL+"/judge?token=") {
		t.Fatalf("invite link %q", link)
	}
	if v := p.eval(`document.body.dataset.csp`); v != "0" {
		t.Fatalf("the CSP blocked %s things on the admin page", v)
	}
	screenshot(t, p.ctx, "admin.png")

	// Quota: set from the table, stored.
	p.do(`const q = document.querySelector('#judges tr[data-judge="maria"] input.quota'); q.value = "5"; q.dispatchEvent(new Event("change"))`)
	p.until("quota saved", `document.getElementById("status").textContent.includes("set to 5")`)

	judgeTab := newTab(t, browser)
	judgeTab.run("open the invite link", chromedp.Navigate(link))
	judgeTab.until("a battle is shown", `document.body.dataset.state === "open"`)
	if pr := judgeTab.eval(`document.getElementById("progress-label").textContent`); pr != "0 / 5" {
		t.Fatalf("judge progress %q, want 0 / 5 (the new quota)", pr)
	}
}

func TestLeaderboardLiveUpdateInABrowser(t *testing.T) {
	browser := newBrowser(t)
	d := newDemoServer(t)
	board := newTab(t, browser)
	board.run("open the leaderboard", chromedp.Navigate(d.ts.URL+leaderboardPath))
	board.until("the leaderboard renders", `document.body.dataset.state === "ready"`)
	votes, _ := strconv.Atoi(board.eval(`document.body.dataset.votes`))
	board.do(`window.__sameDocument = "yes"`)

	inv, err := server.CreateInvite(context.Background(), d.db, "live", 0, d.ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	judge := newTab(t, browser)
	judge.run("open the judge page", chromedp.Navigate(inv.URL))
	judge.until("a battle is shown", `document.body.dataset.state === "open"`)
	judge.run("vote", chromedp.KeyEvent("1"))
	judge.until("voted", `document.body.dataset.state === "voted"`)

	board.until("the other tab updates without a reload", fmt.Sprintf(`document.body.dataset.votes === "%d"`, votes+1))
	// The summary counts battles, and a vote on a battle another judge
	// voted on counts once, so it need not change; the vote count above did.
	if board.eval(`String(window.__sameDocument)`) != "yes" {
		t.Fatal("the leaderboard was reloaded")
	}
}
