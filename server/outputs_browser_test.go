package server_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

func TestOutputsBrowserInABrowser(t *testing.T) {
	browser := newBrowser(t)
	d := newDemoServer(t)
	evil, _ := d.addEvilRun()
	p := newTab(t, browser)
	p.run("open the outputs page", chromedp.Navigate(d.ts.URL+"/outputs"))
	// The demo's adversarial prompts get answers with a Markdown image that
	// would send data to another host: the CSP must block that, and only that.
	p.do(`window.__blocked = []; document.addEventListener("securitypolicyviolation", e => window.__blocked.push(e.violatedDirective + " " + e.blockedURI))`)
	p.do(`document.getElementById("token").value = "` + demoAdminToken + `"; document.getElementById("token-form").requestSubmit()`)
	p.until("the matrix loads", `document.body.dataset.state === "unlocked"`)

	// The demo run: a page of prompts × the four models.
	p.do(`const s = document.getElementById("f-run"); s.value = "demo"; s.dispatchEvent(new Event("change", {bubbles: true}))`)
	p.until("the demo run's matrix", `document.querySelectorAll("#matrix thead th").length === 5 && document.querySelectorAll("#matrix tbody tr").length > 0`)
	all, _ := strconv.Atoi(p.eval(`String(document.querySelectorAll("#matrix tbody tr").length)`))
	if all != 25 || p.eval(`String(document.getElementById("more").hidden)`) != "false" {
		t.Fatalf("%d rows on the first page; more hidden: %s", all, p.eval(`String(document.getElementById("more").hidden)`))
	}
	if n := p.eval(`String(document.querySelectorAll("#matrix .checks li").length)`); n == "0" {
		t.Fatal("no check results in the cells")
	}
	if m := p.eval(`document.querySelector("#matrix tbody .meta").textContent`); !strings.Contains(m, "$") || !strings.Contains(m, "s") {
		t.Fatalf("cell meta %q: want latency and cost", m)
	}
	p.do(`document.getElementById("more").click()`)
	p.until("the next page is added", `document.querySelectorAll("#matrix tbody tr").length > 25`)

	// A filter narrows it.
	p.do(`const s = document.getElementById("f-kind"); s.value = "adversarial"; s.dispatchEvent(new Event("change", {bubbles: true}))`)
	p.until("the kind filter applies", `[...document.querySelectorAll("#matrix tbody tr")].length > 0 && [...document.querySelectorAll("#matrix tbody tr")].every(r => r.querySelector(".badges").textContent.includes("adversarial"))`)
	if n, _ := strconv.Atoi(p.eval(`String(document.querySelectorAll("#matrix tbody tr").length)`)); n >= all {
		t.Fatalf("the adversarial filter shows %d rows of %d", n, all)
	}

	// The run with model output that holds HTML and script: shown inert.
	p.do(`document.getElementById("f-kind").value = ""; const s = document.getElementById("f-run"); s.value = "xss"; s.dispatchEvent(new Event("change", {bubbles: true}))`)
	p.until("the xss run's matrix", `document.querySelectorAll("#matrix thead th").length === 3 && document.querySelector('#matrix td[data-model="m-evil"] .answer') !== null`)
	cell := `document.querySelector('#matrix td[data-model="m-evil"] .answer')`
	if txt := p.eval(cell + `.textContent`); !strings.Contains(txt, "<script>window.__pwned = 1</script>") {
		t.Fatalf("the script tag is not shown as text: %q", txt)
	}
	if n := p.eval(`String(` + cell + `.querySelectorAll("script, img, [onerror]").length + document.querySelectorAll('a[href^="javascript"]').length)`); n != "0" {
		t.Fatalf("%s live elements from model output", n)
	}
	if b := p.eval(cell + `.querySelector("strong")?.textContent ?? "none"`); b != "bold" {
		t.Fatalf("markdown not rendered: strong = %q", b)
	}
	if e := p.eval(`document.querySelector('#matrix td[data-model="m-plain"] .error').textContent`); !strings.Contains(e, "rate_limit") || !strings.Contains(e, "429 slow down") {
		t.Fatalf("failed generation shown as %q", e)
	}

	// A click shows the whole conversation, the battle and its vote.
	p.do(`document.querySelector('#matrix td[data-model="m-evil"] .cell').click()`)
	p.until("the detail opens", `!document.getElementById("detail").hidden && document.getElementById("detail-body").textContent.includes("rita")`)
	body := p.eval(`document.getElementById("detail-body").textContent`)
	last := d.demo.Prompts[0].Messages[len(d.demo.Prompts[0].Messages)-1].Content
	for _, want := range []string{firstWords(last), "against m-plain", "this answer won", "the other side said nothing"} {
		if !strings.Contains(body, want) {
			t.Fatalf("detail of %s lacks %q: %q", evil.ID, want, body)
		}
	}
	if n := p.eval(`String(document.querySelectorAll("#detail-body script, #detail-body img").length)`); n != "0" {
		t.Fatalf("%s live elements in the detail", n)
	}
	if v := p.eval(`String(window.__pwned)`); v != "undefined" {
		t.Fatalf("model output ran script: window.__pwned = %s", v)
	}
	if v := p.eval(`window.__blocked.filter(v => !v.startsWith("img-src https://")).join("; ")`); v != "" {
		t.Fatalf("the CSP blocked more than remote images on the outputs page: %s", v)
	}
	screenshot(t, p.ctx, "outputs.png")
}

// firstWords is the start of a message, as the rendered Markdown keeps it.
func firstWords(s string) string {
	f := strings.Fields(s)
	return strings.Join(f[:min(4, len(f))], " ")
}
