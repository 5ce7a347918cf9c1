package rank

import (
	"cmp"
	"slices"
	"sort"
)

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
	// adj corrects the first model's score per cell for battles whose
	// votes split unevenly (nil when there are none); frac lists those
	// battles, and the battles that weigh other than 1, by cell, outcome,
	// share of i and weight, for the fit and the bootstrap. See units.go
	// and weights.go.
	adj  []float64
	frac []fracCell
	// drawn counts the subset's votes that have a propensity, when the
	// board is weighted.
	drawn int
}

// fracCell is how many battles (n) of cell k, counted in the cell's
// outcome slot (0: i won, 1: j won, 2: a tie), gave model i the share s
// and weigh w. A battle split unevenly has slot 2 and its share; a
// weighted battle its outcome's slot and share (1, 0 or ½).
type fracCell struct {
	k    int32
	slot uint8
	s, w float64
	n    int32
}

// fracKey is a fracCell within its cell.
type fracKey struct {
	slot uint8
	s, w float64
}

// slotScore is model i's score in an outcome slot.
func slotScore(slot uint8) float64 { return [3]float64{1, 0, 0.5}[slot] }

// dS is what one of the battles adds to i's score in the fit beyond its
// slot's score; dN what it adds to the pair's battles beyond 1.
func (fc *fracCell) dS() float64 { return fc.w*fc.s - slotScore(fc.slot) }
func (fc *fracCell) dN() float64 { return fc.w - 1 }

// denseCellLimit bounds the model count for which counting uses a dense
// models² table (12 MB at the limit); beyond it a map is used.
const denseCellLimit = 1024

// cellKey is an unordered pair of models, lo < hi, in the sparse count.
type cellKey struct{ lo, hi int32 }

// cellCounts are the counts of one subset before they become cells: a
// dense models² × 3 table, or a map when there are many models.
type cellCounts struct {
	m       int
	dense   []int32
	sparse  map[cellKey]*[3]int32
	seen    []bool
	battles int
	frac    map[cellKey]map[fracKey]int32 // split or weighted battles per pair
	drawn   int
}

// cellsOf collapses a subset of battles to cells, each battle weighed by
// its propensity when weighted.
func (bs *Battles) cellsOf(s subset, weighted bool) *cells {
	cc := bs.countCells(s, weighted)
	c := &cells{battles: cc.battles, drawn: cc.drawn}
	local := make([]int32, cc.m)
	for id := 0; id < cc.m; id++ {
		if cc.seen[id] {
			local[id] = int32(len(c.models))
			c.models = append(c.models, int32(id))
		}
	}
	add := func(lo, hi int32, n *[3]int32) {
		if len(cc.frac) > 0 {
			c.addFrac(cc.frac, lo, hi)
		}
		c.i = append(c.i, local[lo])
		c.j = append(c.j, local[hi])
		c.wi = append(c.wi, n[0])
		c.wj = append(c.wj, n[1])
		c.t = append(c.t, n[2])
	}
	if cc.dense != nil {
		m := cc.m
		for lo := 0; lo < m; lo++ {
			if !cc.seen[lo] {
				continue
			}
			for hi := lo + 1; hi < m; hi++ {
				k := (lo*m + hi) * 3
				if n := (*[3]int32)(cc.dense[k : k+3]); n[0]+n[1]+n[2] > 0 {
					add(int32(lo), int32(hi), n)
				}
			}
		}
		return c
	}
	keys := make([]cellKey, 0, len(cc.sparse))
	for k := range cc.sparse {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(x, y int) bool {
		a, b := keys[x], keys[y]
		return a.lo < b.lo || a.lo == b.lo && a.hi < b.hi
	})
	for _, k := range keys {
		add(k.lo, k.hi, cc.sparse[k])
	}
	return c
}

// countCells counts the subset's battles per unordered pair and outcome.
func (bs *Battles) countCells(s subset, weighted bool) *cellCounts {
	m := len(bs.models.list)
	cc := &cellCounts{m: m, seen: make([]bool, m)}
	if m <= denseCellLimit {
		cc.dense = make([]int32, m*m*3)
	} else {
		cc.sparse = map[cellKey]*[3]int32{}
	}
	var weight func(int32) float64
	if weighted {
		weight, cc.drawn = bs.voteWeights(s)
	}
	bs.eachBattle(s, weight, func(i int32, o uint8, share, w float64) {
		a, b := bs.a[i], bs.b[i]
		if a == b {
			return
		}
		// Slot 0: lo won, 1: hi won, 2: tie.
		lo, hi, slot := a, b, uint8(2)
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
			if share >= 0 {
				share = 1 - share
			}
		}
		if share >= 0 || w != 1 {
			cc.addFrac(cellKey{lo, hi}, slot, share, w)
		}
		cc.seen[a], cc.seen[b] = true, true
		cc.battles++
		if cc.dense != nil {
			cc.dense[(int(lo)*m+int(hi))*3+int(slot)]++
			return
		}
		k := cellKey{lo, hi}
		n := cc.sparse[k]
		if n == nil {
			n = new([3]int32)
			cc.sparse[k] = n
		}
		n[slot]++
	})
	return cc
}

// addFrac counts a battle of the pair k that split unevenly (share of lo,
// else -1) or weighs w other than 1.
func (cc *cellCounts) addFrac(k cellKey, slot uint8, share, w float64) {
	if share < 0 {
		share = slotScore(slot)
	}
	if cc.frac == nil {
		cc.frac = map[cellKey]map[fracKey]int32{}
	}
	if cc.frac[k] == nil {
		cc.frac[k] = map[fracKey]int32{}
	}
	cc.frac[k][fracKey{slot, share, w}]++
}

// addFrac records the split and weighted battles of the cell about to be
// added (lo, hi).
func (c *cells) addFrac(frac map[cellKey]map[fracKey]int32, lo, hi int32) {
	if c.adj == nil {
		c.adj = make([]float64, len(c.i))
	}
	k := int32(len(c.i))
	c.adj = append(c.adj, 0)
	var here []fracCell
	for x, n := range frac[cellKey{lo, hi}] {
		here = append(here, fracCell{k: k, slot: x.slot, s: x.s, w: x.w, n: n})
		c.adj[k] += float64(n) * (x.s - slotScore(x.slot))
	}
	slices.SortFunc(here, func(x, y fracCell) int {
		return cmp.Or(cmp.Compare(x.slot, y.slot), cmp.Compare(x.s, y.s), cmp.Compare(x.w, y.w))
	})
	c.frac = append(c.frac, here...)
}

// score is model i's score in cell k: wins, half the ties, and the
// correction for split battles.
func (c *cells) score(k int) float64 {
	s := float64(c.wi[k]) + float64(c.t[k])/2
	if c.adj != nil {
		s += c.adj[k]
	}
	return s
}

// Counts are a model's battles and results. WinRate counts a tie as half a
// win: (wins + ties/2) / battles. A battle whose judges split unevenly
// counts as a tie here, and with its share of the votes in WinRate.
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
	adj := make([]float64, len(c.models))
	for k := range c.i {
		i, j := c.i[k], c.j[k]
		if c.adj != nil {
			adj[i] += c.adj[k]
			adj[j] -= c.adj[k]
		}
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
			o.WinRate = (float64(o.Wins) + float64(o.Ties)/2 + adj[i]) / float64(o.Battles)
		}
	}
	return out
}
