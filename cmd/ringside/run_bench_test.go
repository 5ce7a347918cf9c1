package main

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/arena"
	"github.com/ringside-eval/ringside/provider"
	"github.com/ringside-eval/ringside/store"
)

// BenchmarkRunSimThroughput is the runner end to end as `ringside run`
// wires it: two sim models with a near-fixed latency (TTFT 50ms without
// jitter, streaming at a million tokens a second, then the sim's own 5-19ms
// before the stream ends), all pairs, every generation and battle stored in
// SQLite. One op is one generation; the ideal rate is C / mean latency, and
// "ideal" is the measured fraction of it.
//
//	go test ./cmd/ringside/ -run '^$' -bench RunSimThroughput -benchtime 4000x
func BenchmarkRunSimThroughput(b *testing.B) {
	const latency = 50 * time.Millisecond
	for _, c := range []int{8, 32, 64, 128} {
		b.Run(fmt.Sprintf("C=%d", c), func(b *testing.B) {
			ctx := context.Background()
			db, err := store.Open(ctx, filepath.Join(b.TempDir(), "bench.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			var prompts []ringside.Prompt
			for i := range (b.N + 1) / 2 {
				prompts = append(prompts, ringside.Prompt{ID: fmt.Sprintf("p%06d", i), Kind: ringside.KindTypical,
					Messages: []ringside.Message{{Role: "user", Content: fmt.Sprintf("Summarise item %d in one sentence.", i)}}})
			}
			if _, err := db.UpsertPrompts(ctx, "bench", prompts); err != nil {
				b.Fatal(err)
			}
			run := &ringside.Run{Name: "bench", Models: []string{"s1", "s2"}, PromptSets: []string{"bench"}, Samples: 1}
			if err := db.CreateRun(ctx, run); err != nil {
				b.Fatal(err)
			}
			var cs []arena.Contestant
			for _, name := range run.Models {
				m := ringside.Model{Name: name, Provider: "sim", PriceInPerM: 1, PriceOutPerM: 2, Options: map[string]any{
					"ttft_ms": float64(latency / time.Millisecond), "ttft_jitter": 0.0,
					"tokens_per_sec": 1e6, "speed_jitter": 0.0, "error_rate": 0.0,
				}}
				s, err := provider.New(m, provider.Options{})
				if err != nil {
					b.Fatal(err)
				}
				cs = append(cs, arena.Contestant{Model: m, Streamer: s})
			}
			r, err := arena.New(arena.Config{RunID: run.ID, Contestants: cs, Prompts: prompts, Samples: 1, Concurrency: c, Store: db})
			if err != nil {
				b.Fatal(err)
			}
			plan, err := r.Prepare(ctx)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			start := time.Now()
			rep, err := r.Execute(ctx, plan, arena.Observer{})
			elapsed := time.Since(start)
			b.StopTimer()
			if err != nil || rep.Generations != plan.Generations || rep.Failed != 0 {
				b.Fatalf("report %+v, err %v", rep, err)
			}
			// The sim ends a stream 5-19ms after its last token, so its
			// latency is not exactly the 50ms TTFT: the ideal is taken
			// from the latencies it actually had.
			gens, err := db.RunGenerationStats(ctx, run.ID)
			if err != nil {
				b.Fatal(err)
			}
			var sum float64
			for _, g := range gens {
				sum += g.LatencyMs
			}
			mean := sum / float64(len(gens)) / 1000
			rate := float64(rep.Generations) / elapsed.Seconds()
			b.ReportMetric(rate, "gen/s")
			b.ReportMetric(mean*1000, "latency-ms")
			b.ReportMetric(rate/(float64(c)/mean), "ideal")
		})
	}
}
