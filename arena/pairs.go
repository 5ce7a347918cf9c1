package arena

import (
	"encoding/binary"
	"hash/fnv"
	"math/rand/v2"
	"slices"

	"github.com/ringside-eval/ringside"
)

// Pairing modes of a run.
const (
	PairsAll     = "all"     // every pair of models on every prompt and sample
	PairsSampled = "sampled" // PerPrompt pairs drawn by weight
)

// Pairing is how the pairs of each prompt and sample are chosen.
type Pairing struct {
	Mode string // PairsAll (the default when empty) or PairsSampled
	// PerPrompt is how many distinct pairs a sampled round draws (at least
	// 1; all pairs when it is more than there are).
	PerPrompt int
	// Weights biases sampled pairs towards some models; a pair's weight is
	// the product of its models' weights (1 when unset).
	Weights map[string]float64
	Seed    int64
}

// Pair is two models as they are shown: A on side a (left), B on side b.
type Pair struct{ A, B string }

// key is the pair without its sides: the identity of a battle in a round.
func (p Pair) key() Pair {
	if p.B < p.A {
		return Pair{p.B, p.A}
	}
	return p
}

// AllPairs returns every pair of models, each with its sides drawn from r.
func AllPairs(r *rand.Rand, models []string) []Pair {
	var out []Pair
	for i := range models {
		for j := i + 1; j < len(models); j++ {
			out = append(out, sides(r, models[i], models[j]))
		}
	}
	return out
}

// SamplePairs draws n distinct pairs of models without replacement, each
// with probability proportional to the product of its models' weights
// (models missing from weights weigh 1), and draws each pair's sides. The
// live server can call it to pick the next battle; it is deterministic for
// a given r.
func SamplePairs(r *rand.Rand, models []string, weights map[string]float64, n int) []Pair {
	type cand struct {
		p Pair
		w float64
	}
	weight := func(m string) float64 {
		if w, ok := weights[m]; ok {
			return w
		}
		return 1
	}
	var cands []cand
	for i := range models {
		for j := i + 1; j < len(models); j++ {
			if w := weight(models[i]) * weight(models[j]); w > 0 {
				cands = append(cands, cand{Pair{models[i], models[j]}, w})
			}
		}
	}
	var out []Pair
	for len(out) < n && len(cands) > 0 {
		var total float64
		for _, c := range cands {
			total += c.w
		}
		x := r.Float64() * total
		i := 0
		for ; i < len(cands)-1; i++ {
			if x -= cands[i].w; x < 0 {
				break
			}
		}
		out = append(out, sides(r, cands[i].p.A, cands[i].p.B))
		cands = slices.Delete(cands, i, i+1)
	}
	return out
}

// sides puts x or y on side a with equal chance.
func sides(r *rand.Rand, x, y string) Pair {
	if r.IntN(2) == 0 {
		return Pair{x, y}
	}
	return Pair{y, x}
}

// Round is one prompt and sample with the pairs that meet on it.
type Round struct {
	Prompt *ringside.Prompt
	Sample int
	Pairs  []Pair
}

// Models returns the distinct models of the round's pairs, in order of
// first appearance.
func (rd *Round) Models() []string {
	var out []string
	for _, p := range rd.Pairs {
		for _, m := range []string{p.A, p.B} {
			if !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	return out
}

// Schedule returns the rounds of a run: for each prompt (in the order
// given) and each sample 0..samples-1, the pairs that meet. The draw of a
// round depends only on the seed, the prompt id, the sample number and the
// set of models (their order does not matter), so that a rerun with the
// same settings schedules the same battles on the same sides.
func Schedule(models []string, prompts []ringside.Prompt, samples int, p Pairing) []Round {
	sorted := slices.Clone(models)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	var out []Round
	for i := range prompts {
		for k := 0; k < samples; k++ {
			r := roundRand(p.Seed, prompts[i].ID, k)
			var pairs []Pair
			if p.Mode == PairsSampled {
				pairs = SamplePairs(r, sorted, p.Weights, max(p.PerPrompt, 1))
			} else {
				pairs = AllPairs(r, sorted)
			}
			out = append(out, Round{Prompt: &prompts[i], Sample: k, Pairs: pairs})
		}
	}
	return out
}

// roundRand is the random source of one round: seeded by the run's seed and
// a hash of the prompt id and sample, so that rounds are independent of
// each other and of the order prompts come in.
func roundRand(seed int64, promptID string, sample int) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(promptID))
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(sample))
	h.Write(b[:])
	return rand.New(rand.NewPCG(uint64(seed), h.Sum64()))
}
