package rank_test

import (
	"math"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/rank"
)

func TestSummarizeRun(t *testing.T) {
	gens := []ringside.Generation{
		{Model: "b", TTFTMs: 100, LatencyMs: 1000, TokensIn: 10, TokensOut: 20, CostUSD: 0.5},
		{Model: "a", TTFTMs: 10, LatencyMs: 100, TokensIn: 1, TokensOut: 2, CostUSD: 0.1, TokensEstimated: true},
		{Model: "a", TTFTMs: 30, LatencyMs: 300, TokensIn: 1, TokensOut: 2, CostUSD: 0.1},
		{Model: "a", TTFTMs: 9000, LatencyMs: 9000, TokensIn: 1, CostUSD: 0.01, ErrorKind: ringside.ErrKindTimeout},
		{Model: "a", ErrorKind: ringside.ErrKindTimeout},
		{Model: "a", ErrorKind: ringside.ErrKindServer},
	}
	got := rank.SummarizeRun(gens)
	if len(got) != 2 || got[0].Model != "a" || got[1].Model != "b" {
		t.Fatalf("Summarize = %+v", got)
	}
	a := got[0]
	if a.Generations != 5 || a.ErrorCount != 3 || a.Errors["timeout"] != 2 || a.Errors["server_error"] != 1 {
		t.Fatalf("a's counts: %+v", a)
	}
	// Percentiles over the two successes only: the timeout's 9s is not a latency.
	if a.TTFTP50 != 20 || a.LatencyP50 != 200 || a.LatencyP95 != 290 {
		t.Fatalf("a's percentiles: %+v", a)
	}
	if a.TokensIn != 3 || a.TokensOut != 4 || a.Estimated != 1 || math.Abs(a.CostUSD-0.21) > 1e-12 {
		t.Fatalf("a's tokens and cost: %+v", a)
	}
}
