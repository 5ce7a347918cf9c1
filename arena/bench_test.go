package arena_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/arena"
)

// nullStore keeps only what resuming needs and costs nothing, so that the
// benchmark measures the runner, not a store.
type nullStore struct {
	mu sync.Mutex
	n  int
}

func (s *nullStore) RunGenerationStats(context.Context, string) ([]ringside.Generation, error) {
	return nil, nil
}
func (s *nullStore) RunBattles(context.Context, string) ([]ringside.Battle, error) { return nil, nil }
func (s *nullStore) Generation(context.Context, string) (*ringside.Generation, error) {
	return &ringside.Generation{}, nil
}
func (s *nullStore) SaveRunGeneration(_ context.Context, g *ringside.Generation, _ []*ringside.Battle) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	g.ID = fmt.Sprint(s.n)
	return nil
}
func (s *nullStore) SaveRunBattles(context.Context, []*ringside.Battle) (int, error) { return 0, nil }

// fixedLatency answers after exactly d (as exactly as a timer allows).
type fixedLatency time.Duration

func (d fixedLatency) Stream(ctx context.Context, req ringside.Request, emit func(ringside.Delta)) (ringside.Result, error) {
	time.Sleep(time.Duration(d))
	emit(ringside.Delta{Text: "ok", Elapsed: time.Duration(d)})
	return ringside.Result{Text: "ok", TTFT: time.Duration(d), Total: time.Duration(d)}, nil
}

// BenchmarkRunnerThroughput runs two models of fixed latency L on all pairs
// (rounds of two) under a global limit C; one op is one generation. The
// ideal is C/L generations a second; the "ideal" metric is the measured
// rate as a fraction of it.
//
//	go test ./arena/ -run '^$' -bench RunnerThroughput -benchtime 4000x
func BenchmarkRunnerThroughput(b *testing.B) {
	const latency = 50 * time.Millisecond
	for _, c := range []int{8, 32, 128} {
		b.Run(fmt.Sprintf("C=%d", c), func(b *testing.B) {
			prompts := testPrompts((b.N + 1) / 2)
			cfg := arena.Config{RunID: "bench", Prompts: prompts, Samples: 1, Concurrency: c, Store: &nullStore{},
				Contestants: []arena.Contestant{
					{Model: ringside.Model{Name: "m1"}, Streamer: fixedLatency(latency)},
					{Model: ringside.Model{Name: "m2"}, Streamer: fixedLatency(latency)},
				}}
			r := mustRunner(b, cfg)
			plan, err := r.Prepare(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			start := time.Now()
			rep, err := r.Execute(context.Background(), plan, arena.Observer{})
			elapsed := time.Since(start)
			if err != nil || rep.Generations != plan.Generations {
				b.Fatalf("report %+v, err %v", rep, err)
			}
			rate := float64(rep.Generations) / elapsed.Seconds()
			ideal := float64(c) / latency.Seconds()
			b.ReportMetric(rate, "gen/s")
			b.ReportMetric(rate/ideal, "ideal")
		})
	}
}
