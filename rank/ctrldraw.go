package rank

import (
	"math"
	"math/rand/v2"
)

// battleSampler is multinomialSampler for the controlled bootstrap's cells:
// n battles of count 1, then the rest of the board as one cell. The battles
// share one Poisson rate, so their inversion reads one table of its
// distribution function instead of a sampler per cell (56 MB a round at a
// million battles), and a top-up draw needs no guide table. It draws what
// multinomialSampler draws from the same source, number for number (tested).
type battleSampler struct {
	n, total int
	cdf      []float64 // the battles' F(x) while P(x) > 0, summed as poissonCell.poisson sums it; nil for a zero rate
	// first[x] = ⌊F(x)·2⁵³⌋ for x < 8 (past the table: 2⁵³, which no r
	// exceeds): uniform's u = r/2⁵³ exceeds F(x) exactly when r > first[x],
	// so the draws below 8 (all but about 1 in 10⁵) count without branches.
	first [8]uint64
	rest  poissonCell // the last cell's sampler
}

func newBattleSampler(n, rest int) *battleSampler {
	total := n + rest
	// The rates of newMultinomialSampler, computed alike.
	nt := float64(total)
	lambda := math.Max(0, nt-3*math.Sqrt(nt))
	bs := &battleSampler{n: n, total: total, rest: newPoissonCell(lambda * float64(rest) / nt)}
	one := newPoissonCell(lambda * 1 / nt)
	// poissonCell.poisson's sums, kept: x, p and f as its loop makes them.
	x, p := 0, one.expNeg
	f := p
	for p > 0 && one.lam > 0 { // a zero rate draws nothing (and no number)
		bs.cdf = append(bs.cdf, f)
		x++
		if x < len(reciprocals) {
			p *= one.lam * reciprocals[x]
		} else {
			p *= one.lam / float64(x)
		}
		f += p
	}
	for x := range bs.first {
		bs.first[x] = 1 << 53 // never exceeded
		if x < len(bs.cdf) {
			bs.first[x] = uint64(bs.cdf[x] * (1 << 53))
		}
	}
	return bs
}

// drawOne is one battle's count: poissonCell.poisson on the table.
func (bs *battleSampler) drawOne(src *rand.PCG) int {
	cdf := bs.cdf
	for {
		r := src.Uint64() << 11 >> 11 // uniform's bits
		x := 0
		for _, t := range bs.first {
			x += int((t - r) >> 63) // 1 when r > t
		}
		if x == len(bs.first) {
			u := float64(r) / (1 << 53)
			for x < len(cdf) && u > cdf[x] {
				x++
			}
		}
		if x < len(cdf) {
			return x
		} // else u fell in the rounding gap above the summed mass: again
	}
}

// draw fills out (n + 1 counts) with one multinomial draw.
func (bs *battleSampler) draw(src *rand.PCG, out []int32) {
	cdf := bs.cdf
	for {
		sum := 0
		for k := 0; k < bs.n; k++ {
			x := 0
			if cdf != nil {
				x = bs.drawOne(src)
			}
			out[k] = int32(x)
			sum += x
		}
		x := bs.rest.poisson(src)
		out[bs.n] = int32(x)
		if sum += x; sum > bs.total {
			continue
		}
		for ; sum < bs.total; sum++ {
			out[min(int(intN(src, uint64(bs.total))), bs.n)]++
		}
		return
	}
}
