package trust

import (
	"hash/fnv"
	"math"
	"math/rand/v2"

	"github.com/ringside-eval/ringside/rank"
)

// Improbable is the improbable-votes test of one judge. Each of its a/b
// votes between two rated models gets a p-value under the Bradley-Terry
// board fitted to the other judges' votes (randomised, so that it is
// uniform for a judge who votes like that board says people do); at
// checkpoints drawn at random vote counts, the p-values so far are combined
// by Fisher's method, and the judge is flagged at the first checkpoint
// where the combination is below ImprobableP over the number of
// checkpoints. A judge cannot plan around checkpoints it does not know.
type Improbable struct {
	// Tested counts the votes that had a p-value.
	Tested      int     `json:"tested"`
	Checkpoints []int   `json:"checkpoints"`
	P           float64 `json:"p"`
	// FlaggedAt is the vote count at which the judge was flagged, 0 when
	// it was not.
	FlaggedAt int `json:"flagged_at,omitempty"`
}

// improbable runs the test for every judge.
func improbable(votes []Vote, judges []string, th Thresholds) (map[string]*Improbable, error) {
	out := map[string]*Improbable{}
	if th.ImprobableP <= 0 {
		return out, nil
	}
	units := rank.Units{}
	byJudge := map[string][]Vote{}
	counted := 0
	for _, v := range votes {
		units.Of(v.Battle)
		byJudge[v.Judge] = append(byJudge[v.Judge], v)
		if v.Gold == "" {
			counted++
		}
	}
	// A judge with a small share of the votes barely moves the board: for
	// them the board of every judge stands for the board without them,
	// fitted once. Fitting a board per judge over a million votes and
	// hundreds of judges took minutes.
	var everyone map[string]float64
	for _, name := range judges {
		mine := byJudge[name]
		var ratings map[string]float64
		var err error
		if len(mine) >= counted/leaveOutShare {
			ratings, err = boardWithout(votes, name, units)
		} else {
			if everyone == nil {
				everyone, err = boardWithout(votes, "", units)
			}
			ratings = everyone
		}
		if err != nil {
			return nil, err
		}
		if t := testJudge(mine, name, ratings, th); t != nil {
			out[name] = t
		}
	}
	return out, nil
}

// leaveOutShare: a judge with at least 1/leaveOutShare of the votes is
// tested against a board fitted without their votes; a judge with fewer,
// against the board of every judge (their votes move it by less than the
// noise of the test).
const leaveOutShare = 50

// boardWithout fits the board of every judge but one, on the battles that
// are not gold, and returns the rated models' ratings.
func boardWithout(votes []Vote, judge string, units rank.Units) (map[string]float64, error) {
	bs := rank.NewBattles()
	for _, v := range votes {
		if v.Judge == judge || v.Gold != "" {
			continue
		}
		if err := bs.Add(rank.Battle{ModelA: v.ModelA, ModelB: v.ModelB, Winner: v.Winner, Judge: v.Judge, Unit: units.Of(v.Battle)}); err != nil {
			return nil, err
		}
	}
	ratings := map[string]float64{}
	if bs.Len() == 0 {
		return ratings, nil
	}
	lb, err := rank.Rank(bs, rank.Options{Judges: rank.JudgesAll})
	if err != nil {
		return nil, err
	}
	for _, m := range lb.Models {
		ratings[m.Model] = m.Rating
	}
	return ratings, nil
}

// testJudge runs the sequential test over one judge's votes (votes holds
// the judge's, in the order they were cast; others are passed over); nil
// when none of them can be tested.
func testJudge(votes []Vote, judge string, ratings map[string]float64, th Thresholds) *Improbable {
	h := fnv.New64a()
	h.Write([]byte(judge))
	rng := rand.New(rand.NewPCG(th.Seed, h.Sum64()))
	var ps []float64
	for _, v := range votes {
		if v.Judge != judge || v.Gold != "" {
			continue
		}
		ra, okA := ratings[v.ModelA]
		rb, okB := ratings[v.ModelB]
		var obs float64 // the probability of the side the judge chose
		switch {
		case !okA || !okB:
			continue
		case v.Winner == "a":
			obs = 1 / (1 + math.Pow(10, (rb-ra)/400))
		case v.Winner == "b":
			obs = 1 / (1 + math.Pow(10, (ra-rb)/400))
		default:
			continue // Bradley-Terry has no probability for a tie
		}
		// Randomised p-value: P(a less likely outcome) + U·P(this one).
		u := rng.Float64()
		var p float64
		switch {
		case obs < 0.5:
			p = u * obs
		case obs > 0.5:
			p = (1 - obs) + u*obs
		default:
			p = u
		}
		ps = append(ps, math.Max(p, 1e-300))
	}
	if len(ps) == 0 {
		return nil
	}
	t := &Improbable{Tested: len(ps), P: 1, Checkpoints: checkpoints(rng, len(ps))}
	stat := 0.0
	at := 0
	for _, c := range t.Checkpoints {
		for ; at < c; at++ {
			stat += -2 * math.Log(ps[at])
		}
		p := chi2EvenSF(stat, c)
		t.P = math.Min(t.P, p)
		if t.FlaggedAt == 0 && p < th.ImprobableP/float64(len(t.Checkpoints)) {
			t.FlaggedAt = c
		}
	}
	return t
}

// checkpoints draws the vote counts at which the test looks, up to n: the
// first between 10 and 20, each next 1.3 to 2 times the last.
func checkpoints(rng *rand.Rand, n int) []int {
	var out []int
	for c := 10 + rng.IntN(11); c <= n; c = int(math.Ceil(float64(c) * (1.3 + 0.7*rng.Float64()))) {
		out = append(out, c)
	}
	return out
}
