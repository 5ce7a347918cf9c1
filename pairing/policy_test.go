package pairing_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/ringside-eval/ringside/pairing"
)

// TestFloorAndPlacement: probabilities sum to 1, every pair keeps the
// floor, and a model just added gets at least half of what is above the
// floor until it has its placement battles.
func TestFloorAndPlacement(t *testing.T) {
	names := []string{"a", "b", "c", "d", "e"}
	tr := pairing.NewTracker(names)
	for i := range 4 {
		for j := i + 1; j < 4; j++ {
			tr.Add(names[i], names[j], 1, 30)
			tr.Add(names[i], names[j], 0, 10)
		}
	}
	pol := pairing.DefaultPolicy()
	pairs := pairing.AllPairs(5)
	probs := pol.Probabilities(tr, pairs)
	sum, newcomer := 0.0, 0.0
	floor := pol.Floor / float64(len(pairs))
	for k, p := range probs {
		sum += p
		if p < floor-1e-12 {
			t.Errorf("pair %v: %g below the floor %g", pairs[k], p, floor)
		}
		if pairs[k].J == 4 {
			newcomer += p
		}
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Errorf("probabilities sum to %g", sum)
	}
	if want := pol.Floor*4/10 + (1-pol.Floor)*0.5; newcomer < want {
		t.Errorf("the new model's pairs get %g, want at least %g", newcomer, want)
	}
	tr.Add("e", "a", 0.5, 40)
	// Placed: the dealing is what it would be with no placement phase.
	probs = pol.Probabilities(tr, pairs)
	unplaced := pol
	unplaced.Placement = 0
	for k, p := range unplaced.Probabilities(tr, pairs) {
		if math.Abs(p-probs[k]) > 1e-12 {
			t.Errorf("pair %v after placement: %g, without a placement phase %g", pairs[k], probs[k], p)
		}
	}
}

// TestAdaptiveLeavesTheBottom: focused on the top two, the pairs among the
// bottom models, whose order nobody asked about, get little beyond the
// floor.
func TestAdaptiveLeavesTheBottom(t *testing.T) {
	names := []string{"a", "b", "c", "d", "e", "f"}
	tr := pairing.NewTracker(names)
	for i := range names {
		for j := i + 1; j < len(names); j++ {
			tr.Add(names[i], names[j], 1, 18)
			tr.Add(names[i], names[j], 0, 12)
		}
	}
	pol := pairing.DefaultPolicy()
	pol.FocusTop = 2
	pairs := pairing.AllPairs(6)
	probs := pol.Probabilities(tr, pairs)
	top, bottom := 0.0, 0.0
	for k, p := range probs {
		switch {
		case pairs[k].I < 3 && pairs[k].J < 3:
			top += p
		case pairs[k].I >= 3:
			bottom += p
		}
	}
	if top < 3*bottom {
		t.Errorf("top pairs get %g, bottom pairs %g", top, bottom)
	}
}

// TestSampleSkips: skipped pairs are never drawn, and the propensity is
// renormalised over the rest.
func TestSampleSkips(t *testing.T) {
	probs := []float64{0.5, 0.25, 0.25}
	k, p := pairing.Sample(probs, []bool{true, false, false}, 0.99)
	if k != 2 || p != 0.5 {
		t.Errorf("got %d %g", k, p)
	}
	if k, _ := pairing.Sample(probs, []bool{true, true, true}, 0.5); k != -1 {
		t.Errorf("all skipped: got %d", k)
	}
}

// TestInverseWeightingUnbiased: judges who are not Bradley-Terry (model 5
// beats the top two far more often than its rating says), dealt
// adaptively. The board the team means is the one uniform dealing would
// give: the Bradley-Terry fit of the uniform design. Over many simulated
// evaluations the inverse-propensity fit averages to it (within three
// standard errors of the mean); the unweighted fit of the same votes,
// which follows the adaptive design, is logged beside it.
func TestInverseWeightingUnbiased(t *testing.T) {
	const seeds = 30
	m := len(benchRatings)
	pwin := func(a, b int) float64 {
		p := 1 / (1 + math.Pow(10, (benchRatings[b]-benchRatings[a])/400))
		switch {
		case a == 5 && b < 2:
			p += 0.3
		case b == 5 && a < 2:
			p -= 0.3
		}
		return p
	}
	names := make([]string, m)
	var expected []pairing.Tally
	for i := range m {
		names[i] = fmt.Sprintf("m%d", i)
	}
	for i := range m {
		for j := i + 1; j < m; j++ {
			expected = append(expected, pairing.Tally{A: names[i], B: names[j], ScoreA: pwin(i, j), Count: 1000})
		}
	}
	target := pairing.WeightedFit(names, expected)
	s := sim{policy: pairing.DefaultPolicy(), truth: benchRatings, pwin: pwin, top: 3, check: 4000, rounds: 1, maxVotes: 4000}
	sum, sq, unw := make([]float64, m), make([]float64, m), make([]float64, m)
	for seed := range seeds {
		res := s.run(uint64(seed) + 100)
		for i := range m {
			sum[i] += res.weighted[i]
			sq[i] += res.weighted[i] * res.weighted[i]
			unw[i] += res.unweighted[i] / seeds
		}
	}
	for i := range m {
		avg := sum[i] / seeds
		sd := math.Sqrt(max(0, sq[i]/seeds-avg*avg))
		se := sd / math.Sqrt(seeds)
		t.Logf("model %d: target %.1f, weighted %.1f (se %.1f), unweighted %.1f", i, target[i], avg, se, unw[i])
		if math.Abs(avg-target[i]) > 3*se+2 {
			t.Errorf("model %d: weighted mean %.1f, target %.1f (se %.1f)", i, avg, target[i], se)
		}
	}
}

// TestAdaptiveNeedsFewerVotes runs the benchmark's evaluation on a few
// seeds: adaptive dealing must decide the top three with clearly fewer
// votes than uniform dealing (the benchmark measures by how much).
func TestAdaptiveNeedsFewerVotes(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 20 evaluations")
	}
	votes := map[string]int{}
	for name, pol := range map[string]pairing.Policy{"uniform": pairing.UniformPolicy(3), "adaptive": pairing.DefaultPolicy()} {
		s := sim{policy: pol, truth: benchRatings, top: 3, check: 250, rounds: 100, maxVotes: 20000}
		var rs []simResult
		for seed := range 10 {
			rs = append(rs, s.run(uint64(seed)+500))
		}
		votes[name] = median(rs)
	}
	t.Logf("median votes to decide: %v", votes)
	if float64(votes["adaptive"]) > 0.8*float64(votes["uniform"]) {
		t.Errorf("adaptive needed %d votes, uniform %d: want at most 80 %%", votes["adaptive"], votes["uniform"])
	}
}
