package server_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestJudgesTrustInABrowser: the admin page shows the judges' report; an
// admin excludes a judge (a reason is asked for first) and the leaderboard
// page says whose votes it counts and how many it left out.
func TestJudgesTrustInABrowser(t *testing.T) {
	browser := newBrowser(t)
	d := newDemoServer(t)
	p := newTab(t, browser)
	p.run("open the admin page", chromedp.Navigate(d.ts.URL+"/admin"))
	p.eval(`document.getElementById("token").value = "` + demoAdminToken + `"; document.getElementById("token-form").requestSubmit(); ""`)
	p.until("the judges' report shows", `document.querySelector('#trust tr[data-judge="human:ana"]') !== null`)
	row := `document.querySelector('#trust tr[data-judge="human:ana"]')`
	if txt := p.eval(row + `.textContent`); !strings.Contains(txt, "counted") {
		t.Fatalf("ana's row: %q", txt)
	}
	if !strings.Contains(p.eval(`document.getElementById("trust-alpha").textContent`), "Krippendorff") {
		t.Fatal("no alpha line")
	}
	p.do(row + `.querySelector('button[data-action="Exclude"]').click()`)
	p.until("a reason is asked for", `document.getElementById("status").textContent.includes("Give a reason")`)
	p.do(`document.getElementById("trust-reason").value = "votes without reading"; ` + row + `.querySelector('button[data-action="Exclude"]').click()`)
	p.until("ana is excluded", row+`?.dataset.excluded === "true" && `+row+`.textContent.includes("by hand")`)

	lb := newTab(t, browser)
	lb.run("open the leaderboard", chromedp.Navigate(d.ts.URL+leaderboardPath))
	lb.until("the leaderboard renders", `document.body.dataset.state === "ready"`)
	line := lb.eval(`document.getElementById("judges-line").textContent`)
	if !strings.HasPrefix(line, "Counts ") || !strings.Contains(line, "votes of people") || !strings.Contains(line, "of 1 flagged or excluded judge left out") {
		t.Fatalf("judges line: %q", line)
	}
	if strings.Contains(lb.eval(`document.body.textContent`), "ana") {
		t.Fatal("the public page names the excluded judge")
	}
	lb.do(`const s = document.getElementById("judges"); s.value = "auto"; s.dispatchEvent(new Event("change"))`)
	lb.until("the automatic judges' board", `document.getElementById("judges-line").textContent.includes("automatic judges") && location.search.includes("judges=auto")`)
}
