package rank

import (
	"math"
	"testing"
)

// A controlled bootstrap round ends after an exact Newton step below
// ctrlRoundStop rather than running to a step below looseStep: the
// intervals it gives, ratings and coefficients, are those of rounds run to
// the tighter rule within 0.01 rating points (1e-4 for a coefficient),
// well below the 0.1 points they are printed to.
func TestCtrlRoundStop(t *testing.T) {
	bs := styledStore(t, 100_000, 60)
	opts := Options{Rounds: 40, Seed: 7, Workers: 2,
		Controls: []string{ControlLength, ControlHeaders, ControlLists, ControlBold}}
	loose := mustRank(t, bs, opts)
	defer func(s float64) { ctrlRoundStop = s }(ctrlRoundStop)
	ctrlRoundStop = looseStep
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
