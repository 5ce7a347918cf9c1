package rank

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The controlled bootstrap's sampler draws what the general one draws.
func TestBattleSamplerMatchesMultinomial(t *testing.T) {
	for _, c := range []struct{ n, rest int }{{1000, 300}, {5000, 0}, {30, 0}, {7, 2}, {1, 0}} {
		counts := make([]int32, c.n+1)
		for k := range c.n {
			counts[k] = 1
		}
		counts[c.n] = int32(c.rest)
		ms, bs := newMultinomialSampler(counts), newBattleSampler(c.n, c.rest)
		want, got := make([]int32, c.n+1), make([]int32, c.n+1)
		for r := 0; r < 50; r++ {
			ms.draw(rand.NewPCG(roundSeed(9, r)), want)
			bs.draw(rand.NewPCG(roundSeed(9, r)), got)
			if !slices.Equal(got, want) {
				t.Fatalf("n %d, rest %d, round %d: the battle sampler drew otherwise", c.n, c.rest, r)
			}
		}
	}
}
