package server_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
)

func TestJudgeWatchesBothStreamsVotesAndSeesReveal(t *testing.T) {
	h := newHarness(t, nil, nil)
	j := h.dial(h.invite("ana", 3))
	w := j.watch()

	// Both sides streamed in full, one model each.
	got := map[string]bool{w.text["a"]: true, w.text["b"]: true}
	if !got[zephyrText] || !got[quillText] {
		t.Fatalf("streams a=%q b=%q; want the two outputs", w.text["a"], w.text["b"])
	}
	v := j.vote(w.id, "a")
	if v.Winner != "a" || v.Duplicate || v.Progress.Done != 1 || v.Progress.Quota != 3 {
		t.Fatalf("voted = %s", v.raw)
	}
	if v.Reveal == nil {
		t.Fatalf("voted has no reveal under after_vote: %s", v.raw)
	}
	// The reveal names the model whose text was on each side.
	byText := map[string]string{zephyrText: modelZephyr.Name, quillText: modelQuill.Name}
	if v.Reveal.A != byText[w.text["a"]] || v.Reveal.B != byText[w.text["b"]] {
		t.Fatalf("reveal %+v does not match the streams", *v.Reveal)
	}

	ctx := context.Background()
	b := h.stored(w.id)
	if b.Source != ringside.SourceLive || b.ModelA != v.Reveal.A || b.GenerationA == "" || b.GenerationB == "" {
		t.Fatalf("stored battle %+v", b)
	}
	ga, err := h.db.Generation(ctx, b.GenerationA)
	if err != nil || ga.Output != w.text["a"] || ga.Model != b.ModelA {
		t.Fatalf("generation a = %+v, %v", ga, err)
	}
	m := modelPrice(b.ModelA)
	if want := m.Cost(12, ga.TokensOut); ga.CostUSD != want {
		t.Fatalf("cost %v, want %v", ga.CostUSD, want)
	}
	vote, err := h.db.VoteBy(ctx, w.id, judgeID(t, h, "ana"))
	if err != nil || vote.Winner != ringside.WinnerA || vote.DurationMs < 0 {
		t.Fatalf("stored vote %+v, %v", vote, err)
	}

	// The next battle is a new one.
	if w2 := j.watch(); w2.id == w.id {
		t.Fatal("the same battle was dealt twice")
	}
}

func modelPrice(name string) ringside.Model {
	if name == modelZephyr.Name {
		return modelZephyr
	}
	return modelQuill
}

