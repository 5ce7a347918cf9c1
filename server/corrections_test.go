package server_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
)

// A judge corrects their last vote over the websocket: the correction
// replaces the vote the boards count, the first stays in the record, and
// once the judge takes the next battle the window is closed.
func TestVoteCorrectionOverTheWebsocket(t *testing.T) {
	h := newHarness(t, func(c *config.Config) { c.Judging.Reveal = config.RevealAfterSession }, nil)
	j := h.dial(h.invite("cora", 3))
	w := j.watch()
	v := j.vote(w.id, "a")
	if !strings.Contains(v.raw, `"changeable":true`) {
		t.Fatalf("first vote not changeable: %s", v.raw)
	}
	j.send(map[string]any{"type": "vote", "battle_id": w.id, "winner": "b", "reason": "read it again", "correction": true})
	c := j.until("voted")
	if c.Winner != "b" || !strings.Contains(c.raw, `"corrected":true`) || c.Progress.Done != 1 || c.Reveal != nil {
		t.Fatalf("correction acknowledged as %s", c.raw)
	}
	for _, name := range []string{modelZephyr.Name, modelQuill.Name, modelZephyr.ModelID, modelQuill.ModelID} {
		if strings.Contains(c.raw, name) {
			t.Fatalf("the correction's acknowledgement names a model: %s", c.raw)
		}
	}
	ctx := context.Background()
	judge := judgeNamed(t, h, "cora")
	latest, err := h.db.VoteBy(ctx, w.id, judge.ID)
	if err != nil || latest.Winner != ringside.WinnerB || latest.Reason != "read it again" {
		t.Fatalf("stored vote %+v, %v; want the correction", latest, err)
	}
	old, err := h.db.SupersededVotes(ctx, w.id)
	if err != nil || len(old) != 1 || old[0].Winner != ringside.WinnerA || old[0].ID == latest.ID {
		t.Fatalf("superseded votes %+v, %v; want the first vote", old, err)
	}
	if n, _ := h.db.CountVotes(ctx); n != 1 {
		t.Fatalf("%d votes stored, want 1 (only the latest counts)", n)
	}

	// Taking the next battle closes the window.
	w2 := j.watch()
	j.send(map[string]any{"type": "vote", "battle_id": w.id, "winner": "tie", "correction": true})
	if e := j.until("error"); e.Code != "conflict" || e.BattleID != w.id {
		t.Fatalf("late correction answered %s", e.raw)
	}
	// A correction of a battle not voted on yet is refused too.
	j.send(map[string]any{"type": "vote", "battle_id": w2.id, "winner": "tie", "correction": true})
	if e := j.until("error"); e.Code != "conflict" {
		t.Fatalf("correction before voting answered %s", e.raw)
	}
	if latest, _ := h.db.VoteBy(ctx, w.id, judge.ID); latest.Winner != ringside.WinnerB {
		t.Fatalf("a refused correction changed the vote to %s", latest.Winner)
	}
}

// Under after_vote the models are shown with the acknowledgement, so a
// vote cannot be changed: a change could follow the names.
func TestNoCorrectionAfterTheReveal(t *testing.T) {
	h := newHarness(t, nil, nil)
	j := h.dial(h.invite("rex", 2))
	w := j.watch()
	v := j.vote(w.id, "a")
	if v.Reveal == nil || strings.Contains(v.raw, "changeable") {
		t.Fatalf("after_vote acknowledgement %s: want the reveal and no changeable", v.raw)
	}
	j.send(map[string]any{"type": "vote", "battle_id": w.id, "winner": "b", "correction": true})
	if e := j.until("error"); e.Code != "conflict" || !strings.Contains(e.Message, "shown") {
		t.Fatalf("correction after the reveal answered %s", e.raw)
	}
	ctx := context.Background()
	judge := judgeNamed(t, h, "rex")
	if latest, _ := h.db.VoteBy(ctx, w.id, judge.ID); latest.Winner != ringside.WinnerA {
		t.Fatalf("vote became %s after a refused correction", latest.Winner)
	}
}

func judgeNamed(t *testing.T, h *harness, name string) *ringside.Judge {
	t.Helper()
	all, err := h.db.Judges(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for i := range all {
		if all[i].Name == name {
			return &all[i]
		}
	}
	t.Fatalf("no judge %s", name)
	return nil
}
