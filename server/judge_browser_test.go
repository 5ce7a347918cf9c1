package server_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/ringside-eval/ringside"
)

const chromiumPath = "/usr/bin/chromium"

// newBrowser gives a test its own browser context (cookies, storage and
// cache of its own, like a fresh profile) in the package's one headless
// Chromium, started by the first test that asks. Starting a browser per test
// cost a second or two each. Without Chromium the test is skipped on a
// developer's machine, and fails in CI (CI is set), where .ci/run installs
// it: a browser test must not pass by not running.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set but %s is missing: .ci/run must install chromium", chromiumPath)
		}
		t.Skipf("%s not installed (apt-get install -y --no-install-recommends chromium)", chromiumPath)
	}
	browser, err := sharedBrowser.start()
	if err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	ctx, cancel := chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	// The first action opens the context's first tab, which lives as long as
	// the context of that action: it must not carry a timeout.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatalf("open a browser context: %v", err)
	}
	return ctx
}

// sharedBrowser is the package's one Chromium, stopped by TestMain.
var sharedBrowser browserProcess

type browserProcess struct {
	once   sync.Once
	ctx    context.Context
	err    error
	cancel func()
	dir    string
}

func (b *browserProcess) start() (context.Context, error) {
	b.once.Do(func() {
		if b.dir, b.err = os.MkdirTemp("", "ringside-chromium-"); b.err != nil {
			return
		}
		opts := []chromedp.ExecAllocatorOption{
			chromedp.ExecPath(chromiumPath),
			chromedp.Headless,
			chromedp.NoSandbox,
			chromedp.DisableGPU,
			chromedp.NoFirstRun,
			chromedp.NoDefaultBrowserCheck,
			// The machine has no network beyond loopback: without these,
			// Chromium keeps dialling Google and gets refused.
			chromedp.Flag("disable-background-networking", true),
			chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true),
			chromedp.Flag("disable-quic", true),
			chromedp.Flag("disable-dev-shm-usage", true),
			chromedp.UserDataDir(b.dir),
			chromedp.WindowSize(1280, 900),
		}
		alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancel := chromedp.NewContext(alloc)
		b.ctx, b.cancel = ctx, func() { cancel(); cancelAlloc() }
		// The first run starts the browser; it must not carry a timeout.
		b.err = chromedp.Do(ctx)
	})
	return b.ctx, b.err
}

// stop ends the browser, if one was started, and removes its profile.
func (b *browserProcess) stop() {
	if b.cancel != nil {
		b.cancel()
	}
	if b.dir != "" {
		os.RemoveAll(b.dir)
	}
}

// xssOutput is what a hostile or careless model might write: Markdown that
// must render, and HTML, handlers and URLs that must not run.
const xssOutput = "Here is **bold**, a list and a table.\n\n" +
	"- one\n- two\n\n" +
	"| k | v |\n|---|---|\n| a | 1 |\n\n" +
	"```go\nfmt.Println(\"hi\")\n```\n\n" +
	"<script>window.__xss = 'script'</script>\n\n" +
	"<img src=x onerror=\"window.__xss = 'img'\">\n\n" +
	"[click me](javascript:window.__xss='link')\n\n" +
	"<svg><animate onbegin=\"window.__xss = 'svg'\" attributeName=x dur=1s></animate></svg>\n"

