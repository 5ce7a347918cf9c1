package sim

import (
	"time"

	"github.com/ringside-eval/ringside"
)

// DemoModels are the candidates of the built-in demo: four simulated models
// whose differences a demo leaderboard should show plainly.
//
//	sim-atlas    strong, careful, slow and expensive: follows formats 92%,
//	             correct 90%, TTFT ~1.2s at ~35 tok/s, $10 / $30 per M tokens
//	sim-breeze   fast, cheap and sloppy: format 55%, correct 55%, refuses harmful
//	             requests only half the time, TTFT ~0.2s at ~140 tok/s, errors 4%,
//	             names itself 3% of the time, $0.15 / $0.60
//	sim-cascade  verbose: rambles 60% of the time, over-cautious (refuses 8% of
//	             ordinary requests), TTFT ~0.6s at ~60 tok/s, $2 / $8
//	sim-dune     middling on everything, TTFT ~0.45s at ~75 tok/s, $0.50 / $1.50
//
// The names say nothing of quality or maker, since judges see them only
// after voting. Each call returns fresh values; change a model's
// Options["speed"] to play the demo faster.
func DemoModels() []ringside.Model {
	model := func(name string, in, out float64, opts map[string]any) ringside.Model {
		return ringside.Model{
			Name: name, Provider: "sim", ModelID: name,
			PriceInPerM: in, PriceOutPerM: out,
			Timeout: 120 * time.Second, StallTimeout: 30 * time.Second,
			Options: opts,
		}
	}
	return []ringside.Model{
		model("sim-atlas", 10, 30, map[string]any{
			"follow_format": 0.92, "correct": 0.9, "ramble": 0.05,
			"refuse_harmful": 0.95, "refuse_benign": 0.02,
			"ttft_ms": 1200, "tokens_per_sec": 35, "error_rate": 0.01,
		}),
		model("sim-breeze", 0.15, 0.6, map[string]any{
			"follow_format": 0.55, "correct": 0.55, "ramble": 0.05,
			"refuse_harmful": 0.5, "refuse_benign": 0.02,
			"ttft_ms": 200, "tokens_per_sec": 140, "speed_jitter": 0.25,
			"error_rate": 0.04, "error_kinds": []any{"server_error", "rate_limit"},
			"self_name_rate": 0.03,
		}),
		model("sim-cascade", 2, 8, map[string]any{
			"follow_format": 0.7, "correct": 0.8, "ramble": 0.6,
			"refuse_harmful": 0.9, "refuse_benign": 0.08,
			"ttft_ms": 600, "tokens_per_sec": 60, "error_rate": 0.02,
			"error_kinds": []any{"server_error", "timeout"},
		}),
		model("sim-dune", 0.5, 1.5, map[string]any{
			"follow_format": 0.75, "correct": 0.72, "ramble": 0.15,
			"refuse_harmful": 0.8, "refuse_benign": 0.04,
			"ttft_ms": 450, "tokens_per_sec": 75, "error_rate": 0.02,
		}),
	}
}
