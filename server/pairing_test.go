package server_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
)

// storePairBattles stores a run with n battles of each pair of models.
func storePairBattles(t *testing.T, h *harness, models []string, n map[[2]string]int) {
	t.Helper()
	ctx := context.Background()
	run := &ringside.Run{Name: "pairs", Models: models, Samples: 1}
	if err := h.db.CreateRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	sample := 0
	for pair, count := range n {
		for range count {
			sample++
			k := sample
			// The harness's two prompts, each sample a battle of its own.
			prompt := []string{"refund-1", "refund-2"}[k%2]
			var ids [2]string
			for i, m := range pair {
				g := &ringside.Generation{RunID: run.ID, PromptSet: "support", PromptID: prompt, Sample: k, Model: m, Output: "answer of side " + fmt.Sprint(i),
					TTFTMs: 1, LatencyMs: 2, TokensIn: 1, TokensOut: 1}
				if err := h.db.CreateGeneration(ctx, g); err != nil {
					t.Fatal(err)
				}
				ids[i] = g.ID
			}
			b := &ringside.Battle{RunID: run.ID, Source: ringside.SourceRun, PromptSet: "support", PromptID: prompt, Sample: k, ModelA: pair[0], ModelB: pair[1],
				GenerationA: ids[0], GenerationB: ids[1]}
			if err := h.db.CreateBattle(ctx, b); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestAdaptiveStoredDealsEveryBattleWithItsPropensity: under adaptive
// pairing a judge is dealt a pair's battles until none is left, then the
// other pairs', so every stored battle comes round once; each deal keeps
// the probability its pair was drawn with, which the vote tallies carry.
func TestAdaptiveStoredDealsEveryBattleWithItsPropensity(t *testing.T) {
	h := newHarness(t, func(c *config.Config) {
		c.Judging.Source = config.SourceStored
		c.Judging.Pace = config.PaceInstant
		c.Judging.Pairing = config.PairingAdaptive
	}, nil)
	storePairBattles(t, h, []string{"ash", "birch", "cedar"}, map[[2]string]int{
		{"ash", "birch"}: 1, {"birch", "cedar"}: 3, {"cedar", "ash"}: 2,
	})
	j := h.dial(h.invite("explorer", 0))
	seen := map[string]bool{}
	for range 6 {
		w := j.watch()
		if seen[w.id] {
			t.Fatalf("battle %s dealt twice", w.id)
		}
		seen[w.id] = true
		j.vote(w.id, "a")
	}
	j.send(map[string]string{"type": "next"})
	if d := j.until("done"); d.Reason != "empty" {
		t.Fatalf("after every battle: %s", d.raw)
	}
	tallies, err := h.db.PairTallies(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	votes := 0
	for _, tl := range tallies {
		votes += tl.Count
		// Every deal was drawn: 1/p is at least 1 per vote.
		if tl.Drawn != tl.Count || tl.InverseSum < float64(tl.Count) {
			t.Errorf("tally %+v: every vote should carry a propensity in (0, 1]", tl)
		}
	}
	if votes != 6 {
		t.Errorf("%d votes tallied, want 6", votes)
	}
}

// TestUniformStoredKeepsNoPropensity: uniform pairing deals stored battles
// least-dealt first, as before, and stores no propensity.
func TestUniformStoredKeepsNoPropensity(t *testing.T) {
	h := newHarness(t, func(c *config.Config) {
		c.Judging.Source = config.SourceStored
		c.Judging.Pace = config.PaceInstant
		c.Judging.Pairing = config.PairingUniform
	}, nil)
	storePairBattles(t, h, []string{"ash", "birch"}, map[[2]string]int{{"ash", "birch"}: 2})
	j := h.dial(h.invite("plain", 0))
	for range 2 {
		j.vote(j.watch().id, "b")
	}
	tallies, err := h.db.PairTallies(context.Background())
	if err != nil || len(tallies) != 1 || tallies[0].Count != 2 || tallies[0].Drawn != 0 {
		t.Fatalf("tallies %+v, %v", tallies, err)
	}
}

// TestAdaptiveLiveDealsKeepThePropensity: live battles under adaptive
// pairing are drawn by pair, and the vote is tallied with its propensity.
func TestAdaptiveLiveDealsKeepThePropensity(t *testing.T) {
	h := newHarness(t, func(c *config.Config) { c.Judging.Pairing = config.PairingAdaptive }, nil)
	j := h.dial(h.invite("live", 0))
	for range 3 {
		j.vote(j.watch().id, "a")
	}
	tallies, err := h.db.PairTallies(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	drawn := 0
	for _, tl := range tallies {
		drawn += tl.Drawn
	}
	if drawn != 3 {
		t.Fatalf("%d of 3 live votes carry a propensity: %+v", drawn, tallies)
	}
}
