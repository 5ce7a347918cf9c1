package rank

import (
	"slices"

	"github.com/ringside-eval/ringside"
)

// ModelSummary is one model's measurements over a set of generations.
type ModelSummary struct {
	Model       string `json:"model"`
	Generations int    `json:"generations"`
	// Errors counts failed generations by error kind; ErrorCount is their sum.
	Errors     map[string]int `json:"errors,omitempty"`
	ErrorCount int            `json:"error_count"`
	// Latency percentiles in milliseconds over the successful generations
	// only: a failure's timing measures the failure (a timeout's is the
	// timeout), not the model. NaN when there is none.
	TTFTP50    float64 `json:"ttft_p50_ms"`
	TTFTP95    float64 `json:"ttft_p95_ms"`
	LatencyP50 float64 `json:"latency_p50_ms"`
	LatencyP95 float64 `json:"latency_p95_ms"`
	// Tokens and cost over all generations, failed ones included: a failed
	// stream may still be billed for what it read and wrote.
	TokensIn  int `json:"tokens_in"`
	TokensOut int `json:"tokens_out"`
	// Estimated counts the generations whose token counts are estimates.
	Estimated int     `json:"tokens_estimated"`
	CostUSD   float64 `json:"cost_usd"`
}

// SummarizeRun returns one summary per model found in a run's generations,
// by model name: what `ringside run` prints at its end.
func SummarizeRun(gens []ringside.Generation) []ModelSummary {
	type acc struct {
		s             ModelSummary
		ttft, latency []float64
	}
	by := map[string]*acc{}
	var names []string
	for i := range gens {
		g := &gens[i]
		a := by[g.Model]
		if a == nil {
			a = &acc{s: ModelSummary{Model: g.Model}}
			by[g.Model] = a
			names = append(names, g.Model)
		}
		a.s.Generations++
		a.s.TokensIn += g.TokensIn
		a.s.TokensOut += g.TokensOut
		a.s.CostUSD += g.CostUSD
		if g.TokensEstimated {
			a.s.Estimated++
		}
		if g.Failed() {
			if a.s.Errors == nil {
				a.s.Errors = map[string]int{}
			}
			a.s.Errors[g.ErrorKind]++
			a.s.ErrorCount++
			continue
		}
		a.ttft = append(a.ttft, g.TTFTMs)
		a.latency = append(a.latency, g.LatencyMs)
	}
	slices.Sort(names)
	out := make([]ModelSummary, 0, len(names))
	for _, n := range names {
		a := by[n]
		slices.Sort(a.ttft)
		slices.Sort(a.latency)
		a.s.TTFTP50, a.s.TTFTP95 = Quantile(a.ttft, 0.5), Quantile(a.ttft, 0.95)
		a.s.LatencyP50, a.s.LatencyP95 = Quantile(a.latency, 0.5), Quantile(a.latency, 0.95)
		out = append(out, a.s)
	}
	return out
}
