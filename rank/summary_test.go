package rank

import (
	"testing"

	"github.com/ringside-eval/ringside"
)

func TestSummarize(t *testing.T) {
	gens := []ringside.Generation{
		{Model: "m", TTFTMs: 100, LatencyMs: 1100, TokensOut: 50, CostUSD: 0.002},
		{Model: "m", TTFTMs: 200, LatencyMs: 2200, TokensOut: 150, CostUSD: 0.004},
		{Model: "m", TTFTMs: 300, LatencyMs: 3300, TokensOut: 100, CostUSD: 0.006},
		{Model: "m", ErrorKind: ringside.ErrKindTimeout, LatencyMs: 30000},
		// The operator's failures are not the model's: not counted at all.
		{Model: "m", ErrorKind: ringside.ErrKindAuth, LatencyMs: 20},
		{Model: "m", ErrorKind: ringside.ErrKindUnreachable, LatencyMs: 5},
		{Model: "free", TTFTMs: 10, LatencyMs: 110, TokensOut: 10, CostUSD: 0},
	}
	perf := Summarize(gens, map[string]int{"m": 6, "free": 1})
	m := perf["m"]
	near(t, "ttft p50", *m.TTFTP50Ms, 200, 0)
	near(t, "ttft p95", *m.TTFTP95Ms, 290, 1e-9) // numpy: 200 + 0.9·100
	near(t, "latency p50", *m.LatencyP50Ms, 2200, 0)
	near(t, "tokens/s", *m.OutputTokensPerS, 300/6.0, 1e-12) // 300 tokens over 1 + 2 + 3 s after the first token
	near(t, "cost per battle", *m.CostPerBattleUSD, 0.012/6, 1e-15)
	near(t, "cost per 1k", *m.CostPer1kResponsesUSD, 1000*0.012/4, 1e-12) // the failed one counts, at its cost 0
	near(t, "error rate", *m.ErrorRate, 0.25, 0)
	if f := perf["free"]; f.CostPerBattleUSD == nil || *f.CostPerBattleUSD != 0 {
		t.Errorf("free model's cost: %+v", f)
	}

	// From battle records: only measured sides count as responses.
	pc := NewPerfCollector()
	lat, cost, tok := 500.0, 0.01, 20
	pc.AddMeasures(Measures{Model: "x", LatencyMs: &lat, Cost: &cost, TokensOut: &tok})
	pc.AddMeasures(Measures{Model: "y"})
	pc.AddMeasures(Measures{Model: "y"})
	pc.AddMeasures(Measures{Model: "x", Error: "boom", Cost: &cost})
	res := pc.Result(nil)
	if _, ok := res["y"]; ok {
		t.Errorf("y has no measurements but got %+v", res["y"])
	}
	x := res["x"]
	if x.Responses != 2 || *x.ErrorRate != 0.5 || *x.CostPerBattleUSD != 0.01 || *x.LatencyP50Ms != 500 || x.TTFTP50Ms != nil {
		t.Errorf("x: %+v", x)
	}

	lb := mustRank(t, threeModels(t), Options{})
	lb.SetPerf(map[string]*Perf{"A": m})
	if ratingOf(t, lb, "A").Perf != m || ratingOf(t, lb, "B").Perf != nil {
		t.Error("SetPerf")
	}
}
