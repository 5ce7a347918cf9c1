package rank

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/pairing"
)

// adaptiveRatings are the eight models, best first.
var adaptiveRatings = []float64{1200, 1150, 1100, 1050, 1000, 960, 920, 880}

// notBT is a judge Bradley-Terry does not describe: model 5 beats the top
// two far more often than its rating says (as pairing's
// TestInverseWeightingUnbiased).
func notBT(a, b int) float64 {
	p := 1 / (1 + math.Pow(10, (adaptiveRatings[b]-adaptiveRatings[a])/400))
	switch {
	case a == 5 && b < 2:
		p += 0.3
	case b == 5 && a < 2:
		p -= 0.3
	}
	return p
}

// adaptiveBattles deals votes as judging does under judging.pairing =
// "adaptive" (pairing.Policy over a Tracker updated as votes come in),
// each battle with the propensity its pair was drawn with, and returns
// them with the same votes as pairing tallies.
func adaptiveBattles(seed uint64, votes int, names []string) (*Battles, []pairing.Tally) {
	m := len(names)
	tr := pairing.NewTracker(names)
	pairs := pairing.AllPairs(m)
	pol := pairing.DefaultPolicy()
	r := rand.New(rand.NewPCG(seed, 0xadab))
	bs := NewBattles()
	var tallies []pairing.Tally
	var probs []float64
	for range votes {
		if tr.Refresh() || probs == nil {
			probs = pol.Probabilities(tr, pairs)
		}
		k, prop := pairing.Sample(probs, nil, r.Float64())
		a, b := pairs[k].I, pairs[k].J
		if r.IntN(2) == 0 {
			a, b = b, a
		}
		w, score := ringside.WinnerB, 0.0
		if r.Float64() < notBT(a, b) {
			w, score = ringside.WinnerA, 1
		}
		tr.Add(names[a], names[b], score, 1)
		tallies = append(tallies, pairing.Tally{A: names[a], B: names[b], ScoreA: score, Count: 1, Propensity: prop})
		if err := bs.Add(Battle{ModelA: names[a], ModelB: names[b], Winner: w, Propensity: prop}); err != nil {
			panic(err)
		}
	}
	return bs, tallies
}

func modelNames(m int) []string {
	names := make([]string, m)
	for i := range names {
		names[i] = fmt.Sprintf("m%d", i)
	}
	return names
}

// TestWeightedBoardIsWeightedFit: on votes dealt adaptively, the board
// weighted by propensity has pairing.WeightedFit's ratings (which differ
// only by WeightedFit's weak prior), and the unweighted board does not.
func TestWeightedBoardIsWeightedFit(t *testing.T) {
	names := modelNames(len(adaptiveRatings))
	bs, tallies := adaptiveBattles(7, 3000, names)
	want := pairing.WeightedFit(names, tallies)
	weighted := mustRank(t, bs, Options{Weighting: WeightingPropensity})
	plain := mustRank(t, bs, Options{})
	if weighted.Method.Weighting != WeightingPropensity || plain.Method.Weighting != "" {
		t.Errorf("method weighting %q, unweighted %q", weighted.Method.Weighting, plain.Method.Weighting)
	}
	if s := weighted.summary(); !strings.Contains(s, "weighted by inverse propensity") {
		t.Errorf("the table's summary does not say the votes were weighted: %s", s)
	}
	apart := 0.0
	for i, name := range names {
		got, unw := ratingOf(t, weighted, name).Rating, ratingOf(t, plain, name).Rating
		if math.Abs(got-want[i]) > 1 {
			t.Errorf("%s: weighted board %.2f, WeightedFit %.2f", name, got, want[i])
		}
		apart = math.Max(apart, math.Abs(unw-want[i]))
	}
	if apart < 5 {
		t.Errorf("the unweighted board is within %.2f points of the weighted fit: the test cannot tell them apart", apart)
	}
	// The counts are the votes as cast, whatever their weight.
	if weighted.Battles != 3000 || !reflect.DeepEqual(weighted.Models[0].Counts, ratingOf(t, plain, weighted.Models[0].Model).Counts) {
		t.Errorf("weighted counts %d %+v", weighted.Battles, weighted.Models[0].Counts)
	}
}

// TestWeightedBoardUnbiased: over many evaluations dealt adaptively to
// judges who are not Bradley-Terry, the weighted board averages to the
// board uniform dealing would give (the Bradley-Terry fit of the uniform
// design), within three standard errors; the unweighted board, which
// follows the design, is logged beside it.
func TestWeightedBoardUnbiased(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 30 evaluations")
	}
	const seeds = 30
	m := len(adaptiveRatings)
	names := modelNames(m)
	var expected []pairing.Tally
	for i := range m {
		for j := i + 1; j < m; j++ {
			expected = append(expected, pairing.Tally{A: names[i], B: names[j], ScoreA: notBT(i, j), Count: 1000})
		}
	}
	target := pairing.WeightedFit(names, expected)
	sum, sq, unw := make([]float64, m), make([]float64, m), make([]float64, m)
	for seed := range seeds {
		bs, _ := adaptiveBattles(uint64(seed)+100, 4000, names)
		weighted := mustRank(t, bs, Options{Weighting: WeightingPropensity})
		plain := mustRank(t, bs, Options{})
		for i, name := range names {
			r := ratingOf(t, weighted, name).Rating
			sum[i] += r
			sq[i] += r * r
			unw[i] += ratingOf(t, plain, name).Rating / seeds
		}
	}
	biased := 0
	for i := range m {
		avg := sum[i] / seeds
		se := math.Sqrt(max(0, sq[i]/seeds-avg*avg)) / math.Sqrt(seeds)
		t.Logf("%s: target %.1f, weighted %.1f (se %.1f), unweighted %.1f", names[i], target[i], avg, se, unw[i])
		if math.Abs(avg-target[i]) > 3*se+2 {
			t.Errorf("%s: weighted mean %.1f, target %.1f (se %.1f)", names[i], avg, target[i], se)
		}
		if math.Abs(unw[i]-target[i]) > 3*se+2 {
			biased++
		}
	}
	// The same check fails without weighting, so it can fail.
	if biased == 0 {
		t.Error("the unweighted board is as close to the target: the judges do not test the weighting")
	}
}

