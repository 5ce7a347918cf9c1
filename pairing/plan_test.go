package pairing_test

import (
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/ringside-eval/ringside/pairing"
)

// planCalibration runs seeds simulated evaluations under the policy, makes
// a plan at planAt votes, and counts the seeds whose actual further votes
// (to the first board, by the bootstrap, with the top three ordered and
// separated) fall in the plan's 80 % interval.
func planCalibration(t testing.TB, policy pairing.Policy, truth []float64, planAt, seeds, sims int) calibration {
	var c calibration
	for seed := range seeds {
		var plan *pairing.Plan
		s := sim{policy: policy, truth: truth, top: 3, check: 250, rounds: 200, maxVotes: 40000,
			atVote: func(n int, tr *pairing.Tracker) {
				if n == planAt {
					// A clone, so that planning does not move the run's
					// refits; the board is the simulation's, 200 rounds.
					plan = pairing.MakePlan(tr.Clone(), policy, pairing.AllPairs(tr.Len()),
						pairing.PlanOptions{Sims: sims, Seed: uint64(seed), BoardRounds: 200,
							Fresh: os.Getenv("RINGSIDE_BENCH_PLAN") == "fresh"})
				}
			}}
		res := s.run(uint64(seed) + 1)
		if res.votes == 0 || plan == nil || res.votes <= planAt {
			continue
		}
		actual := res.votes - planAt
		c.total++
		if actual >= plan.Low && (plan.High < 0 || actual <= plan.High) {
			c.inside++
		}
		if plan.High < 0 {
			c.unbounded++
		}
		c.ratios = append(c.ratios, float64(plan.Median)/float64(actual))
		if plan.Likely > 0 {
			c.likely = append(c.likely, float64(plan.Likely)/float64(actual))
		}
		t.Logf("seed %d: plan %d (median %d) [%d, %d], actual %d", seed, plan.Likely, plan.Median, plan.Low, plan.High, actual)
	}
	return c
}

// calibration counts the runs whose actual number lay in the plan's
// interval, and says how informative the plans were: how many had no upper
// end, and each plan's median over the actual number.
type calibration struct {
	inside, total, unbounded int
	ratios, likely           []float64
}

// planTruths are the ratings the planner is checked on: the issue's
// (three equal gaps at the top), unequal gaps (one narrow boundary, 30
// points, between wide ones) and five models.
var planTruths = []struct {
	name  string
	truth []float64
}{
	{"issue", benchRatings},
	{"unequal", []float64{1250, 1180, 1150, 1060, 1000, 980, 930, 850}},
	{"five", []float64{1150, 1090, 1040, 1000, 940}},
}

// BenchmarkPlanCalibration is the check of the planner: the plan
// made at 1,000 votes holds the actual number in its 80 % interval in at
// least 70 % of seeds (RINGSIDE_BENCH_SEEDS, default 20), on the issue's
// ratings and on others (RINGSIDE_BENCH_TRUTH names one); the plan is made
// at RINGSIDE_BENCH_PLAN_AT votes instead when that is set, with fresh
// futures when RINGSIDE_BENCH_PLAN=fresh. It reports the
// share inside, the runs counted (those still undecided at 1,000), the
// share of plans with no upper end, and the median of the plans' medians
// over the actual numbers, and of their most likely numbers (1: centred; a
// plan is only as useful as these).
func BenchmarkPlanCalibration(b *testing.B) {
	seeds := 20
	if n, err := strconv.Atoi(os.Getenv("RINGSIDE_BENCH_SEEDS")); err == nil && n > 0 {
		seeds = n
	}
	only := os.Getenv("RINGSIDE_BENCH_TRUTH")
	planAt := 1000
	if n, err := strconv.Atoi(os.Getenv("RINGSIDE_BENCH_PLAN_AT")); err == nil && n > 0 {
		planAt = n
	}
	for _, tc := range planTruths {
		if only != "" && only != tc.name {
			continue
		}
		for _, c := range []struct {
			name   string
			policy pairing.Policy
		}{{"adaptive", pairing.DefaultPolicy()}, {"uniform", pairing.UniformPolicy(3)}} {
			b.Run(tc.name+"/"+c.name, func(b *testing.B) {
				var cal calibration
				for range b.N {
					cal = planCalibration(b, c.policy, tc.truth, planAt, seeds, 100)
				}
				n := float64(max(1, cal.total))
				b.ReportMetric(float64(cal.inside)/n, "inside")
				b.ReportMetric(float64(cal.total), "runs")
				b.ReportMetric(float64(cal.unbounded)/n, "unbounded")
				if len(cal.ratios) > 0 {
					slices.Sort(cal.ratios)
					b.ReportMetric(cal.ratios[len(cal.ratios)/2], "median/actual")
				}
				if len(cal.likely) > 0 {
					slices.Sort(cal.likely)
					b.ReportMetric(cal.likely[len(cal.likely)/2], "likely/actual")
				}
			})
		}
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
	if p.Separated || len(p.Undecided) == 0 || p.Median <= 0 || p.Low > p.Median || p.Likely <= 0 || p.Likely > p.High && p.High > 0 {
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
