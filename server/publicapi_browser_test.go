package server_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// The leaderboard page offers only what the public may fetch; the admin
// page downloads the battles with the token.
func TestPagesOfferTheBattlesToTheAdminOnly(t *testing.T) {
	browser := newBrowser(t)
	d := newDemoServer(t)
	p := newTab(t, browser)
	p.run("open the leaderboard", chromedp.Navigate(d.ts.URL+"/leaderboard?by=judge"))
	p.until("the leaderboard renders", `document.body.dataset.state === "ready"`)
	if s := p.eval(`document.body.dataset.slice`); s != "overall" {
		t.Errorf("?by=judge shows slice %q, want overall", s)
	}
	if opts := p.eval(`[...document.querySelectorAll("#by option")].map(o => o.value).join(",")`); strings.Contains(opts, "judge,") || strings.HasSuffix(opts, ",judge") {
		t.Errorf("the slice menu offers judge: %s", opts)
	}
	links := p.eval(`[...document.querySelectorAll("a[href^='/api/']")].map(a => a.getAttribute("href")).join(" ")`)
	if strings.Contains(links, "battles") || !strings.Contains(links, "format=csv") {
		t.Errorf("leaderboard downloads: %s", links)
	}
	for _, href := range strings.Fields(links) {
		if code, body := d.do("GET", href, false, "", nil); code != 200 {
			t.Errorf("the page links %s, which the public gets as %d %.200s", href, code, body)
		}
	}

	a := newTab(t, browser)
	a.run("open the admin page", chromedp.Navigate(d.ts.URL+"/admin"))
	a.do(`document.getElementById("token").value = "` + demoAdminToken + `"; document.getElementById("token-form").requestSubmit()`)
	a.until("the admin page loads", `document.body.dataset.state === "ready"`)
	a.do(`document.getElementById("dl-battles").click()`)
	a.until("the battles are downloaded", `Number(document.getElementById("dl-battles").dataset.bytes) > 0`)
	_, body := d.do("GET", "/api/admin/battles.jsonl", true, "", nil)
	if got := a.eval(`document.getElementById("dl-battles").dataset.bytes`); got != strconv.Itoa(len(body)) {
		t.Errorf("the admin page downloaded %s bytes, the API gives %d", got, len(body))
	}
	if v := a.eval(`document.body.dataset.csp`); v != "0" {
		t.Errorf("the CSP blocked %s things on the admin page", v)
	}
}
