package rank

import "sort"

// cells are the sufficient statistics of a set of battles: for every
// unordered pair of models that met, how often the first won, the second won,
// and they tied (either kind of tie). See the package comment for why
// dropping the side is exact.
type cells struct {
	models  []int32 // store ids of the models that took part, ascending; a model's local index is its position
	i, j    []int32 // local indices, i < j
	wi, wj  []int32 // wins of i, wins of j
	t       []int32 // ties
	battles int
}

// denseCellLimit bounds the model count for which counting uses a dense
// models² table (12 MB at the limit); beyond it a map is used.
const denseCellLimit = 1024

// cellsOf collapses a subset of battles to cells.
func (bs *Battles) cellsOf(s subset) *cells {
	m := len(bs.models.list)
	type key struct{ lo, hi int32 }
	var dense []int32
	var sparse map[key]*[3]int32
	if m <= denseCellLimit {
		dense = make([]int32, m*m*3)
	} else {
		sparse = map[key]*[3]int32{}
	}
	seen := make([]bool, m)
	battles := 0
	bs.each(s, func(i int32, o uint8) {
		a, b := bs.a[i], bs.b[i]
		if a == b {
			return
		}
		// Slot 0: lo won, 1: hi won, 2: tie.
		lo, hi, slot := a, b, int32(2)
		if o == outA {
			slot = 0
		} else if o == outB {
			slot = 1
		}
		if lo > hi {
			lo, hi = hi, lo
			if slot < 2 {
				slot = 1 - slot
			}
		}
		seen[a], seen[b] = true, true
		battles++
		if dense != nil {
			dense[(int(lo)*m+int(hi))*3+int(slot)]++
			return
		}
		k := key{lo, hi}
		c := sparse[k]
		if c == nil {
			c = new([3]int32)
			sparse[k] = c
		}
		c[slot]++
	})
	c := &cells{battles: battles}
	local := make([]int32, m)
	for id := 0; id < m; id++ {
		if seen[id] {
			local[id] = int32(len(c.models))
			c.models = append(c.models, int32(id))
		}
	}
	add := func(lo, hi int32, n *[3]int32) {
		c.i = append(c.i, local[lo])
		c.j = append(c.j, local[hi])
		c.wi = append(c.wi, n[0])
		c.wj = append(c.wj, n[1])
		c.t = append(c.t, n[2])
	}
	if dense != nil {
		for lo := 0; lo < m; lo++ {
			if !seen[lo] {
				continue
			}
			for hi := lo + 1; hi < m; hi++ {
				k := (lo*m + hi) * 3
				if n := (*[3]int32)(dense[k : k+3]); n[0]+n[1]+n[2] > 0 {
					add(int32(lo), int32(hi), n)
				}
			}
		}
		return c
	}
	keys := make([]key, 0, len(sparse))
	for k := range sparse {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(x, y int) bool {
		a, b := keys[x], keys[y]
		return a.lo < b.lo || a.lo == b.lo && a.hi < b.hi
	})
	for _, k := range keys {
		add(k.lo, k.hi, sparse[k])
	}
	return c
}

// Counts are a model's battles and results. WinRate counts a tie as half a
// win: (wins + ties/2) / battles.
type Counts struct {
	Battles int     `json:"battles"`
	Wins    int     `json:"wins"`
	Losses  int     `json:"losses"`
	Ties    int     `json:"ties"`
	WinRate float64 `json:"win_rate"`
}

// counts per local model.
func (c *cells) counts() []Counts {
	out := make([]Counts, len(c.models))
	for k := range c.i {
		i, j := c.i[k], c.j[k]
		wi, wj, t := int(c.wi[k]), int(c.wj[k]), int(c.t[k])
		out[i].Wins += wi
		out[i].Losses += wj
		out[i].Ties += t
		out[j].Wins += wj
		out[j].Losses += wi
		out[j].Ties += t
	}
	for i := range out {
		o := &out[i]
		o.Battles = o.Wins + o.Losses + o.Ties
		if o.Battles > 0 {
			o.WinRate = (float64(o.Wins) + float64(o.Ties)/2) / float64(o.Battles)
		}
	}
	return out
}
