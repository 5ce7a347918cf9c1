package trust

import (
	"math"
	"sort"
)

// binomTwoSided is the exact two-sided p-value of k successes in n trials
// of a fair coin: twice the smaller tail, at most 1.
func binomTwoSided(k, n int) float64 {
	if n == 0 {
		return 1
	}
	lo := binomCDF(k, n)       // P(X ≤ k)
	hi := 1 - binomCDF(k-1, n) // P(X ≥ k)
	return math.Min(1, 2*math.Min(lo, hi))
}

// binomCDF is P(X ≤ k) for X ~ Binomial(n, ½), summed in log space.
func binomCDF(k, n int) float64 {
	if k < 0 {
		return 0
	}
	if k >= n {
		return 1
	}
	lnHalf := float64(n) * math.Log(0.5)
	sum := 0.0
	for i := 0; i <= k; i++ {
		sum += math.Exp(lnChoose(n, i) + lnHalf)
	}
	return math.Min(1, sum)
}

func lnChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// chi2EvenSF is P(χ² > x) with 2k degrees of freedom, which has the closed
// form e^{−x/2} Σ_{i<k} (x/2)^i / i!, summed in log space.
func chi2EvenSF(x float64, k int) float64 {
	if x <= 0 {
		return 1
	}
	h := x / 2
	// log-sum-exp over terms i ln h − ln i! − h.
	terms := make([]float64, k)
	mx := math.Inf(-1)
	for i := 0; i < k; i++ {
		lf, _ := math.Lgamma(float64(i + 1))
		terms[i] = float64(i)*math.Log(h) - lf - h
		mx = math.Max(mx, terms[i])
	}
	s := 0.0
	for _, t := range terms {
		s += math.Exp(t - mx)
	}
	return math.Min(1, math.Exp(mx+math.Log(s)))
}

// betaInterval is the equal-tailed 95 % interval of a Beta(a, b) posterior.
func betaInterval(a, b float64) (lo, hi float64) {
	return betaQuantile(0.025, a, b), betaQuantile(0.975, a, b)
}

// betaQuantile inverts the regularised incomplete beta function by
// bisection: 60 halvings leave an error far below what a report shows.
func betaQuantile(p, a, b float64) float64 {
	lo, hi := 0.0, 1.0
	for i := 0; i < 60; i++ {
		mid := (lo + hi) / 2
		if regIncBeta(mid, a, b) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// regIncBeta is I_x(a, b), by the continued fraction of Numerical Recipes
// (Lentz's method), using the symmetry for x beyond the mean.
func regIncBeta(x, a, b float64) float64 {
	if x <= 0 {
		return 0
	}
	if x >= 1 {
		return 1
	}
	la, _ := math.Lgamma(a + b)
	lb, _ := math.Lgamma(a)
	lc, _ := math.Lgamma(b)
	front := math.Exp(la - lb - lc + a*math.Log(x) + b*math.Log(1-x))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(x, a, b) / a
	}
	return 1 - front*betaCF(1-x, b, a)/b
}

func betaCF(x, a, b float64) float64 {
	const tiny = 1e-300
	c, d := 1.0, 1-(a+b)*x/(a+1)
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= 300; m++ {
		fm := float64(m)
		num := fm * (b - fm) * x / ((a + 2*fm - 1) * (a + 2*fm))
		d, c = 1+num*d, 1+num/c
		d = 1 / nonzero(d)
		c = nonzero(c)
		h *= d * c
		num = -(a + fm) * (a + b + fm) * x / ((a + 2*fm) * (a + 2*fm + 1))
		d, c = 1+num*d, 1+num/c
		d = 1 / nonzero(d)
		c = nonzero(c)
		del := d * c
		h *= del
		if math.Abs(del-1) < 1e-15 {
			break
		}
	}
	return h
}

func nonzero(x float64) float64 {
	if math.Abs(x) < 1e-300 {
		return 1e-300
	}
	return x
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
