package pairing

import (
	"math"
	"testing"
)

func ratio(x []float64, th []float64, pairs []Pair) float64 {
	m := len(th)
	t := NewTracker([]string{"a", "b", "c", "d", "e", "f", "g", "h"})
	copy(t.theta, th)
	for k, p := range pairs {
		i, j := p.I, p.J
		t.n[i*m+j] += x[k] * 1000
		t.n[j*m+i] += x[k] * 1000
	}
	h := make([]float64, m*m)
	g := make([]float64, m)
	t.information(h, g)
	t.cov = inverse(h, m)
	_, sd := t.centred()
	worst := 0.0
	for k := 0; k < 3; k++ {
		for v := k + 1; v < m; v++ {
			r := z * (sd[k] + sd[v]) / (th[k] - th[v])
			worst = max(worst, r)
		}
	}
	return worst
}

// TestOracleDesignBound computes, under the normal approximation, the best
// fixed share of votes per pair for the benchmark's eight models knowing
// their true ratings, and the votes it needs relative to uniform dealing
// (about 63 %). No fixed design does better; adaptive dealing does (about
// 56 % in the benchmark) because it reacts to the votes so far, leaving a
// boundary the data happen to separate early.
func TestOracleDesignBound(t *testing.T) {
	th := []float64{}
	for _, r := range []float64{1200, 1150, 1100, 1050, 1000, 960, 920, 880} {
		th = append(th, r/Scale)
	}
	pairs := AllPairs(8)
	x := make([]float64, len(pairs))
	for k := range x {
		x[k] = 1 / float64(len(x))
	}
	r0 := ratio(x, th, pairs)
	for it := 0; it < 4000; it++ {
		base := ratio(x, th, pairs)
		grad := make([]float64, len(x))
		for k := range x {
			x[k] += 1e-5
			grad[k] = (ratio(x, th, pairs) - base) / 1e-5
			x[k] -= 1e-5
		}
		s := 0.0
		for k := range x {
			x[k] *= math.Exp(-grad[k] / base * 0.01)
			s += x[k]
		}
		for k := range x {
			x[k] /= s
		}
	}
	r1 := ratio(x, th, pairs)
	ratioVotes := (r1 * r1) / (r0 * r0)
	t.Logf("oracle design needs %.3f of uniform's votes", ratioVotes)
	if ratioVotes < 0.55 || ratioVotes > 0.7 {
		t.Errorf("oracle ratio %.3f, want about 0.63", ratioVotes)
	}
}
