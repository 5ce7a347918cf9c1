package rank

// Reasons a model has no finite rating (Flagged.Reason).
const (
	FlagUndefeated   = "undefeated"   // it never lost or tied
	FlagWinless      = "winless"      // it never won or tied
	FlagAbove        = "above"        // the rated group never beat or tied it, directly or through others
	FlagBelow        = "below"        // it never beat or tied the rated group, directly or through others
	FlagDisconnected = "disconnected" // no chain of battles links it to the rated group
	FlagUnresolved   = "unresolved"   // no two models are linked by wins both ways, so nobody is rated
	FlagNoBattles    = "no_battles"   // it has generations but no rated battle (AddUnrated)
)

var flagDetails = map[string]string{
	FlagUndefeated:   "won every battle: its rating is unbounded above",
	FlagWinless:      "never won or tied a battle: its rating is unbounded below",
	FlagAbove:        "the rated models never beat or tied it, directly or through others: its rating is unbounded above",
	FlagBelow:        "it never beat or tied the rated models, directly or through others: its rating is unbounded below",
	FlagDisconnected: "no chain of battles links it to the rated models: its rating is undetermined",
	FlagUnresolved:   "no two models are linked by wins both ways, so no rating is finite",
	FlagNoBattles:    "it has generations but no rated battle: every generation failed, or none of its battles has a vote yet",
}

// graph is the directed "won or tied against" graph: an edge v→w when v
// scored against w at least once. CSR form, both directions. Its buffers are
// reused when it is rebuilt (once per bootstrap round).
type graph struct {
	m             int
	off, to       []int32
	roff, rto     []int32
	indeg, outdeg []int32
	fill, rfill   []int32
	// scc's work space
	index, low, comp, stack []int32
	onStack                 []bool
	call                    []frame
}

type frame struct{ v, e int32 }

// buildGraph makes the graph of m models from pair counts.
func buildGraph(m int, pi, pj, wi, wj, t []int32) *graph {
	g := &graph{}
	g.build(m, pi, pj, wi, wj, t)
	return g
}

func grow(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n)
	}
	s = s[:n]
	clear(s)
	return s
}

func (g *graph) build(m int, pi, pj, wi, wj, t []int32) {
	g.m = m
	g.indeg, g.outdeg = grow(g.indeg, m), grow(g.outdeg, m)
	for k := range pi {
		if wi[k]+t[k] > 0 {
			g.outdeg[pi[k]]++
			g.indeg[pj[k]]++
		}
		if wj[k]+t[k] > 0 {
			g.outdeg[pj[k]]++
			g.indeg[pi[k]]++
		}
	}
	g.off, g.roff = grow(g.off, m+1), grow(g.roff, m+1)
	for v := 0; v < m; v++ {
		g.off[v+1] = g.off[v] + g.outdeg[v]
		g.roff[v+1] = g.roff[v] + g.indeg[v]
	}
	g.to, g.rto = grow(g.to, int(g.off[m])), grow(g.rto, int(g.roff[m]))
	g.fill, g.rfill = append(g.fill[:0], g.off[:m]...), append(g.rfill[:0], g.roff[:m]...)
	edge := func(v, w int32) {
		g.to[g.fill[v]] = w
		g.fill[v]++
		g.rto[g.rfill[w]] = v
		g.rfill[w]++
	}
	for k := range pi {
		if wi[k]+t[k] > 0 {
			edge(pi[k], pj[k])
		}
		if wj[k]+t[k] > 0 {
			edge(pj[k], pi[k])
		}
	}
}

