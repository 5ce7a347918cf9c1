package leaderboard

import (
	"strings"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/rank"
)

// A model whose every generation failed has no rated battle; it still
// appears on the board, flagged no_battles with its 100% error rate, in
// the JSON and in the table the CLI prints.
func TestModelWithNoRatedBattleIsListed(t *testing.T) {
	bs := rank.NewBattles()
	for _, w := range []ringside.Winner{ringside.WinnerA, ringside.WinnerB, ringside.WinnerTie} {
		if err := bs.Add(rank.Battle{ModelA: "good", ModelB: "fine", Winner: w}); err != nil {
			t.Fatal(err)
		}
	}
	pc := rank.NewPerfCollector()
	for _, g := range []ringside.Generation{
		{Model: "good", LatencyMs: 100}, {Model: "fine", LatencyMs: 120},
		{Model: "broken", ErrorKind: ringside.ErrKindServer}, {Model: "broken", ErrorKind: ringside.ErrKindServer},
	} {
		pc.AddGeneration(&g)
	}
	lb, err := Compute(bs, pc, rank.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(lb.Flagged) != 1 {
		t.Fatalf("flagged %+v, want the broken model", lb.Flagged)
	}
	f := lb.Flagged[0]
	if f.Model != "broken" || f.Reason != rank.FlagNoBattles || f.Perf == nil || *f.Perf.ErrorRate != 1 || !strings.Contains(f.Detail, "every one of its 2 generations failed") {
		t.Fatalf("flagged %+v (perf %+v)", f, f.Perf)
	}
	var b strings.Builder
	if err := lb.Write(&b, "table"); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "broken") || !strings.Contains(out, "no_battles") || !strings.Contains(out, "100.0%") {
		t.Fatalf("the table does not show the broken model and its error rate:\n%s", out)
	}
}
