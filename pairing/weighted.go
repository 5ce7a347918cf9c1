package pairing

// Tally is votes between two models with the probability their pair was
// dealt with: Count votes in which A scored ScoreA each.
type Tally struct {
	A, B       string
	ScoreA     float64
	Count      float64
	Propensity float64
}

// WeightedFit returns the Bradley-Terry ratings (rating points, mean 1000,
// in the order of models) of the tallies with each vote weighted by the
// inverse of its propensity (a propensity of 0, unknown, counts as uniform
// dealing, 1/pairs). Weighting undoes the adaptive design: each pair counts
// as often as uniform dealing would have dealt it, so the fit estimates
// what uniform dealing would have given, even where Bradley-Terry does not
// hold exactly. Tallies of models not listed are left out.
func WeightedFit(models []string, tallies []Tally) []float64 {
	m := len(models)
	t := NewTracker(models)
	pairs := float64(m * (m - 1) / 2)
	for _, tl := range tallies {
		if t.Index(tl.A) < 0 || t.Index(tl.B) < 0 {
			continue
		}
		p := tl.Propensity
		if p <= 0 {
			p = 1 / pairs
		}
		// Scaled so that uniform dealing weighs each vote 1.
		t.Add(tl.A, tl.B, tl.ScoreA, tl.Count/(p*pairs))
	}
	t.fit()
	mean := 0.0
	for _, th := range t.theta {
		mean += th / float64(m)
	}
	out := make([]float64, m)
	for i := range out {
		out[i] = 1000 + (t.theta[i]-mean)*Scale
	}
	return out
}
