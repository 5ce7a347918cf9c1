package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
)

// The judge page offers "Change my vote" after a vote while the models are
// hidden, and takes it away with the next battle.
func TestChangeMyVoteInABrowser(t *testing.T) {
	ctx := newBrowser(t)
	h := newHarness(t, func(c *config.Config) { c.Judging.Reveal = config.RevealNever }, nil)
	token := h.invite("chloe", 3)
	step := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		if err := chromedp.Do(sctx, actions...); err != nil {
			page, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.dataset.state + " | " + document.getElementById("status").textContent`))
			t.Fatalf("%s: %v (page: %s)", what, err, page)
		}
	}
	state := func(s string) chromedp.Action[chromedp.Void] {
		return chromedp.Poll[chromedp.Void](`document.body.dataset.state === "`+s+`"`, chromedp.WithPollingTimeout(15*time.Second))
	}
	step("open the invite link", chromedp.Navigate(h.ts.URL+"/judge?token="+token), state("open"))
	step("vote A", chromedp.KeyEvent("1"), state("voted"),
		chromedp.Poll[chromedp.Void](`!document.getElementById("change").hidden`, chromedp.WithPollingTimeout(5*time.Second)))
	step("change the vote to B", chromedp.KeyEvent("c"), state("open"), chromedp.KeyEvent("2"),
		state("voted"), chromedp.Poll[chromedp.Void](`document.getElementById("status").textContent.startsWith("Vote changed")`, chromedp.WithPollingTimeout(5*time.Second)))

	ctx0 := context.Background()
	judge := judgeNamed(t, h, "chloe")
	voted, err := h.db.JudgeVotedBattles(ctx0, judge.ID, 10)
	if err != nil || len(voted) != 1 || voted[0].Winner != ringside.WinnerB {
		t.Fatalf("after the change: %+v, %v; want one vote for B", voted, err)
	}
	old, err := h.db.SupersededVotes(ctx0, voted[0].BattleID)
	if err != nil || len(old) != 1 || old[0].Winner != ringside.WinnerA {
		t.Fatalf("superseded %+v, %v; want the vote for A kept", old, err)
	}
	if p, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("progress-label").textContent`)); p != "1 / 3" {
		t.Fatalf("progress %q after a change, want 1 / 3", p)
	}
	step("next battle", chromedp.KeyEvent("n"), state("open"))
	hidden, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("change").hidden`))
	if !hidden {
		t.Fatal("Change my vote still offered on the next battle")
	}
	if s, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`)); strings.Contains(s, modelZephyr.Name) || strings.Contains(s, modelQuill.Name) {
		t.Fatal("a model is named on the page under reveal = never")
	}
}
