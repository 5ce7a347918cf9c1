package pairing_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/pairing"
	"github.com/ringside-eval/ringside/rank"
)

// benchRatings are the eight models, best first.
var benchRatings = []float64{1200, 1150, 1100, 1050, 1000, 960, 920, 880}

// sim is one simulated evaluation: judges who vote by Bradley-Terry with the
// true ratings, dealt by a policy, checked with the leaderboard's own
// bootstrap every check votes.
type sim struct {
	policy   pairing.Policy
	truth    []float64
	top      int
	check    int
	rounds   int
	maxVotes int
	// pwin, when set, is the chance a beats b, in place of Bradley-Terry
	// with the true ratings (judges the model does not describe).
	pwin func(a, b int) float64
	// atVote, when set, is called after every vote with the count so far.
	atVote func(n int, tr *pairing.Tracker)
}

// simResult is when the top models were first correctly ordered and
// separated (0: not within maxVotes), and how many of the final board's
// intervals held their model's true rating.
type simResult struct {
	votes            int
	covered, ratings int
	weighted         []float64 // inverse-propensity ratings at the end
	unweighted       []float64 // the same fit with every vote weighing 1
}

func (s sim) run(seed uint64) simResult {
	m := len(s.truth)
	names := make([]string, m)
	for i := range names {
		names[i] = fmt.Sprintf("m%d", i)
	}
	tr := pairing.NewTracker(names)
	pairs := pairing.AllPairs(m)
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	bs := rank.NewBattles()
	var probs []float64
	var tallies []pairing.Tally
	for n := 1; n <= s.maxVotes; n++ {
		if tr.Refresh() || probs == nil {
			probs = s.policy.Probabilities(tr, pairs)
		}
		k, prop := pairing.Sample(probs, nil, r.Float64())
		a, b := pairs[k].I, pairs[k].J
		if r.IntN(2) == 0 {
			a, b = b, a
		}
		pa := 1 / (1 + math.Pow(10, (s.truth[b]-s.truth[a])/400))
		if s.pwin != nil {
			pa = s.pwin(a, b)
		}
		w, score := ringside.WinnerB, 0.0
		if r.Float64() < pa {
			w, score = ringside.WinnerA, 1
		}
		tr.Add(names[a], names[b], score, 1)
		tallies = append(tallies, pairing.Tally{A: names[a], B: names[b], ScoreA: score, Count: 1, Propensity: prop})
		if err := bs.Add(rank.Battle{ModelA: names[a], ModelB: names[b], Winner: w}); err != nil {
			panic(err)
		}
		if s.atVote != nil {
			s.atVote(n, tr)
		}
		if n%s.check != 0 {
			continue
		}
		lb, err := rank.Rank(bs, rank.Options{Rounds: s.rounds, Seed: seed, Workers: 1})
		if err != nil {
			panic(err)
		}
		if s.decided(lb, names) {
			res := fits(names, tallies)
			res.votes = n
			res.covered, res.ratings = s.coverage(lb, names)
			return res
		}
	}
	return fits(names, tallies)
}

// fits fits the tallies weighted and unweighted.
func fits(names []string, tallies []pairing.Tally) simResult {
	res := simResult{weighted: pairing.WeightedFit(names, tallies)}
	for i := range tallies {
		tallies[i].Propensity = 0
	}
	res.unweighted = pairing.WeightedFit(names, tallies)
	return res
}

// decided says whether the board's top models are the true top, in order,
// each one's interval wholly above every interval below it.
func (s sim) decided(lb *rank.Leaderboard, names []string) bool {
	if len(lb.Flagged) > 0 || len(lb.Models) < s.top+1 {
		return false
	}
	for k := range s.top {
		if lb.Models[k].Model != names[k] || lb.Models[k].CILow == nil {
			return false
		}
		for _, below := range lb.Models[k+1:] {
			if below.CIHigh == nil || *below.CIHigh >= *lb.Models[k].CILow {
				return false
			}
		}
	}
	return true
}

// coverage counts the models whose interval holds the true rating, centred
// as the board is (mean 1000).
func (s sim) coverage(lb *rank.Leaderboard, names []string) (covered, total int) {
	mean := 0.0
	for _, t := range s.truth {
		mean += t / float64(len(s.truth))
	}
	for _, mr := range lb.Models {
		i := slices.Index(names, mr.Model)
		t := s.truth[i] - mean + 1000
		total++
		if mr.CILow != nil && mr.CIHigh != nil && *mr.CILow <= t && t <= *mr.CIHigh {
			covered++
		}
	}
	return covered, total
}

// median of the votes, counting an undecided run as more than any.
func median(rs []simResult) int {
	vs := make([]int, len(rs))
	for i, r := range rs {
		vs[i] = r.votes
		if vs[i] == 0 {
			vs[i] = math.MaxInt
		}
	}
	slices.Sort(vs)
	return vs[len(vs)/2]
}
