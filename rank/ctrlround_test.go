package rank

import (
	"math"
	"testing"
)

// A controlled bootstrap round ends after a Newton step below
// ctrlRoundStop rather than running to a step below looseStep, and its
// passes expand probabilities near the full-data fit (baseMax): the
// intervals it gives, ratings and coefficients, are those of rounds run to
// the tighter rule within 0.01 rating points (1e-4 for a coefficient),
// well below the 0.1 points they are printed to.
func TestCtrlRoundStop(t *testing.T) {
	bs := styledStore(t, 100_000, 60)
	opts := Options{Rounds: 40, Seed: 7, Workers: 2,
		Controls: []string{ControlLength, ControlHeaders, ControlLists, ControlBold}}
	loose := mustRank(t, bs, opts)
	defer func(s, m float64) { ctrlRoundStop, baseMax = s, m }(ctrlRoundStop, baseMax)
	ctrlRoundStop, baseMax = looseStep, 0 // and every probability computed
	tight := mustRank(t, bs, opts)
	worst := 0.0
	bound := func(what string, a, b *float64, tol float64) {
		t.Helper()
		if a == nil || b == nil {
			t.Fatalf("%s: an interval is missing", what)
		}
		d := math.Abs(*a - *b)
		if d > tol {
			t.Errorf("%s: %.6f with the looser stop, %.6f with the tighter", what, *a, *b)
		}
		worst = math.Max(worst, d/tol)
	}
	for x, m := range loose.Models {
		w := ratingOf(t, tight, m.Model)
		if x == 0 && m.Model != tight.Models[0].Model {
			t.Errorf("top model %s, %s with the tighter stop", m.Model, tight.Models[0].Model)
		}
		bound(m.Model+" ci_low", m.CILow, w.CILow, 0.01)
		bound(m.Model+" ci_high", m.CIHigh, w.CIHigh, 0.01)
	}
	for e, c := range loose.Coefficients {
		bound(c.Name+" ci_low", c.CILow, tight.Coefficients[e].CILow, 1e-4)
		bound(c.Name+" ci_high", c.CIHigh, tight.Coefficients[e].CIHigh, 1e-4)
	}
	t.Logf("largest difference: %.4f of its tolerance", worst)
}

// expandSigma is σ(η+Δ) within Δ⁵/480 for |Δ| up to baseMax.
func TestExpandSigma(t *testing.T) {
	sigma := func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
	for eta := -8.0; eta <= 8; eta += 0.25 {
		for delta := -baseMax; delta <= baseMax+1e-12; delta += baseMax / 20 {
			got, want := expandSigma(sigma(eta), delta), sigma(eta+delta)
			if bound := math.Pow(math.Abs(delta), 5)/480 + 1e-15; math.Abs(got-want) > bound {
				t.Fatalf("η %g, Δ %g: %.17g, σ(η+Δ) %.17g (bound %.1e)", eta, delta, got, want, bound)
			}
		}
	}
}
