package server_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestAdminPlanInABrowser: the admin page shows how many more votes the
// decision needs, the same plan the API gives, with the undecided pairs.
func TestAdminPlanInABrowser(t *testing.T) {
	browser := newBrowser(t)
	d := newDemoServer(t)
	var plan struct {
		Votes     int  `json:"votes"`
		Likely    int  `json:"likely"`
		Median    int  `json:"median"`
		Separated bool `json:"separated"`
		Undecided []struct {
			Upper string `json:"upper"`
			Lower string `json:"lower"`
		} `json:"undecided"`
	}
	if code, body := d.do(http.MethodGet, "/api/admin/plan", true, "", &plan); code != http.StatusOK {
		t.Fatalf("GET /api/admin/plan: %d %s", code, body)
	}
	if plan.Votes == 0 || plan.Separated || len(plan.Undecided) == 0 {
		t.Fatalf("the demo's plan: %+v", plan)
	}
	if code, _ := d.do(http.MethodGet, "/api/admin/plan", false, "", nil); code != http.StatusUnauthorized {
		t.Fatalf("the plan without the admin token: %d", code)
	}

	p := newTab(t, browser)
	p.run("open the admin page", chromedp.Navigate(d.ts.URL+"/admin"))
	p.do(`document.getElementById("token").value = "` + demoAdminToken + `"; document.getElementById("token-form").requestSubmit()`)
	p.until("the admin page loads", `document.body.dataset.state === "ready"`)
	p.until("the plan is shown", `document.getElementById("plan").textContent.includes("more votes")`)
	if m := p.eval(`document.getElementById("plan").dataset.median`); m != strconv.Itoa(plan.Median) {
		t.Errorf("the page's median %s, the API's %d", m, plan.Median)
	}
	if l := p.eval(`document.getElementById("plan").dataset.likely`); l != strconv.Itoa(plan.Likely) || !strings.Contains(p.eval(`document.getElementById("plan").textContent`), "About "+strconv.Itoa(plan.Likely)) {
		t.Errorf("the page's most likely number %s (%q), the API's %d", l, p.eval(`document.getElementById("plan").textContent`), plan.Likely)
	}
	text := p.eval(`document.getElementById("plan").textContent`)
	first := plan.Undecided[0].Upper + " vs " + plan.Undecided[0].Lower
	if !strings.Contains(text, first) || !strings.Contains(text, "80% interval") {
		t.Errorf("plan panel %q lacks %q or the interval", text, first)
	}
	if v := p.eval(`document.body.dataset.csp`); v != "0" {
		t.Fatalf("the CSP blocked %s things on the admin page", v)
	}
}
