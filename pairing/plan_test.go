package pairing_test

import (
	"os"
	"strconv"
	"testing"

	"github.com/ringside-eval/ringside/pairing"
)

// planCalibration runs seeds simulated evaluations under the policy, makes
// a plan at 1,000 votes, and counts the seeds whose actual further votes
// (to the first board, by the bootstrap, with the top three ordered and
// separated) fall in the plan's 80 % interval.
func planCalibration(t testing.TB, policy pairing.Policy, seeds, sims int) (inside, total int) {
	for seed := range seeds {
		var plan *pairing.Plan
		s := sim{policy: policy, truth: benchRatings, top: 3, check: 250, rounds: 200, maxVotes: 40000,
			atVote: func(n int, tr *pairing.Tracker) {
				if n == 1000 {
					plan = pairing.MakePlan(tr, policy, pairing.AllPairs(tr.Len()),
						pairing.PlanOptions{Sims: sims, Seed: uint64(seed)})
				}
			}}
		res := s.run(uint64(seed) + 1)
		if res.votes == 0 || plan == nil || res.votes <= 1000 {
			continue
		}
		actual := res.votes - 1000
		total++
		ok := actual >= plan.Low && (plan.High < 0 || actual <= plan.High)
		if ok {
			inside++
		}
		t.Logf("seed %d: plan %d [%d, %d], actual %d", seed, plan.Median, plan.Low, plan.High, actual)
	}
	return inside, total
}

// BenchmarkPlanCalibration is the check of the planner: the plan
// made at 1,000 votes holds the actual number in its 80 % interval in at
// least 70 % of seeds (RINGSIDE_BENCH_SEEDS, default 20). It reports the
// share inside.
func BenchmarkPlanCalibration(b *testing.B) {
	seeds := 20
	if n, err := strconv.Atoi(os.Getenv("RINGSIDE_BENCH_SEEDS")); err == nil && n > 0 {
		seeds = n
	}
	for _, c := range []struct {
		name   string
		policy pairing.Policy
	}{{"adaptive", pairing.DefaultPolicy()}, {"uniform", pairing.UniformPolicy(3)}} {
		b.Run(c.name, func(b *testing.B) {
			var inside, total int
			for range b.N {
				inside, total = planCalibration(b, c.policy, seeds, 100)
			}
			b.ReportMetric(float64(inside)/float64(max(1, total)), "inside")
		})
	}
}

// TestPlanSeparatedAndUnseparated: a board whose top is clear needs no
// more votes in any future; one that is not needs some, and the plan names
// the undecided boundary.
func TestPlanSeparatedAndUnseparated(t *testing.T) {
	names := []string{"a", "b", "c", "d"}
	clear := pairing.NewTracker(names)
	close := pairing.NewTracker(names)
	for i := range names {
		for j := i + 1; j < 4; j++ {
			clear.Add(names[i], names[j], 0.9, 400)
			clear.Add(names[i], names[j], 0.1, 100) // i wins 80 %
			close.Add(names[i], names[j], 1, 11)
			close.Add(names[i], names[j], 0, 9)
		}
	}
	pol := pairing.DefaultPolicy()
	p := pairing.MakePlan(clear, pol, pairing.AllPairs(4), pairing.PlanOptions{Sims: 20})
	if !p.Separated || len(p.Undecided) != 0 {
		t.Errorf("clear board: separated %v, undecided %v", p.Separated, p.Undecided)
	}
	p = pairing.MakePlan(close, pol, pairing.AllPairs(4), pairing.PlanOptions{Sims: 20})
	if p.Separated || len(p.Undecided) == 0 || p.Median <= 0 || p.Low > p.Median {
		t.Errorf("close board: %+v", p)
	}
	if p.Votes != 120 {
		t.Errorf("votes %d, want 120", p.Votes)
	}
}

// TestPlanFromPrior: with no votes the plan rests on the prior and the
// number of models, and more models need more votes.
func TestPlanFromPrior(t *testing.T) {
	plan := func(m int) *pairing.Plan {
		var names []string
		for i := range m {
			names = append(names, string(rune('a'+i)))
		}
		return pairing.MakePlan(pairing.NewTracker(names), pairing.DefaultPolicy(), pairing.AllPairs(m),
			pairing.PlanOptions{Sims: 40, Seed: 1})
	}
	small, large := plan(4), plan(10)
	if !small.FromPrior || small.Median <= 0 {
		t.Fatalf("4 models: %+v", small)
	}
	if large.Median <= small.Median {
		t.Errorf("10 models need %d votes, 4 need %d: want more for more models", large.Median, small.Median)
	}
}
