package pairing

import (
	"cmp"
	"math"
	"slices"
)

// Pair is two tracked models by index, I < J.
type Pair struct{ I, J int }

// AllPairs lists every pair of m models.
func AllPairs(m int) []Pair {
	var out []Pair
	for i := range m {
		for j := i + 1; j < m; j++ {
			out = append(out, Pair{i, j})
		}
	}
	return out
}

// Policy is how pairs are dealt.
type Policy struct {
	// Adaptive deals pairs by how much their next vote does for the
	// decision; otherwise every pair is dealt equally often.
	Adaptive bool
	// FocusTop is the number of top models to separate from each other and
	// from the rest; 0 means the whole ranking.
	FocusTop int
	// Floor is the share of the probability spread evenly over all pairs.
	Floor float64
	// Placement is the number of battles a model is placed with first.
	Placement float64
	// Sharpness raises each pair's score to this power before normalising:
	// above 1 leans harder on the best pairs.
	Sharpness float64
}

// DefaultPolicy is adaptive dealing focused on the top three.
func DefaultPolicy() Policy {
	return Policy{Adaptive: true, FocusTop: 3, Floor: 0.05, Placement: 15, Sharpness: 3}
}

// UniformPolicy deals every pair equally often; focusTop is still the
// decision (the plan's and the boundaries').
func UniformPolicy(focusTop int) Policy { return Policy{FocusTop: focusTop} }

// Probabilities returns the probability of dealing each of pairs next,
// summing to 1. Every pair gets at least Floor/len(pairs) under adaptive
// dealing.
func (p Policy) Probabilities(t *Tracker, pairs []Pair) []float64 {
	out := make([]float64, len(pairs))
	if len(pairs) == 0 {
		return out
	}
	uniform := 1 / float64(len(pairs))
	for k := range out {
		out[k] = uniform
	}
	if !p.Adaptive {
		return out
	}
	t.Refresh()
	adapt := normalised(p.scores(t, pairs))
	place := normalised(p.placement(t, pairs))
	rho := 0.0
	if place != nil {
		rho = 0.5
	}
	if adapt == nil {
		adapt, rho = place, 1
	}
	if adapt == nil {
		return out
	}
	for k := range out {
		v := (1 - rho) * adapt[k]
		if place != nil {
			v += rho * place[k]
		}
		out[k] = p.Floor*uniform + (1-p.Floor)*v
	}
	return out
}

// normalised scales w to sum to 1; nil when it sums to nothing.
func normalised(w []float64) []float64 {
	sum := 0.0
	for _, x := range w {
		sum += x
	}
	if !(sum > 0) || math.IsInf(sum, 0) {
		return nil
	}
	for k := range w {
		w[k] /= sum
	}
	return w
}

// placement weighs the pairs of models with fewer than Placement battles,
// by how many battles they lack, spread over their opponents.
func (p Policy) placement(t *Tracker, pairs []Pair) []float64 {
	opponents := make([]float64, t.Len())
	for _, pr := range pairs {
		opponents[pr.I]++
		opponents[pr.J]++
	}
	w := make([]float64, len(pairs))
	for k, pr := range pairs {
		for _, i := range []int{pr.I, pr.J} {
			if lack := p.Placement - t.battles[i]; lack > 0 {
				w[k] += lack / opponents[i]
			}
		}
	}
	return w
}

// Boundary is one step of the decision: model Upper's interval should lie
// wholly above Lower's (the model below Upper whose interval reaches
// highest). Margin is the gap between the two intervals in rating points,
// negative while they overlap.
type Boundary struct {
	Upper  string  `json:"upper"`
	Lower  string  `json:"lower"`
	Margin float64 `json:"margin"`
	u, v   int
	weight float64
}

