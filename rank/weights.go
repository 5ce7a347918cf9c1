package rank

import (
	"math"
	"strings"

	"github.com/ringside-eval/ringside"
)

// Weightings (Options.Weighting).
//
// Adaptive pairing deals the pairs whose next vote does most for the
// decision, so the votes are not a uniform sample of the pairs: a pair the
// dealer favoured is over-represented. Where Bradley-Terry holds exactly
// that does not bias the fit, but real judges are never exactly
// Bradley-Terry, and then the fit of an adaptive design estimates something
// that depends on the design. Weighting each vote by the inverse of the
// probability its pair was dealt with undoes the design: each pair counts
// as often as uniform dealing would have dealt it, so the board estimates
// what uniform dealing would have given (pairing.WeightedFit is the same
// estimate). The price is variance: the votes the dealer rarely chose
// weigh much, so the intervals are wider than the unweighted board's.
//
// A vote's weight is 1/(propensity·pairs), pairs being the number of pairs
// dealt from, so that uniform dealing weighs every vote 1 and the weighted
// votes count as many as they are beside the votes without a propensity
// (imported, chat, gold and older ones, which weigh 1). The number of pairs
// at each deal is not stored; the board takes the mean of 1/propensity over
// its votes that have one, whose expectation under any dealing is the
// number of pairs dealt from (Σ_k p_k·(1/p_k)), and which is that number
// exactly when dealing was uniform. The votes of several judges on one
// battle (units.go) weigh their battle by the mean of their weights.
const (
	WeightingNone       = "none"
	WeightingPropensity = "propensity"
)

// Weightings lists the values Options.Weighting accepts ("" is none).
var Weightings = []string{WeightingNone, WeightingPropensity}

// ValidateWeighting checks a weighting value: none, propensity, or empty
// (none). The error names field.
func ValidateWeighting(field, s string) error {
	switch s {
	case "", WeightingNone, WeightingPropensity:
		return nil
	}
	return ringside.FieldError(field, "%q is not one of %s", s, strings.Join(Weightings, ", "))
}

// weighted says whether the options weigh votes by propensity.
func (o *Options) weighted() bool { return o.Weighting == WeightingPropensity }

// addPropensity appends the last battle's propensity, starting the column
// (zero for every earlier battle) at the first battle that has one.
func (bs *Battles) addPropensity(p float64) {
	if p == 0 && bs.prop == nil {
		return
	}
	if bs.prop == nil {
		bs.prop = make([]float64, len(bs.a)-1, cap(bs.a))
	}
	bs.prop = append(bs.prop, p)
}

// voteWeights returns each vote's weight in the subset by its propensity
// (see the comment on the weightings), and how many votes of the subset
// have one. The function is nil when none has: every vote weighs 1.
func (bs *Battles) voteWeights(s subset) (func(i int32) float64, int) {
	if bs.prop == nil {
		return nil, 0
	}
	sum, lo, hi, n := 0.0, math.Inf(1), math.Inf(-1), 0
	bs.each(s, func(i int32, _ uint8) {
		if p := bs.prop[i]; p > 0 {
			sum += 1 / p
			lo, hi = min(lo, 1/p), max(hi, 1/p)
			n++
		}
	})
	if n == 0 {
		return nil, 0
	}
	pairs := sum / float64(n)
	if lo == hi {
		pairs = lo // uniform dealing: every weight exactly 1
	}
	return func(i int32) float64 {
		p := bs.prop[i]
		if p <= 0 {
			return 1
		}
		w := 1 / (p * pairs)
		if math.Abs(w-1) < 1e-12 {
			return 1
		}
		return w
	}, n
}
