package rank

import (
	"fmt"
	"slices"

	"github.com/ringside-eval/ringside"
)

// Perf is what a leaderboard shows beside a rating from measured
// generations: nil fields were not measured. Latencies are in milliseconds
// from the moment the request was sent.
type Perf struct {
	TTFTP50Ms    *float64 `json:"ttft_p50_ms,omitempty"`
	TTFTP95Ms    *float64 `json:"ttft_p95_ms,omitempty"`
	LatencyP50Ms *float64 `json:"latency_p50_ms,omitempty"`
	LatencyP95Ms *float64 `json:"latency_p95_ms,omitempty"`
	// OutputTokensPerS is decoding speed: output tokens over the time after
	// the first token, summed over successful generations.
	OutputTokensPerS *float64 `json:"output_tokens_per_s,omitempty"`
	// CostPerBattleUSD is the model's total cost over the battles it took
	// part in (a generation shown in several battles counts once).
	CostPerBattleUSD      *float64 `json:"cost_per_battle_usd,omitempty"`
	CostPer1kResponsesUSD *float64 `json:"cost_per_1k_responses_usd,omitempty"`
	ErrorRate             *float64 `json:"error_rate,omitempty"`
	Responses             int      `json:"responses,omitempty"`
}

// PerfCollector gathers per-model measurements from stored generations or
// from the measured fields of battle records, and summarises them.
type PerfCollector struct {
	models map[string]*perfAcc
	order  []string
}

type perfAcc struct {
	ttft, latency     []float64
	tokens, decodeMs  float64
	cost              float64
	costed, responses int
	errors            int
	battles           int
}

// NewPerfCollector returns an empty collector.
func NewPerfCollector() *PerfCollector {
	return &PerfCollector{models: map[string]*perfAcc{}}
}

func (pc *PerfCollector) acc(model string) *perfAcc {
	a := pc.models[model]
	if a == nil {
		a = &perfAcc{}
		pc.models[model] = a
		pc.order = append(pc.order, model)
	}
	return a
}

// AddGeneration counts one stored generation. Timings of zero are taken as
// not measured (no real generation starts in 0 ms); a cost of zero is a
// free model and counts. Failed generations count in the error rate and the
// cost, not in latencies. A failure that was the operator's (a rejected
// key, an unreachable server) says nothing of the model and is not counted.
func (pc *PerfCollector) AddGeneration(g *ringside.Generation) {
	if ringside.OperatorError(g.ErrorKind) {
		return
	}
	a := pc.acc(g.Model)
	a.responses++
	a.cost += g.CostUSD // a failed generation may still have cost money
	a.costed++
	if g.Failed() {
		a.errors++
		return
	}
	tokens := float64(g.TokensOut)
	a.side(ptrIf(g.TTFTMs > 0, g.TTFTMs), ptrIf(g.LatencyMs > 0, g.LatencyMs), &tokens)
}

// Measures are one side of a battle as a battle file records it; nil is
// not measured.
type Measures struct {
	Model                   string
	TTFTMs, LatencyMs, Cost *float64
	TokensOut               *int
	Error                   string
}

// AddMeasures counts one side of a recorded battle. A side with no
// measured field at all is not a response here: a file without
// measurements yields no Perf rather than a zero error rate.
func (pc *PerfCollector) AddMeasures(m Measures) {
	a := pc.acc(m.Model)
	a.battles++
	if m.TTFTMs == nil && m.LatencyMs == nil && m.Cost == nil && m.TokensOut == nil && m.Error == "" {
		return
	}
	a.responses++
	if m.Cost != nil {
		a.cost += *m.Cost
		a.costed++
	}
	if m.Error != "" {
		a.errors++
		return
	}
	var tk *float64
	if m.TokensOut != nil {
		tk = ptr(float64(*m.TokensOut))
	}
	a.side(m.TTFTMs, m.LatencyMs, tk)
}

