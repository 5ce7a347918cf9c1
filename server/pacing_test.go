package server_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ringside-eval/ringside/config"
)

// TestPacingShowsBothSidesTogether: a model that writes everything at once
// and one that trickles show in step, the fast one never ahead of the slow
// one while it streams, and both sides on the same frames.
func TestPacingShowsBothSidesTogether(t *testing.T) {
	fast := &fakeModel{chunks: []string{strings.Repeat("fast ", 40)}, failAfter: -1}
	slow := newFake(strings.Repeat("slow ", 12), 15*time.Millisecond)
	h := newHarness(t, func(c *config.Config) { c.Judging.DisplayRate = 2000 },
		map[string]*fakeModel{modelZephyr.Name: fast, modelQuill.Name: slow})
	j := h.dial(h.invite("paced", 0))
	j.send(map[string]string{"type": "next"})
	b := j.until("battle")
	shown := map[string]int{}
	ended := map[string]bool{}
	var fastSide, slowSide, last string
	for !(ended["a"] && ended["b"]) {
		f := j.read()
		if f.BattleID != b.BattleID {
			continue
		}
		switch f.Type {
		case "delta":
			// Until a side ended, its deltas come in pairs, a then b, on
			// the same tick.
			if !ended["a"] && !ended["b"] && f.Side == last {
				t.Fatalf("two deltas of side %s in a row: %s", f.Side, j.shortLog())
			}
			last = f.Side
			shown[f.Side] += len(f.Text)
			if strings.Contains(f.Text, "fast") {
				fastSide, slowSide = f.Side, map[string]string{"a": "b", "b": "a"}[f.Side]
			}
		case "end":
			ended[f.Side] = true
		}
		// While the slow side streams, the fast one never shows more.
		if fastSide != "" && !ended[slowSide] && shown[fastSide] > shown[slowSide] {
			t.Fatalf("fast side ahead of the slow one: %d > %d", shown[fastSide], shown[slowSide])
		}
	}
	if shown[fastSide] != 200 || shown[slowSide] != 60 {
		t.Fatalf("shown %v", shown)
	}
}