func TestJudgePageInABrowser(t *testing.T) {
	ctx := newBrowser(t)
	fakes := map[string]*fakeModel{
		modelZephyr.Name: {chunks: strings.SplitAfter(xssOutput, "\n"), pause: 20 * time.Millisecond, failAfter: -1},
		modelQuill.Name:  newFake("A plain answer with `inline code` and no tricks. ", 20*time.Millisecond),
	}
	h := newHarness(t, nil, fakes)
	token := h.invite("browser", 2)

	step := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		if err := chromedp.Do(sctx, actions...); err != nil {
			page, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.dataset.state + " | " + document.getElementById("status").textContent`))
			t.Fatalf("%s: %v (page: %s)", what, err, page)
		}
	}
	eval := func(expr string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		return v
	}

	step("open the invite link", chromedp.Navigate(h.ts.URL+"/judge?token="+token))
	if u := eval(`location.pathname + location.search`); u != "/judge" {
		t.Fatalf("the token stayed in the address bar: %s", u)
	}
	step("both streams arrive and voting opens",
		chromedp.Poll[chromedp.Void](`document.body.dataset.state === "open"`, chromedp.WithPollingTimeout(15*time.Second)))

	// Both panes show their stream, rendered as Markdown.
	a, b := eval(`document.getElementById("content-a").textContent`), eval(`document.getElementById("content-b").textContent`)
	if !strings.Contains(a+b, "A plain answer") || !strings.Contains(a+b, "Here is bold") {
		t.Fatalf("panes: a=%q b=%q", a, b)
	}
	for _, sel := range []string{"strong", "table", "li", "pre code", "code"} {
		if n := eval(`String(document.querySelectorAll(".content ` + sel + `").length)`); n == "0" {
			t.Fatalf("Markdown not rendered: no %s in %s", sel, eval(`document.querySelector(".panes").innerHTML`))
		}
	}
	// The payload is inert: shown as text where it was HTML, stripped where
	// it was an attribute or a URL, and nothing ran.
	if got := eval(`String(window.__xss)`); got != "undefined" {
		t.Fatalf("model output ran script: window.__xss = %s", got)
	}
	if n := eval(`String(document.querySelectorAll(".content script, .content img, .content svg, .content [onerror], .content [onbegin], .content a[href^='javascript']").length)`); n != "0" {
		t.Fatalf("dangerous elements in a pane: %s", eval(`document.querySelector(".panes").innerHTML`))
	}
	if !strings.Contains(a+b, "<script>window.__xss") {
		t.Fatalf("the <script> text should show as text: %q", a+b)
	}
	if p := eval(`document.getElementById("turns").textContent`); !strings.Contains(p, "How long do refunds take?") && !strings.Contains(p, "worn jacket") {
		t.Fatalf("prompt not shown: %q", p)
	}
	if pr := eval(`document.getElementById("progress-label").textContent`); pr != "0 / 2" {
		t.Fatalf("progress %q", pr)
	}
	// Only a chat battle has a question box: whatever a page styles, an
	// element it hides is not shown.
	if d := eval(`getComputedStyle(document.getElementById("ask-form")).display`); d != "none" {
		t.Fatalf("the chat question box shows on a battle from the prompt sets (display %q)", d)
	}

	screenshot(t, ctx, "judge-desktop.png")

	// A keyboard vote: "1" is A.
	step("vote with the keyboard", chromedp.KeyEvent("1"),
		chromedp.Poll[chromedp.Void](`document.body.dataset.state === "voted"`, chromedp.WithPollingTimeout(10*time.Second)))
	votes, err := h.db.Invites(context.Background(), false)
	if err != nil || len(votes) != 1 || votes[0].Votes != 1 {
		t.Fatalf("votes after the key press: %+v, %v", votes, err)
	}
	js, _ := h.db.Judges(context.Background())
	open, err := h.db.JudgeVotedBattles(context.Background(), js[0].ID, 10)
	if err != nil || len(open) != 1 || open[0].Winner != ringside.WinnerA {
		t.Fatalf("recorded vote %+v, %v", open, err)
	}
	if r := eval(`document.getElementById("reveal").textContent`); !strings.Contains(r, open[0].ModelA) || !strings.Contains(r, open[0].ModelB) {
		t.Fatalf("reveal %q, want %s and %s", r, open[0].ModelA, open[0].ModelB)
	}
	if pr := eval(`document.getElementById("progress-label").textContent`); pr != "1 / 2" {
		t.Fatalf("progress after the vote %q", pr)
	}

	// N deals the next battle; a narrow screen stacks the panes.
	step("next battle", chromedp.KeyEvent("n"),
		chromedp.Poll[chromedp.Void](`document.body.dataset.state === "open"`, chromedp.WithPollingTimeout(15*time.Second)),
		chromedp.EmulateViewport(390, 844))
	if stacked := eval(`String(document.getElementById("pane-a").getBoundingClientRect().top < document.getElementById("pane-b").getBoundingClientRect().top)`); stacked != "true" {
		t.Fatal("panes are not stacked on a phone-sized screen")
	}
	screenshot(t, ctx, "judge-phone.png")
}

// screenshot saves the page to $RINGSIDE_SCREENSHOTS/name when that is set,
// to look at the page by eye.
func screenshot(t *testing.T, ctx context.Context, name string) {
	dir := os.Getenv("RINGSIDE_SCREENSHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, name), png, 0o644)
	}
	if err != nil {
		t.Errorf("screenshot %s: %v", name, err)
	}
}