// Boundaries returns the decision's boundaries under the current fit: one
// per top model (FocusTop of them, or every model but the last).
func (p Policy) Boundaries(t *Tracker) []Boundary {
	t.Refresh()
	m := t.Len()
	if m < 2 {
		return nil
	}
	_, sd := t.centred()
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(t.theta[y], t.theta[x]) })
	k := p.FocusTop
	if k <= 0 || k >= m {
		k = m - 1
	}
	out := make([]Boundary, 0, k)
	for r := range k {
		u := order[r]
		v := order[r+1]
		for _, x := range order[r+1:] {
			if t.theta[x]+z*sd[x] > t.theta[v]+z*sd[v] {
				v = x
			}
		}
		g := (t.theta[u] - z*sd[u]) - (t.theta[v] + z*sd[v])
		out = append(out, Boundary{Upper: t.names[u], Lower: t.names[v], Margin: g * Scale,
			u: u, v: v, weight: boundaryWeight(t.theta[u]-t.theta[v], z*(sd[u]+sd[v]))})
	}
	return out
}

// Separated says whether every boundary's intervals are apart.
func Separated(bs []Boundary) bool {
	for _, b := range bs {
		if b.Margin <= 0 {
			return false
		}
	}
	return len(bs) > 0
}

// scores is each pair's worth to the decision: the shrinkage one more vote
// on it brings to the interval half-widths at each boundary, weighted by
// how undecided the boundary is (see the package comment).
func (p Policy) scores(t *Tracker, pairs []Pair) []float64 {
	bounds := p.Boundaries(t)
	m := t.Len()
	_, sd := t.centred()
	cov := t.cov
	colMean := make([]float64, m)
	for i := range m {
		for j := range m {
			colMean[j] += cov[i*m+j] / float64(m)
		}
	}
	shrink := func(x, a, b int, w, q float64) float64 {
		cd := cov[x*m+a] - cov[x*m+b] - (colMean[a] - colMean[b])
		dv := w * cd * cd / (1 + w*q)
		return sd[x] - math.Sqrt(max(0, sd[x]*sd[x]-dv))
	}
	sharp := p.Sharpness
	if sharp <= 0 {
		sharp = 1
	}
	out := make([]float64, len(pairs))
	for k, pr := range pairs {
		a, b := pr.I, pr.J
		pw := sigmoid(t.theta[a] - t.theta[b])
		w := pw * (1 - pw)
		q := cov[a*m+a] + cov[b*m+b] - 2*cov[a*m+b]
		s := 0.0
		for _, bd := range bounds {
			s += bd.weight * (shrink(bd.u, a, b, w, q) + shrink(bd.v, a, b, w, q))
		}
		out[k] = math.Pow(s, sharp)
	}
	return out
}

// Sample returns the index of the pair drawn by u in [0, 1) from probs,
// skipping the pairs marked in skip (nil: none), and the probability it
// had once those are left out. It returns -1 when nothing is left.
func Sample(probs []float64, skip []bool, u float64) (int, float64) {
	total := 0.0
	for k, pr := range probs {
		if skip == nil || !skip[k] {
			total += pr
		}
	}
	if !(total > 0) {
		return -1, 0
	}
	target, last := u*total, -1
	for k, pr := range probs {
		if skip != nil && skip[k] || pr <= 0 {
			continue
		}
		last = k
		if target < pr {
			return k, pr / total
		}
		target -= pr
	}
	return last, probs[last] / total
}

func sortRatings(rs []Rating) {
	slices.SortStableFunc(rs, func(x, y Rating) int { return cmp.Compare(y.Rating, x.Rating) })
}

// focusPower is p in boundaryWeight.
const focusPower = 4.0

// boundaryWeight is how much narrowing the intervals at a boundary with the
// given gap and summed half-widths is worth. The decision is made when the
// worst boundary is, so the objective is the largest ratio R = half-widths
// / gap, smoothed as Σ R^p; its derivative weighs a boundary by R^(p−1) /
// gap, leaning on the boundaries furthest from separation. A gap is not
// taken below minGap, so that two models the fit cannot tell apart yet do
// not take every vote.
func boundaryWeight(gap, halfWidths float64) float64 {
	gap = max(gap, minGap)
	return math.Pow(halfWidths/gap, focusPower-1) / gap
}

// minGap is 10 rating points, in natural-log units.
const minGap = 10 / Scale
