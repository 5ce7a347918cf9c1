package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/ringside-eval/ringside/battlefile"
	"github.com/ringside-eval/ringside/store"
)

// A judge types a question, watches both answers stream, follows up,
// votes, sees the reveal; the conversation is in the battle export with
// both turns.
func TestChatJudgePageInABrowser(t *testing.T) {
	ctx := newBrowser(t)
	z := &chatModel{voice: "Kestrel", holdTurn: 1, hold: make(chan struct{})}
	q := &chatModel{voice: "Osprey"}
	h := chatModels(t, nil, z, q)
	token := h.invite("browser", 0)

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
	poll := func(expr string) chromedp.Action[chromedp.Void] {
		return chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(15*time.Second))
	}
	panes := `document.getElementById("content-a").textContent + " | " + document.getElementById("content-b").textContent`

	step("open the invite link; the question box shows",
		chromedp.Navigate(h.ts.URL+"/judge?token="+token),
		poll(`document.body.dataset.state === "asking" && !document.getElementById("ask-form").hidden`))
	step("type a question and ask",
		chromedp.SendKeys("#ask-text", "How do I reset my router?"),
		chromedp.Click("#ask-send"))
	// One side is held after its first words: both panes show the same
	// share of their answers while streaming, and voting is not open.
	step("both answers stream",
		poll(`document.body.dataset.state === "streaming" && document.getElementById("content-a").textContent.length > 0 && document.getElementById("content-b").textContent.length > 0`))
	if p := eval(panes); strings.Contains(p, "in full") {
		t.Fatalf("a whole answer shown while the other side streams: %s", p)
	}
	if q := eval(`document.getElementById("turns").textContent`); !strings.Contains(q, "How do I reset my router?") {
		t.Fatalf("the question is not shown: %q", q)
	}
	close(z.hold)
	step("voting opens and a follow-up is offered",
		poll(`document.body.dataset.state === "open" && !document.getElementById("ask-form").hidden`))
	if p := eval(panes); strings.Count(p, "turn 1 in full") != 2 {
		t.Fatalf("panes after turn 1: %s", p)
	}

	step("follow up", chromedp.SendKeys("#ask-text", "And if that fails?"), chromedp.Click("#ask-send"),
		poll(`document.getElementById("turns").textContent.includes("And if that fails?")`),
		poll(`document.body.dataset.state === "open"`))
	if p := eval(panes); strings.Count(p, "turn 2 in full") != 2 || strings.Count(p, "turn 1 in full") != 2 {
		t.Fatalf("panes after the follow-up: %s", p)
	}
	if low := strings.ToLower(eval(`document.body.textContent`)); strings.Contains(low, "zephyr") || strings.Contains(low, "quill") {
		t.Fatalf("a model is named before the vote: %s", low)
	}
	screenshot(t, ctx, "judge-chat.png")

	step("vote for A", chromedp.KeyEvent("1"), poll(`document.body.dataset.state === "voted"`))
	if r := eval(`document.getElementById("reveal").textContent`); !strings.Contains(r, modelZephyr.Name) || !strings.Contains(r, modelQuill.Name) {
		t.Fatalf("reveal %q", r)
	}

	// The conversation is in the battle export (the writer of `ringside
	// export battles` over the same rows), with both turns on both sides;
	// cmd/ringside's TestChatBattleInTheExportCommands runs the command
	// itself after a chat battle on `ringside serve`.
	var out strings.Builder
	w := battlefile.NewWriter(&out)
	err := h.db.EachExportVote(context.Background(), "", func(e *store.ExportVote) error {
		rec, err := battlefile.FromExportVote(e)
		if err != nil {
			return err
		}
		return w.Write(rec)
	})
	if err == nil {
		err = w.Flush()
	}
	line := out.String()
	if err != nil || !strings.Contains(line, `"turn":2`) || !strings.Contains(line, `"conversation_a":[{"role":"user","content":"How do I reset my router?"}`) ||
		!strings.Contains(line, `{"role":"user","content":"And if that fails?"}`) || !strings.Contains(line, `"conversation_b":`) {
		t.Fatalf("export: %v\n%s", err, line)
	}
}
