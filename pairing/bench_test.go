package pairing_test

import (
	"os"
	"strconv"
	"testing"

	"github.com/ringside-eval/ringside/pairing"
)

// BenchmarkVotesToSeparation is the measure: eight models
// (benchRatings), Bradley-Terry judges, the board's 200-round bootstrap every
// 250 votes, and the votes until the top three are correctly ordered and
// separated; the median over RINGSIDE_BENCH_SEEDS seeds (default 200: with
// 20 the median of either pairing moves by a checkpoint or two between sets
// of seeds, so their ratio by ±6 % or more), for
// uniform and adaptive dealing. It reports votes (the median), mean-votes
// (the mean of the decided runs), coverage (the
// share of the final boards' intervals that hold the truth) and undecided
// (runs that needed more than 40,000 votes).
func BenchmarkVotesToSeparation(b *testing.B) {
	seeds := 200
	if n, err := strconv.Atoi(os.Getenv("RINGSIDE_BENCH_SEEDS")); err == nil && n > 0 {
		seeds = n
	}
	for _, c := range []struct {
		name   string
		policy pairing.Policy
	}{{"uniform", pairing.UniformPolicy(3)}, {"adaptive", pairing.DefaultPolicy()}} {
		b.Run(c.name, func(b *testing.B) {
			s := sim{policy: c.policy, truth: benchRatings, top: 3, check: 250, rounds: 200, maxVotes: 40000}
			var rs []simResult
			for range b.N {
				rs = rs[:0]
				for seed := range seeds {
					rs = append(rs, s.run(uint64(seed)+1))
				}
			}
			covered, total, undecided := 0, 0, 0
			for _, r := range rs {
				covered += r.covered
				total += r.ratings
				if r.votes == 0 {
					undecided++
				}
			}
			b.ReportMetric(float64(median(rs)), "votes")
			b.ReportMetric(meanVotes(rs), "mean-votes")
			b.ReportMetric(float64(covered)/float64(max(1, total)), "coverage")
			b.ReportMetric(float64(undecided), "undecided")
		})
	}
}

// meanVotes is the mean of the votes of the runs that decided.
func meanVotes(rs []simResult) float64 {
	sum, n := 0, 0
	for _, r := range rs {
		if r.votes > 0 {
			sum += r.votes
			n++
		}
	}
	return float64(sum) / float64(max(1, n))
}
