package arena_test

import (
	"math"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/arena"
)

func TestQuantileMatchesNumpy(t *testing.T) {
	// numpy.percentile([1, 2, 3, 4], [25, 50, 95, 0, 100]) → 1.75, 2.5, 3.85, 1, 4
	xs := []float64{1, 2, 3, 4}
	for q, want := range map[float64]float64{0.25: 1.75, 0.5: 2.5, 0.95: 3.85, 0: 1, 1: 4} {
		if got := arena.Quantile(xs, q); math.Abs(got-want) > 1e-12 {
			t.Errorf("Quantile(%v) = %v, want %v", q, got, want)
		}
	}
	if got := arena.Quantile([]float64{7}, 0.95); got != 7 {
		t.Errorf("one value: %v", got)
	}
	if !math.IsNaN(arena.Quantile(nil, 0.5)) {
		t.Error("no values should give NaN")
	}
}

func TestSummarize(t *testing.T) {
	gens := []ringside.Generation{
		{Model: "b", TTFTMs: 100, LatencyMs: 1000, TokensIn: 10, TokensOut: 20, CostUSD: 0.5},
		{Model: "a", TTFTMs: 10, LatencyMs: 100, TokensIn: 1, TokensOut: 2, CostUSD: 0.1, TokensEstimated: true},
		{Model: "a", TTFTMs: 30, LatencyMs: 300, TokensIn: 1, TokensOut: 2, CostUSD: 0.1},
		{Model: "a", TTFTMs: 9000, LatencyMs: 9000, TokensIn: 1, CostUSD: 0.01, ErrorKind: ringside.ErrKindTimeout},
		{Model: "a", ErrorKind: ringside.ErrKindTimeout},
		{Model: "a", ErrorKind: ringside.ErrKindServer},
	}
	got := arena.Summarize(gens)
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
