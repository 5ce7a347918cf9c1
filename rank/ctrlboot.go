package rank

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
)

// ctrlBootstrap fills a.reps, low, high and nonfinite with the controlled
// ratings of `rounds` resamples, and cf's coefficient intervals from the
// same rounds. Rounds resample the board's battles (each controlled battle
// is its own cell, the rest one cell, which keeps the multinomial exact),
// seeded like the plain bootstrap.
func (a *analysis) ctrlBootstrap(cf *ctrlFit, rounds int, seed uint64, workers int) error {
	mf, p, nb := len(a.fit), cf.cp.p, len(cf.cp.s)
	a.rounds = rounds
	a.reps, a.nonfinite = make([]float64, rounds*mf), make([]int, mf)
	cf.gReps = make([]float64, rounds*p)
	if rounds == 0 {
		return nil
	}
	ms := newBattleSampler(nb, cf.rest)
	cf.cp.fullProbabilities(cf.beta)
	full := newCtxSolver(mf, p)
	full.eval(cf.cp, cf.beta, wantHess)
	zz0 := full.sums.zz
	workers = min(workers, rounds)
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cw := newCtrlWorker(a, cf)
			cw.sv.zz0, cw.sv.base = &zz0, cf.beta
			for {
				r := int(next.Add(1) - 1)
				if r >= rounds {
					return
				}
				ms.draw(rand.NewPCG(roundSeed(seed, r)), cw.draw)
				cw.compact()
				if err := cw.round(a.reps[r*mf:(r+1)*mf], cf.gReps[r*p:(r+1)*p]); err != nil {
					errs[w] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	a.percentiles(rounds)
	col := make([]float64, 0, rounds)
	for e := 0; e < p; e++ {
		col = col[:0]
		for r := 0; r < rounds; r++ {
			if x := cf.gReps[r*p+e]; !math.IsNaN(x) {
				col = append(col, x)
			}
		}
		if len(col) > 0 {
			slices.Sort(col)
			cf.gLow[e], cf.gHigh[e] = Quantile(col, (1-CI)/2), Quantile(col, 1-(1-CI)/2)
		}
	}
	return nil
}

// ctrlWorker is one goroutine's work space for controlled rounds.
type ctrlWorker struct {
	ca        *analysis
	cf        *ctrlFit
	draw      []int32    // per battle, then the rest
	cp        ctxProblem // the battles drawn, with their counts
	sv        *ctxSolver
	beta      []float64
	wi, wj, t []int32   // a round's wins and ties per pair, when it lost an edge
	si, sj    []float64 // a round's score sums per pair, each way
	fsi, fsj  []float64 // the full data's, to see a round that lost an edge
}

func newCtrlWorker(ca *analysis, cf *ctrlFit) *ctrlWorker {
	nb, np, p := len(cf.cp.s), len(cf.cp.pi), cf.cp.p
	cw := &ctrlWorker{ca: ca, cf: cf, draw: make([]int32, nb+1),
		cp: ctxProblem{m: cf.cp.m, p: p, pi: cf.cp.pi, pj: cf.cp.pj, off: make([]int32, np+1),
			s: make([]float64, nb), z: make([]float64, nb*p), cnt: make([]int32, nb), p0: make([]float64, nb)},
		sv: newCtxSolver(cf.cp.m, p), beta: make([]float64, len(cf.beta)),
		wi: make([]int32, np), wj: make([]int32, np), t: make([]int32, np),
		si: make([]float64, np), sj: make([]float64, np), fsi: make([]float64, np), fsj: make([]float64, np)}
	for k := range cf.cp.pi {
		for b := cf.cp.off[k]; b < cf.cp.off[k+1]; b++ {
			cw.fsi[k] += cf.cp.s[b]
			cw.fsj[k] += 1 - cf.cp.s[b]
		}
	}
	return cw
}

// compact gathers the battles the round drew (about 63% of them) into
// cw.cp, so that the later passes over them neither skip nor mispredict,
// and makes the round's first pass on the way (cw.sv's gradient and Hessian
// at the full-data fit): it reads each battle's probability there (cp.p0),
// so needs no exponential, and takes the features' block of the Hessian
// from the full data (sv.zz0), a sum over every battle that a resample
// moves by about 1/√battles. It also sums each pair's scores both ways
// (cw.si, cw.sj), whose zeros are the edges of the win graph.
func (cw *ctrlWorker) compact() {
	src, cp, p, sv := cw.cf.cp, &cw.cp, cw.cf.cp.p, cw.sv
	sv.begin(wantHess)
	sums := &sv.sums
	n := 0
	for k := range src.pi {
		cp.off[k] = int32(n)
		var si, sj, rsum, vsum float64
		sums.vz = [NumControls]float64{}
		for b := int(src.off[k]); b < int(src.off[k+1]); b++ {
			// Without branches (which battles were drawn is random):
			// every battle is written at n, which moves on when drawn.
			c, s, p0 := cw.draw[b], src.s[b], src.p0[b]
			w := float64(c)
			si += w * s
			sj += w * (1 - s)
			r, v := w*(s-p0), w*p0*(1-p0)
			rsum += r
			vsum += v
			dz, sz := cp.z[n*p:n*p+p], src.z[b*p:b*p+p]
			for f, x := range sz {
				dz[f] = x
				sums.gz[f] += r * x
				sums.vz[f] += v * x
			}
			cp.cnt[n], cp.s[n], cp.p0[n] = c, s, p0
			n += int(uint32(c|-c) >> 31)
		}
		cw.si[k], cw.sj[k] = si, sj
		i, j := int(src.pi[k]), int(src.pj[k])
		sv.grad[i] += rsum
		sv.grad[j] -= rsum
		sv.addPair(i, j, vsum)
	}
	cp.off[len(src.pi)] = int32(n)
	sv.finish(wantHess | fullZZ)
}

// round fits one resample and writes its ratings and coefficients.
func (cw *ctrlWorker) round(out, gout []float64) error {
	ca, cp, mf := cw.ca, &cw.cp, len(cw.ca.fit)
	lost := false
	for k := range cw.si {
		if (cw.si[k] == 0) != (cw.fsi[k] == 0) || (cw.sj[k] == 0) != (cw.fsj[k] == 0) {
			lost = true
			break
		}
	}
	if lost {
		cp.pairCounts(cw.wi, cw.wj, cw.t)
		g := buildGraph(mf, cp.pi, cp.pj, cw.wi, cw.wj, cw.t)
		if comp, nc := g.scc(); nc > 1 {
			return cw.partial(g, comp, nc, out, gout)
		}
	}
	copy(cw.beta, cw.cf.beta)
	if !cw.sv.round(cp, cw.beta) {
		copy(cw.beta, cw.cf.beta)
		if _, err := cw.sv.fit(cp, cw.beta, looseStep); err != nil {
			// Separation in a resample: the round has no finite fit.
			for f := range out {
				out[f] = math.NaN()
			}
			for e := range gout {
				gout[e] = math.NaN()
			}
			return nil
		}
	}
	ca.place(cw.beta[:mf], nil, out)
	copy(gout, cw.beta[mf:])
	return nil
}

// partial fits a round in which some model lost its finite estimate, as
// roundWorker.partial does: the main group is fitted on its own battles,
// the others are put at ±∞ or left undetermined.
func (cw *ctrlWorker) partial(g *graph, comp []int32, nc int, out, gout []float64) error {
	ca, cp, mf, p := cw.ca, &cw.cp, len(cw.ca.fit), cw.cp.p
	weight := make([]float64, mf)
	for k := range cp.pi {
		n := float64(cw.wi[k] + cw.wj[k] + cw.t[k])
		weight[cp.pi[k]] += n
		weight[cp.pj[k]] += n
	}
	group := mainGroup(comp, nc, weight, ca.anchor)
	for e := range gout {
		gout[e] = math.NaN()
	}
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
	theta := append([]float64(nil), cw.cf.beta[:mf]...)
	if len(group) > 1 {
		sub, at := subProblem(cp, group, mf)
		beta := make([]float64, len(group)+p)
		for x, f := range group {
			beta[x] = theta[f]
		}
		copy(beta[len(group):], cw.cf.beta[mf:])
		if _, err := newCtxSolver(len(group), p).fit(sub, beta, looseStep); err == nil {
			for f := range theta {
				if at[f] >= 0 {
					theta[f] = beta[at[f]]
				}
			}
			copy(gout, beta[len(group):])
		}
	}
	ca.place(theta, group, out)
	return nil
}

// subProblem keeps the pairs of cp between members of group, renumbered;
// at maps a model to its new number, or -1.
func subProblem(cp *ctxProblem, group []int32, m int) (*ctxProblem, []int32) {
	at := make([]int32, m)
	for f := range at {
		at[f] = -1
	}
	for x, f := range group {
		at[f] = int32(x)
	}
	sub := &ctxProblem{m: len(group), p: cp.p, off: []int32{0}}
	for k := range cp.pi {
		x, y := at[cp.pi[k]], at[cp.pj[k]]
		if x < 0 || y < 0 {
			continue
		}
		sub.pi, sub.pj = append(sub.pi, x), append(sub.pj, y)
		lo, hi := cp.off[k], cp.off[k+1]
		sub.s = append(sub.s, cp.s[lo:hi]...)
		sub.z = append(sub.z, cp.z[int(lo)*cp.p:int(hi)*cp.p]...)
		sub.cnt = append(sub.cnt, cp.cnt[lo:hi]...)
		sub.off = append(sub.off, int32(len(sub.s)))
	}
	return sub, at
}