func (a *perfAcc) side(ttft, latency, tokens *float64) {
	if ttft != nil {
		a.ttft = append(a.ttft, *ttft)
	}
	if latency != nil {
		a.latency = append(a.latency, *latency)
	}
	if ttft != nil && latency != nil && tokens != nil && *latency > *ttft {
		a.tokens += *tokens
		a.decodeMs += *latency - *ttft
	}
}

// Result summarises every model. battles gives each model's battle count
// for the cost per battle; nil uses the records added (AddRecord).
func (pc *PerfCollector) Result(battles map[string]int) map[string]*Perf {
	out := map[string]*Perf{}
	for _, model := range pc.order {
		a := pc.models[model]
		if a.responses == 0 {
			continue
		}
		p := &Perf{Responses: a.responses, ErrorRate: ptr(float64(a.errors) / float64(a.responses))}
		p.TTFTP50Ms, p.TTFTP95Ms = percentiles(a.ttft)
		p.LatencyP50Ms, p.LatencyP95Ms = percentiles(a.latency)
		if a.decodeMs > 0 {
			p.OutputTokensPerS = ptr(a.tokens / (a.decodeMs / 1000))
		}
		if a.costed > 0 {
			p.CostPer1kResponsesUSD = ptr(1000 * a.cost / float64(a.costed))
			n := a.battles
			if battles != nil {
				n = battles[model]
			}
			if n > 0 {
				p.CostPerBattleUSD = ptr(a.cost / float64(n))
			}
		}
		out[model] = p
	}
	return out
}

// Summarize is PerfCollector over stored generations, with each model's
// battle count for the cost per battle.
func Summarize(gens []ringside.Generation, battles map[string]int) map[string]*Perf {
	pc := NewPerfCollector()
	for i := range gens {
		pc.AddGeneration(&gens[i])
	}
	return pc.Result(battles)
}

// SetPerf attaches summaries to the models of the leaderboard (not to its
// slices, whose generations differ).
func (lb *Leaderboard) SetPerf(perf map[string]*Perf) {
	for i := range lb.Models {
		lb.Models[i].Perf = perf[lb.Models[i].Model]
	}
	for i := range lb.Flagged {
		lb.Flagged[i].Perf = perf[lb.Flagged[i].Model]
	}
}

// AddUnrated lists the models that have measurements but are nowhere on
// the board (no rated battle) as flagged FlagNoBattles, with their
// measurements: a model whose every generation failed would otherwise
// vanish, and its error rate with it.
func (lb *Leaderboard) AddUnrated(perf map[string]*Perf) {
	on := lb.BattleCounts()
	var missing []string
	for model := range perf {
		if _, ok := on[model]; !ok {
			missing = append(missing, model)
		}
	}
	slices.Sort(missing)
	for _, model := range missing {
		p := perf[model]
		detail := fmt.Sprintf("%d responses but no rated battle: none of its battles has a vote yet", p.Responses)
		if p.ErrorRate != nil && *p.ErrorRate == 1 {
			detail = fmt.Sprintf("every one of its %d generations failed, so it has no battle to rate", p.Responses)
		}
		lb.Flagged = append(lb.Flagged, FlaggedModel{Model: model, Reason: FlagNoBattles, Detail: detail, Perf: p})
	}
}

// BattleCounts is each model's number of battles on the leaderboard.
func (lb *Leaderboard) BattleCounts() map[string]int {
	out := map[string]int{}
	for _, m := range lb.Models {
		out[m.Model] = m.Battles
	}
	for _, m := range lb.Flagged {
		out[m.Model] = m.Battles
	}
	return out
}

func percentiles(xs []float64) (p50, p95 *float64) {
	if len(xs) == 0 {
		return nil, nil
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return ptr(Quantile(s, 0.5)), ptr(Quantile(s, 0.95))
}

func ptrIf(ok bool, v float64) *float64 {
	if !ok {
		return nil
	}
	return &v
}
