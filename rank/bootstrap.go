package rank

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/ringside-eval/ringside"
)

// bootstrap fills a.reps with `rounds` replicate fits and a.low, a.high with
// their percentiles, or takes them from memo (nil: none) when it has them.
// See the package comment for the rules.
func (a *analysis) bootstrap(rounds int, seed uint64, workers int, memo *Memo) (err error) {
	mf := len(a.fit)
	if mf == 0 || rounds == 0 {
		a.reps, a.nonfinite = make([]float64, rounds*mf), make([]int, mf)
		return nil
	}
	if memo != nil {
		key := a.memoKey(rounds, seed)
		if memo.load(key, a) {
			return nil
		}
		defer func() {
			if err == nil {
				memo.store(key, a)
			}
		}()
	}
	a.reps, a.nonfinite = make([]float64, rounds*mf), make([]int, mf)
	counts, refs := a.cells()
	ms := newMultinomialSampler(counts)
	// Rounds start from the full-data fit and iterate with its Hessian,
	// factored once (see roundWorker.fit).
	full := newSolver(mf)
	full.eval(a.prob, a.theta, false)
	if mf > 1 {
		if err := cholesky(full.hess, full.chol, mf-1, mf); err != nil {
			return ringside.Errorf(ringside.EINTERNAL, "bootstrap: %v", err)
		}
	}

	if workers > rounds {
		workers = rounds
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rw := newRoundWorker(a, full.chol, len(counts))
			for {
				r := int(next.Add(1) - 1)
				if r >= rounds {
					return
				}
				ms.draw(rand.NewPCG(roundSeed(seed, r)), rw.draw)
				if err := rw.round(refs, a.reps[r*mf:(r+1)*mf]); err != nil {
					errs[w] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return ringside.Errorf(ringside.EINTERNAL, "bootstrap: %v", err)
		}
	}
	a.percentiles(rounds)
	return nil
}

// cells are what a round resamples: every non-empty (pair, outcome) of the
// rated group, the split and weighted battles of each (pair, outcome,
// share, weight) as a cell of their own, so that a resampled battle keeps
// its weight, then one cell for all battles of flagged models (aggregating
// cells keeps the multinomial exact). refs[i] names cell i for the round:
// pair k<<2 | outcome slot, or a.pfrac[x] as x<<2 | 3; the last cell has
// none.
func (a *analysis) cells() (counts, refs []int32) {
	plain := [3][]int32{slices.Clone(a.pwi), slices.Clone(a.pwj), slices.Clone(a.pt)}
	for _, fc := range a.pfrac {
		plain[fc.slot][fc.k] -= fc.n // cells of their own
	}
	for k := range a.pwi {
		for slot, n := range [3]int32{plain[0][k], plain[1][k], plain[2][k]} {
			if n > 0 {
				counts = append(counts, n)
				refs = append(refs, int32(k<<2|slot))
			}
		}
	}
	for x, fc := range a.pfrac {
		counts = append(counts, fc.n)
		refs = append(refs, int32(x<<2|3))
	}
	return append(counts, int32(a.other)), refs
}

// percentiles fills a.low, a.high and a.nonfinite from the rounds in a.reps.
func (a *analysis) percentiles(rounds int) {
	mf := len(a.fit)
	col := make([]float64, 0, rounds)
	for f := 0; f < mf; f++ {
		col = col[:0]
		for r := 0; r < rounds; r++ {
			x := a.reps[r*mf+f]
			if math.IsInf(x, 0) || math.IsNaN(x) {
				a.nonfinite[f]++
			}
			if !math.IsNaN(x) {
				col = append(col, x)
			}
		}
		if len(col) == 0 {
			continue
		}
		slices.Sort(col)
		a.low[f] = Quantile(col, (1-CI)/2)
		a.high[f] = Quantile(col, 1-(1-CI)/2)
	}
}

// roundSeed derives round r's PCG state from the seed alone (SplitMix64
// finalisers, so neighbouring rounds get unrelated streams).
func roundSeed(seed uint64, r int) (uint64, uint64) {
	mix := func(x uint64) uint64 {
		x ^= x >> 30
		x *= 0xbf58476d1ce4e5b9
		x ^= x >> 27
		x *= 0x94d049bb133111eb
		return x ^ x>>31
	}
	return mix(seed ^ mix(2*uint64(r)+1)), mix(seed ^ mix(2*uint64(r)+2) ^ 0x9e3779b97f4a7c15)
}

// roundWorker is one goroutine's work space.
type roundWorker struct {
	a         *analysis
	sv        *solver
	chol      []float64 // the full-data Hessian's factor, shared, read only
	draw      []int32
	wi, wj, t []int32
	prob      problem
	theta     []float64
	weight    []float64
	g         graph
	fallbacks int // rounds the chord iteration handed to Newton's method
}

func newRoundWorker(a *analysis, chol []float64, cells int) *roundWorker {
	mf, np := len(a.fit), len(a.pwi)
	return &roundWorker{
		a: a, sv: newSolver(mf), chol: chol, draw: make([]int32, cells),
		wi: make([]int32, np), wj: make([]int32, np), t: make([]int32, np),
		prob:  problem{m: mf, pi: a.prob.pi, pj: a.prob.pj, n: make([]float64, np), s: make([]float64, np)},
		theta: make([]float64, mf), weight: make([]float64, mf),
	}
}

// round fits one resample (rw.draw) and writes its ratings to out.
func (rw *roundWorker) round(refs []int32, out []float64) error {
	a := rw.a
	clear(rw.wi)
	clear(rw.wj)
	clear(rw.t)
	var adj []int32 // split or weighted battles drawn, by index into a.pfrac
	slots := [3][]int32{rw.wi, rw.wj, rw.t}
	for c, ref := range refs {
		k, n := ref>>2, rw.draw[c]
		if ref&3 < 3 {
			slots[ref&3][k] += n
			continue
		}
		// Counted in its slot; its share and weight go to the score.
		fc := a.pfrac[k]
		slots[fc.slot][fc.k] += n
		adj = append(adj, k, n)
	}
	pairStats(rw.wi, rw.wj, rw.t, rw.prob.n, rw.prob.s)
	for x := 0; x < len(adj); x += 2 {
		fc := &a.pfrac[adj[x]]
		n := float64(adj[x+1])
		rw.prob.s[fc.k] += n * fc.dS()
		rw.prob.n[fc.k] += n * fc.dN()
	}
	mf := len(a.fit)
	copy(rw.theta, a.theta)
	// The rated group is strongly connected in the full data; a round can
	// only lose edges, so if it kept every one (the usual case with many
	// battles) it still is, and the graph need not be searched.
	lost := false
	for k := range rw.wi {
		if (rw.wi[k]+rw.t[k] == 0) != (a.pwi[k]+a.pt[k] == 0) || (rw.wj[k]+rw.t[k] == 0) != (a.pwj[k]+a.pt[k] == 0) {
			lost = true
			break
		}
	}
	comp, nc := []int32(nil), 1
	g := &rw.g
	if lost {
		g.build(mf, a.prob.pi, a.prob.pj, rw.wi, rw.wj, rw.t)
		comp, nc = g.scc()
	}
	if nc == 1 {
		if err := rw.fit(); err != nil {
			return err
		}
		a.place(rw.theta, nil, out)
		return nil
	}
	return rw.partial(comp, nc, out)
}

// partial fits a round in which some model has no finite estimate: the
// group that holds the anchor (or the largest) is fitted, and the others
// are put at ±∞ or left undetermined.
func (rw *roundWorker) partial(comp []int32, nc int, out []float64) error {
	a, mf, g := rw.a, len(rw.a.fit), &rw.g
	clear(rw.weight)
	for k := range rw.prob.pi {
		rw.weight[rw.prob.pi[k]] += rw.prob.n[k]
		rw.weight[rw.prob.pj[k]] += rw.prob.n[k]
	}
	group := mainGroup(comp, nc, rw.weight, a.anchor)
	if group == nil {
		for f := range out {
			out[f] = math.NaN()
		}
		return nil
	}
	side := g.sides(group)
	for f := range out {
		out[f] = [3]float64{math.Inf(-1), math.NaN(), math.Inf(1)}[side[f]+1]
	}
	if len(group) > 1 {
		at := make([]int32, mf)
		for f := range at {
			at[f] = -1
		}
		for x, f := range group {
			at[f] = int32(x)
		}
		sub := problem{m: len(group)}
		for k := range rw.prob.pi {
			x, y := at[rw.prob.pi[k]], at[rw.prob.pj[k]]
			if x >= 0 && y >= 0 {
				sub.pi, sub.pj = append(sub.pi, x), append(sub.pj, y)
				sub.n, sub.s = append(sub.n, rw.prob.n[k]), append(sub.s, rw.prob.s[k])
			}
		}
		th := make([]float64, len(group))
		for x, f := range group {
			th[x] = a.theta[f]
		}
		if _, err := newSolver(len(group)).fit(&sub, th, true); err != nil {
			return err
		}
		for x, f := range group {
			rw.theta[f] = th[x]
		}
	}
	a.place(rw.theta, group, out)
	return nil
}

// Quantile is numpy's default (type 7, "linear") quantile of sorted data,
// computed the way numpy computes it (virtual index n·q + (1−q) − 1, and its
// two-sided lerp) so that intervals agree with Python to the last digit. An
// infinite neighbour makes the result infinite, the limit of the
// interpolation. It returns NaN for no data.
func Quantile(sorted []float64, q float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	h := float64(n)*q + (1 + q*(1-1-1)) - 1
	lo := math.Floor(h)
	if lo < 0 {
		return sorted[0]
	}
	if int(lo) >= n-1 {
		return sorted[n-1]
	}
	t := h - lo
	x, y := sorted[int(lo)], sorted[int(lo)+1]
	switch {
	case t == 0:
		return x
	case math.IsInf(x, 0):
		return x
	case math.IsInf(y, 0):
		return y
	case t >= 0.5:
		return y - (y-x)*(1-t)
	}
	return x + (y-x)*t
}

// fit solves one round from the full-data fit. A round's data differ from the
// full data by sampling noise only, so the full-data Hessian is a close
// stand-in for the round's: iterating θ += H₀⁻¹ g(θ) (the chord method)
// contracts the error by a small factor per step at the cost of one gradient
// pass and two triangular solves, where Newton's method would refactor the
// Hessian every step. If the steps stop shrinking fast (a sparse graph where
// a resample changes the Hessian a lot), it falls back to Newton's method.
func (rw *roundWorker) fit() error {
	mf := len(rw.theta)
	if mf < 2 {
		return nil
	}
	g := rw.sv.grad
	prev := math.Inf(1)
	for it := 0; it < 100; it++ {
		rw.sv.gradient(&rw.prob, rw.theta)
		cholSolve(rw.chol, g[:mf-1], mf-1, mf)
		step := 0.0
		for v := 0; v < mf-1; v++ {
			step = math.Max(step, math.Abs(g[v]))
		}
		if math.IsNaN(step) || step > prev/2 {
			break
		}
		for v := 0; v < mf-1; v++ {
			rw.theta[v] += g[v]
		}
		// The error left is about step·ρ/(1−ρ) with contraction ρ ≤ ½.
		if step <= chordTol {
			return nil
		}
		prev = step
	}
	rw.fallbacks++
	copy(rw.theta, rw.a.theta)
	_, err := rw.sv.fit(&rw.prob, rw.theta, true)
	return err
}
