package rank

import (
	"math"
	"math/bits"
	"math/rand/v2"
)

// multinomialSampler draws cell counts ~ Multinomial(N, c/N) for fixed cell
// counts c summing to N, many times. It uses the Poisson route, exact:
// draw X_k ~ Poisson(λ·c_k/N) independently with λ = N − 3√N; given their
// sum S the X are Multinomial(S, c/N), so when S ≤ N adding a
// Multinomial(N − S, c/N) (about 3√N single draws) gives Multinomial(N, c/N);
// when S > N (0.1 % of the time) the draw starts again, which conditions on
// S alone and keeps the result exact. Every Poisson rate is fixed across
// rounds, so each cell's sampler constants are computed once, and a draw is
// a few arithmetic operations where a sequence of binomials would need a
// fresh set-up (square roots, divisions, logarithms) per cell and round.
type multinomialSampler struct {
	total int
	cells []poissonCell
	cum   []int   // cum[k] = c_0 + ... + c_k, for the top-up draws
	guide []int32 // guide[g]: the first cell whose cum exceeds g·total/len(guide)
}

// poissonCell is one cell's Poisson(lam) sampler: inversion below a rate of
// 10, Hörmann's PTRS above. (Per-cell tables of the distribution function
// were tried: with tens of thousands of cells they miss the cache and ran
// three times slower.)
type poissonCell struct {
	lam                    float64
	expNeg                 float64 // e^−lam (inversion)
	loglam, a, b, vr, inva float64 // PTRS constants
}

func newMultinomialSampler(counts []int32) *multinomialSampler {
	ms := &multinomialSampler{cells: make([]poissonCell, len(counts)), cum: make([]int, len(counts))}
	for k, c := range counts {
		ms.total += int(c)
		ms.cum[k] = ms.total
	}
	n := float64(ms.total)
	lambda := math.Max(0, n-3*math.Sqrt(n))
	for k, c := range counts {
		ms.cells[k] = newPoissonCell(lambda * float64(c) / n)
	}
	// A guide table (Chen and Asau) makes each top-up draw O(1).
	ms.guide = make([]int32, len(counts)+1)
	k := 0
	for g := range ms.guide {
		for k < len(counts)-1 && ms.cum[k] <= g*ms.total/len(ms.guide) {
			k++
		}
		ms.guide[g] = int32(k)
	}
	return ms
}

func newPoissonCell(lam float64) poissonCell {
	pc := poissonCell{lam: lam}
	if lam < 10 {
		pc.expNeg = math.Exp(-lam)
		return pc
	}
	slam := math.Sqrt(lam)
	pc.loglam = math.Log(lam)
	pc.b = 0.931 + 2.53*slam
	pc.a = -0.059 + 0.02483*pc.b
	pc.inva = 1.1239 + 1.1328/(pc.b-3.4)
	pc.vr = 0.9277 - 3.6224/(pc.b-2)
	return pc
}

// draw fills out with one multinomial draw.
func (ms *multinomialSampler) draw(src *rand.PCG, out []int32) {
	for {
		sum := 0
		for k := range ms.cells {
			x := ms.cells[k].poisson(src)
			out[k] = int32(x)
			sum += x
		}
		if sum > ms.total {
			continue
		}
		for ; sum < ms.total; sum++ {
			u := int(intN(src, uint64(ms.total)))
			k := ms.guide[u*len(ms.guide)/ms.total]
			for ms.cum[k] <= u {
				k++
			}
			out[k]++
		}
		return
	}
}

func (pc *poissonCell) poisson(src *rand.PCG) int {
	if pc.lam == 0 {
		return 0
	}
	if pc.lam >= 10 {
		return pc.ptrs(src)
	}
	for {
		x, p := 0, pc.expNeg
		f, u := p, uniform(src)
		for u > f && p > 0 {
			x++
			if x < len(reciprocals) {
				p *= pc.lam * reciprocals[x]
			} else {
				p *= pc.lam / float64(x)
			}
			f += p
		}
		if p > 0 { // else u fell in the rounding gap above the summed mass: again
			return x
		}
	}
}

// uniform is rand.Rand.Float64 on a concrete source, so that it inlines:
// 53 random bits in [0, 1).
func uniform(src *rand.PCG) float64 {
	return float64(src.Uint64()<<11>>11) / (1 << 53)
}

// intN is a uniform integer in [0, n), exactly (Lemire's multiply-shift
// with rejection).
func intN(src *rand.PCG, n uint64) uint64 {
	hi, lo := bits.Mul64(src.Uint64(), n)
	if lo < n {
		for thresh := -n % n; lo < thresh; {
			hi, lo = bits.Mul64(src.Uint64(), n)
		}
	}
	return hi
}

// reciprocals[x] = 1/x: inversion multiplies instead of dividing.
var reciprocals = func() (t [64]float64) {
	for x := 1; x < len(t); x++ {
		t[x] = 1 / float64(x)
	}
	return t
}()

// ptrs is algorithm PTRS of W. Hörmann, "The transformed rejection method
// for generating Poisson random variables", Insurance: Mathematics and
// Economics 12 (1993), as numpy implements it, with exact log-factorials.
func (pc *poissonCell) ptrs(src *rand.PCG) int {
	for {
		u := uniform(src) - 0.5
		v := uniform(src)
		us := 0.5 - math.Abs(u)
		k := math.Floor((2*pc.a/us+pc.b)*u + pc.lam + 0.43)
		if us >= 0.07 && v <= pc.vr {
			return int(k)
		}
		if k < 0 || us < 0.013 && v > us {
			continue
		}
		// numpy's log(v) + log(1/α) − log(a/us² + b), in one logarithm.
		if math.Log(v*pc.inva/(pc.a/(us*us)+pc.b)) <= -pc.lam+k*pc.loglam-logFactorial(k) {
			return int(k)
		}
	}
}

// logFactTable holds log(k!) for small k, exact (from math.Lgamma).
var logFactTable = func() []float64 {
	t := make([]float64, 1024)
	for k := range t {
		t[k], _ = math.Lgamma(float64(k) + 1)
	}
	return t
}()

// logFactorial is log(x!) for a whole x ≥ 0: the table below 1024, above it
// Stirling's series to the x⁻⁵ term, whose error (< 1/(1680x⁷) ≈ 1e-24) is
// far below rounding.
func logFactorial(x float64) float64 {
	if x < float64(len(logFactTable)) {
		return logFactTable[int(x)]
	}
	r := 1 / x
	r2 := r * r
	const halfLog2Pi = 0.91893853320467274178 // ½·log(2π)
	return (x+0.5)*math.Log(x) - x + halfLog2Pi + r*(1.0/12-r2*(1.0/360-r2*(1.0/1260)))
}
