package rank

import (
	"math"
	"slices"
)

// EloK is the online Elo step, as in the public Chatbot Arena notebooks.
const EloK = 4

// elo runs online Elo over the subset in time order (store order among
// equal or unknown times): every model starts at 1000, and after each battle
// both move by K·(score − expected). It returns ratings per local model of c.
func (bs *Battles) elo(s subset, c *cells) []float64 {
	order := s.idx
	sorted := slices.IsSortedFunc(order, func(x, y int32) int { return cmpFloat(bs.time[x], bs.time[y]) })
	if !sorted {
		order = slices.Clone(order)
		slices.SortStableFunc(order, func(x, y int32) int { return cmpFloat(bs.time[x], bs.time[y]) })
	}
	local := make([]int32, len(bs.models.list))
	for v, id := range c.models {
		local[id] = int32(v)
	}
	r := make([]float64, len(c.models))
	for v := range r {
		r[v] = 1000
	}
	bs.each(subset{idx: order, dim: s.dim}, func(i int32, o uint8) {
		a, b := local[bs.a[i]], local[bs.b[i]]
		if bs.a[i] == bs.b[i] {
			return
		}
		// Both expectations from the ratings before the update, as FastChat
		// computes them.
		ea := 1 / (1 + math.Pow(10, (r[b]-r[a])/400))
		eb := 1 / (1 + math.Pow(10, (r[a]-r[b])/400))
		sa := 0.5
		switch o {
		case outA:
			sa = 1
		case outB:
			sa = 0
		}
		r[a] += EloK * (sa - ea)
		r[b] += EloK * (1 - sa - eb)
	})
	return r
}

func cmpFloat(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}