func judgeID(t *testing.T, h *harness, name string) string {
	t.Helper()
	js, err := h.db.Judges(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range js {
		if j.Name == name {
			return j.ID
		}
	}
	t.Fatalf("no judge %s", name)
	return ""
}

// TestNothingBeforeTheVoteNamesAModel reads every frame a judge gets
// before voting, over several battles (one of them void, whose provider
// error names the model), and looks for anything that identifies a model.
func TestNothingBeforeTheVoteNamesAModel(t *testing.T) {
	failing := newFake(quillText, 0)
	failing.failAfter = 2
	failing.failCalls = 1
	failing.failText = "quill-beta at quasar-77: anthropic overloaded, retry later"
	fakes := map[string]*fakeModel{modelZephyr.Name: newFake(zephyrText, 0), modelQuill.Name: failing}
	h := newHarness(t, nil, fakes)
	j := h.dial(h.invite("blind", 0))

	j.send(map[string]string{"type": "next"})
	void := false
	for !void {
		f := j.read()
		void = f.Type == "end" && f.Void
	}
	// The failure dealt the next battle, where the model works.
	b := j.until("battle")
	w := j.follow(b.BattleID)
	before := j.rawLog()
	j.vote(w.id, "tie")

	forbidden := []string{
		modelZephyr.Name, modelZephyr.ModelID, modelZephyr.BaseURL, "zephyr",
		modelQuill.Name, modelQuill.ModelID, "quill", "quasar",
		"openai", "anthropic", "sim", "provider", "model",
		"price", "cost", "token", "ttft", "latency", "1.25", "9.75", "17.5",
		"overloaded", "retry", "server_error",
	}
	low := strings.ToLower(before)
	for _, word := range forbidden {
		if strings.Contains(low, strings.ToLower(word)) {
			t.Errorf("a frame before the vote contains %q:\n%s", word, before)
		}
	}
	if !strings.Contains(before, `"void":true`) {
		t.Fatalf("no void end before the vote:\n%s", before)
	}
}

func TestVoteRulesAndErrors(t *testing.T) {
	h := newHarness(t, nil, nil)
	ana := h.dial(h.invite("ana", 0))
	bob := h.dial(h.invite("bob", 0))
	w := ana.watch()

	// A battle never dealt to bob: refused, nothing stored.
	bob.send(map[string]any{"type": "vote", "battle_id": w.id, "winner": "b"})
	if f := bob.until("error"); f.Code != ringside.EUNAUTHORIZED || f.BattleID != w.id {
		t.Fatalf("vote on another judge's battle: %s", f.raw)
	}
	bob.send(map[string]any{"type": "vote", "battle_id": "no-such-battle", "winner": "b"})
	if f := bob.until("error"); f.Code != ringside.EUNAUTHORIZED {
		t.Fatalf("vote on an unknown battle: %s", f.raw)
	}

	// The first vote counts; a second one answers with the first's result.
	first := ana.vote(w.id, "b")
	again := ana.vote(w.id, "a")
	if first.Winner != "b" || again.Winner != "b" || !again.Duplicate || again.Reveal == nil ||
		again.Progress.Done != 1 {
		t.Fatalf("first %s, again %s", first.raw, again.raw)
	}
	n, err := h.db.CountVotes(context.Background())
	if err != nil || n != 1 {
		t.Fatalf("votes stored = %d, %v; want 1", n, err)
	}

	// Dimensions must be configured ones; the reason is bounded.
	w2 := ana.watch()
	for _, bad := range []map[string]any{
		{"type": "vote", "battle_id": w2.id, "winner": "a", "dimensions": map[string]string{"charm": "a"}},
		{"type": "vote", "battle_id": w2.id, "winner": "a", "dimensions": map[string]string{"factual_accuracy": "c"}},
		{"type": "vote", "battle_id": w2.id, "winner": "c"},
		{"type": "vote", "battle_id": w2.id, "winner": "a", "reason": strings.Repeat("x", 2001)},
	} {
		ana.send(bad)
		if f := ana.until("error"); f.Code != ringside.EINVALID {
			t.Fatalf("vote %v: %s", bad, f.raw)
		}
	}
	ana.send(map[string]any{"type": "vote", "battle_id": w2.id, "winner": "bothbad", "reason": "both invented a policy",
		"dimensions": map[string]string{"factual_accuracy": "tie", "instruction_following": "a"}})
	ana.until("voted")
	v, err := h.db.VoteBy(context.Background(), w2.id, judgeID(t, h, "ana"))
	if err != nil || v.Winner != ringside.WinnerBothBad || v.Dimensions["instruction_following"] != ringside.WinnerA || v.Reason != "both invented a policy" {
		t.Fatalf("vote with dimensions = %+v, %v", v, err)
	}
}

func TestRevealPolicies(t *testing.T) {
	t.Run("never", func(t *testing.T) {
		h := newHarness(t, func(c *config.Config) { c.Judging.Reveal = config.RevealNever }, nil)
		j := h.dial(h.invite("n", 1))
		w := j.watch()
		if v := j.vote(w.id, "a"); v.Reveal != nil || strings.Contains(v.raw, "zephyr") {
			t.Fatalf("voted under never: %s", v.raw)
		}
		j.send(map[string]string{"type": "next"})
		if d := j.until("done"); d.Reason != "quota" || len(d.Reveals) != 0 || d.Progress.Done != 1 {
			t.Fatalf("done under never: %s", d.raw)
		}
	})
	t.Run("after_session", func(t *testing.T) {
		h := newHarness(t, func(c *config.Config) { c.Judging.Reveal = config.RevealAfterSession }, nil)
		j := h.dial(h.invite("s", 2))
		var ids []string
		for range 2 {
			w := j.watch()
			if v := j.vote(w.id, "b"); v.Reveal != nil {
				t.Fatalf("voted reveals before the session ends: %s", v.raw)
			}
			ids = append(ids, w.id)
		}
		j.send(map[string]string{"type": "next"})
		d := j.until("done")
		if d.Reason != "quota" || len(d.Reveals) != 2 {
			t.Fatalf("done: %s", d.raw)
		}
		for _, r := range d.Reveals {
			if r["a"] == "" || r["b"] == "" || r["a"] == r["b"] || r["winner"] != "b" {
				t.Fatalf("reveal %v", r)
			}
		}
	})
}