// scc labels the strongly connected components (Tarjan's algorithm, with an
// explicit stack so that thousands of models cannot overflow anything). The
// labels are valid until the next call.
func (g *graph) scc() (comp []int32, n int) {
	m := g.m
	g.index, g.low, g.comp = grow(g.index, m), grow(g.low, m), grow(g.comp, m)
	if cap(g.onStack) < m {
		g.onStack = make([]bool, m)
	}
	index, low, comp, onStack := g.index, g.low, g.comp, g.onStack[:m]
	clear(onStack)
	for v := range index {
		index[v], comp[v] = -1, -1
	}
	stack, call := g.stack[:0], g.call[:0]
	var counter int32
	visit := func(v int32) {
		index[v], low[v] = counter, counter
		counter++
		stack = append(stack, v)
		onStack[v] = true
		call = append(call, frame{v, g.off[v]})
	}
	for s := int32(0); s < int32(m); s++ {
		if index[s] >= 0 {
			continue
		}
		visit(s)
		for len(call) > 0 {
			f := &call[len(call)-1]
			v := f.v
			if f.e < g.off[v+1] {
				w := g.to[f.e]
				f.e++
				if index[w] < 0 {
					visit(w)
				} else if onStack[w] && index[w] < low[v] {
					low[v] = index[w]
				}
				continue
			}
			if low[v] == index[v] {
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[w] = false
					comp[w] = int32(n)
					if w == v {
						break
					}
				}
				n++
			}
			call = call[:len(call)-1]
			if len(call) > 0 {
				if u := call[len(call)-1].v; low[v] < low[u] {
					low[u] = low[v]
				}
			}
		}
	}
	g.stack, g.call = stack, call
	return comp, n
}

// mainGroup picks the rated group: the component of prefer when prefer ≥ 0
// (an anchor, in bootstrap rounds), else the largest component with at least
// two models, ties broken by battles (weight) and then by the lowest member.
// It returns the members in ascending order, or nil.
func mainGroup(comp []int32, n int, weight []float64, prefer int32) []int32 {
	best := int32(-1)
	if prefer >= 0 {
		best = comp[prefer]
	} else {
		size := make([]int, n)
		w := make([]float64, n)
		for v, c := range comp {
			size[c]++
			w[c] += weight[v]
		}
		for _, c := range comp { // in ascending model order, so the first of equals wins
			if size[c] < 2 {
				continue
			}
			if best < 0 || size[c] > size[best] || size[c] == size[best] && w[c] > w[best] {
				best = c
			}
		}
	}
	if best < 0 {
		return nil
	}
	var members []int32
	for v, c := range comp {
		if c == best {
			members = append(members, int32(v))
		}
	}
	return members
}

// sides tells, for every model outside the group, whether the group reaches
// it (below: -1), it reaches the group (above: +1), or neither (0).
func (g *graph) sides(group []int32) []int8 {
	side := make([]int8, g.m)
	in := make([]bool, g.m)
	for _, v := range group {
		in[v] = true
	}
	bfs := func(off, to []int32, mark int8) {
		queue := append([]int32(nil), group...)
		seen := append([]bool(nil), in...)
		for len(queue) > 0 {
			v := queue[0]
			queue = queue[1:]
			for e := off[v]; e < off[v+1]; e++ {
				if w := to[e]; !seen[w] {
					seen[w] = true
					side[w] = mark
					queue = append(queue, w)
				}
			}
		}
	}
	bfs(g.off, g.to, -1)
	bfs(g.roff, g.rto, +1)
	return side
}

// flags names, for every model outside the group, why it has no finite
// rating ("" for members).
func (g *graph) flags(group []int32) []string {
	out := make([]string, g.m)
	in := make([]bool, g.m)
	for _, v := range group {
		in[v] = true
	}
	var side []int8
	if len(group) > 0 {
		side = g.sides(group)
	}
	for v := range out {
		switch {
		case in[v]:
		case g.indeg[v] == 0:
			out[v] = FlagUndefeated
		case g.outdeg[v] == 0:
			out[v] = FlagWinless
		case len(group) == 0:
			out[v] = FlagUnresolved
		case side[v] > 0:
			out[v] = FlagAbove
		case side[v] < 0:
			out[v] = FlagBelow
		default:
			out[v] = FlagDisconnected
		}
	}
	return out
}