// TestWeightIsRepetition: a vote weighing twice what the others weigh
// counts in the fit as two of them, and votes all dealt with the same
// propensity (uniform dealing) weigh exactly 1: the same board, intervals
// and all, as without weighting.
func TestWeightIsRepetition(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	names := []string{"a", "b", "c", "d"}
	ratings := []float64{1100, 1040, 1000, 900}
	weighted, doubled, uniform := NewBattles(), NewBattles(), NewBattles()
	synthetic(rng, names, ratings, 2000, func(b Battle) {
		u := b
		u.Propensity = 1.0 / 6
		if err := uniform.Add(u); err != nil {
			t.Fatal(err)
		}
		b.Propensity = 0.2
		n := 1
		if b.ModelA == "a" || b.ModelB == "a" {
			b.Propensity, n = 0.1, 2 // half as likely: twice the weight
		}
		if err := weighted.Add(b); err != nil {
			t.Fatal(err)
		}
		b.Propensity = 0
		for range n {
			if err := doubled.Add(b); err != nil {
				t.Fatal(err)
			}
		}
	})
	w := mustRank(t, weighted, Options{Weighting: WeightingPropensity})
	d := mustRank(t, doubled, Options{})
	for _, name := range names {
		if got, want := ratingOf(t, w, name).Rating, ratingOf(t, d, name).Rating; math.Abs(got-want) > 1e-6 {
			t.Errorf("%s: weighted %.9f, repeated %.9f", name, got, want)
		}
	}
	opts := Options{Rounds: 50, Seed: 1, Workers: 1}
	plain := mustRank(t, uniform, opts)
	opts.Weighting = WeightingPropensity
	same := mustRank(t, uniform, opts)
	same.Method.Weighting = ""
	if !reflect.DeepEqual(same, plain) {
		t.Error("votes dealt uniformly weigh other than 1")
	}
}

// TestWeightedBootstrapKeepsWeights: the bootstrap resamples battles with
// their weights, so that its rounds centre on the weighted fit, and the
// price of weighting shows as wider intervals than the unweighted board's.
func TestWeightedBootstrapKeepsWeights(t *testing.T) {
	names := modelNames(len(adaptiveRatings))
	bs, _ := adaptiveBattles(11, 3000, names)
	opts := Options{Rounds: 200, Seed: 5, Weighting: WeightingPropensity}
	weighted := mustRank(t, bs, opts)
	opts.Weighting = ""
	plain := mustRank(t, bs, opts)
	var wide, narrow float64
	for _, mr := range weighted.Models {
		if mr.CILow == nil || mr.CIHigh == nil {
			t.Fatalf("%s: no interval", mr.Model)
		}
		if !(*mr.CILow < mr.Rating && mr.Rating < *mr.CIHigh) {
			t.Errorf("%s: rating %.1f outside its interval %.1f..%.1f", mr.Model, mr.Rating, *mr.CILow, *mr.CIHigh)
		}
		p := ratingOf(t, plain, mr.Model)
		wide += *mr.CIHigh - *mr.CILow
		narrow += *p.CIHigh - *p.CILow
	}
	t.Logf("mean interval width: weighted %.1f, unweighted %.1f", wide/8, narrow/8)
	if wide <= narrow {
		t.Errorf("weighted intervals (%.1f in all) not wider than unweighted (%.1f)", wide, narrow)
	}
	sw := mustRank(t, bs, Options{Interval: IntervalSandwich, Weighting: WeightingPropensity})
	for _, mr := range sw.Models {
		if mr.CILow == nil || *mr.CILow >= mr.Rating {
			t.Errorf("%s: no sandwich interval around %.1f", mr.Model, mr.Rating)
		}
	}
}

// TestWeightingRefused: a weighting that is not one is refused naming the
// field, as is a propensity that is no probability.
func TestWeightingRefused(t *testing.T) {
	bs := NewBattles()
	add(t, bs, "a", "b", ringside.WinnerA, 1)
	_, err := Rank(bs, Options{Weighting: "inverse"})
	if ringside.ErrorCode(err) != ringside.EINVALID || !reflectField(err, "weighting") {
		t.Errorf("bad weighting: %v", err)
	}
	err = bs.Add(Battle{ModelA: "a", ModelB: "b", Winner: ringside.WinnerA, Propensity: 1.5})
	if !reflectField(err, "propensity") {
		t.Errorf("bad propensity: %v", err)
	}
	lb := mustRank(t, bs, Options{Weighting: WeightingPropensity})
	if len(lb.Notes) == 0 {
		t.Error("a weighted board without propensities does not say so")
	}
}

func reflectField(err error, field string) bool {
	e, ok := err.(*ringside.Error)
	return ok && e.Field == field
}
