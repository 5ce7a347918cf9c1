package rank

import (
	"fmt"
	"math"
)

// Coefficient is one control feature's fitted effect: the change in the
// log-odds of winning per standard deviation of the feature's normalised
// difference, with its bootstrap interval (null without one).
type Coefficient struct {
	Name   string   `json:"name"`
	Value  float64  `json:"value"`
	CILow  *float64 `json:"ci_low"`
	CIHigh *float64 `json:"ci_high"`
}

// ctrlFit is the controlled fit of one board, beside its plain analysis.
type ctrlFit struct {
	features []int // indices into Controls, those fitted
	cp       *ctxProblem
	beta     []float64 // θ then γ at the full-data fit
	gamma    []float64
	gLow     []float64 // per feature; NaN when not computed
	gHigh    []float64
	gReps    []float64 // rounds × p
	rest     int       // battles of the board outside the controlled fit
}

// controlled fits a's board with the control features asked for, as a
// copy of a whose ratings and intervals are the controlled ones. It
// returns nil and notes when the board cannot be controlled (no feature
// known or varying, or no finite fit), so that the board stays plain.
func (a *analysis) controlled(opts *Options) (*analysis, *ctrlFit, []string) {
	if opts.weighted() {
		// The contextual fit counts every battle once; a weighted board
		// stays plain rather than mix the two.
		return nil, nil, []string{"not controlled: a board weighted by propensity is not style-controlled"}
	}
	want, notes := a.usableControls(opts.Controls)
	if len(want) == 0 {
		return nil, nil, notes
	}
	cf, more := a.buildControlled(want)
	notes = append(notes, more...)
	if cf == nil {
		return nil, nil, notes
	}
	mf := len(a.fit)
	cf.beta = make([]float64, mf+cf.cp.p)
	copy(cf.beta, a.theta)
	if _, err := newCtxSolver(mf, cf.cp.p).fit(cf.cp, cf.beta, stepTol); err != nil {
		return nil, nil, append(notes, "not controlled: "+err.Error())
	}
	cf.gamma = cf.beta[mf:]
	ca := *a
	ca.notes = append(append([]string(nil), a.notes...), notes...)
	ca.theta = cf.beta[:mf]
	ca.rating = make([]float64, mf)
	ca.place(ca.theta, nil, ca.rating)
	ca.low, ca.high = nanSlice(mf), nanSlice(mf)
	ca.reps, ca.nonfinite, ca.cov = nil, nil, nil
	cf.gLow, cf.gHigh = nanSlice(cf.cp.p), nanSlice(cf.cp.p)
	if ca.interval == IntervalBootstrap {
		if err := ca.ctrlBootstrap(cf, opts.Rounds, opts.Seed, opts.workers()); err != nil {
			return nil, nil, append(notes, "not controlled: "+err.Error())
		}
	}
	return &ca, cf, nil
}

// usableControls keeps the features asked for that some battle of the
// board knows; the others are noted.
func (a *analysis) usableControls(names []string) ([]int, []string) {
	var notes []string
	if len(a.fit) < 2 {
		return nil, []string{"not controlled: fewer than two rated models"}
	}
	var known uint8
	if a.bs.ctrlKnown != nil {
		for _, i := range a.sub.idx {
			known |= a.bs.ctrlKnown[i]
		}
	}
	var want []int
	for _, name := range names {
		f := controlIndex(name)
		if known&(1<<f) == 0 {
			notes = append(notes, fmt.Sprintf("control %s left out: no battle of this board has it", name))
			continue
		}
		want = append(want, f)
	}
	return want, notes
}

// buildControlled gathers the battles between rated models that know every
// feature of want, standardises the features over them (leaving out those
// without variance) and groups them by pair.
func (a *analysis) buildControlled(want []int) (*ctrlFit, []string) {
	bs := a.bs
	var mask uint8
	for _, f := range want {
		mask |= 1 << f
	}
	var kept []int32
	var scores []float64
	total, missing := 0, 0
	pos := a.posTable()
	// Battles, not votes (units.go): the votes of several judges on one
	// battle come as its first vote with their share of the score.
	bs.eachBattle(a.sub, nil, func(i int32, o uint8, share, _ float64) {
		fa, fb := pos[bs.a[i]], pos[bs.b[i]]
		total++
		if fa < 0 || fb < 0 {
			return
		}
		if bs.ctrlKnown[i]&mask != mask {
			missing++
			return
		}
		if share < 0 {
			share = shareOf(o)
		}
		kept = append(kept, i)
		scores = append(scores, share)
	})
	var notes []string
	if missing > 0 {
		notes = append(notes, fmt.Sprintf("%d battles lack a control feature and are left out of the controlled fit", missing))
	}
	// Standardise over the kept battles: mean 0, population deviation 1.
	var feats []int
	var mean, sd []float64
	for _, f := range want {
		var s, ss float64
		for _, i := range kept {
			x := float64(bs.ctrl[int(i)*NumControls+f])
			s += x
			ss += x * x
		}
		n := float64(len(kept))
		mu := s / n
		v := ss/n - mu*mu
		if !(v > 1e-18) {
			notes = append(notes, fmt.Sprintf("control %s left out: it does not vary in this board", Controls[f]))
			continue
		}
		feats, mean, sd = append(feats, f), append(mean, mu), append(sd, math.Sqrt(v))
	}
	if len(feats) == 0 {
		return nil, notes
	}
	cp := a.groupByPair(pos, kept, scores, feats, mean, sd)
	if !a.connected(cp) {
		return nil, append(notes, "not controlled: the battles that have every control feature do not link the rated models in both directions")
	}
	return &ctrlFit{features: feats, cp: cp, rest: total - len(kept)}, notes
}

// posTable maps every store model id to its fit position, or -1.
func (a *analysis) posTable() []int32 {
	pos := make([]int32, len(a.bs.models.list))
	for id := range pos {
		pos[id] = -1
	}
	for v, id := range a.c.models {
		pos[id] = a.pos[v]
	}
	return pos
}

// groupByPair lays the kept battles out by the pairs of a.prob, each
// oriented to its pair's first model; scores are model a's (a battle's
// share of its votes).
func (a *analysis) groupByPair(pos, kept []int32, scores []float64, feats []int, mean, sd []float64) *ctxProblem {
	bs, mf, p := a.bs, len(a.fit), len(feats)
	pairOf := pairIndex(mf, a.prob.pi, a.prob.pj)
	cp := &ctxProblem{m: mf, p: p, pi: a.prob.pi, pj: a.prob.pj, off: make([]int32, len(a.prob.pi)+1)}
	pk := make([]int32, len(kept))
	for x, i := range kept {
		pk[x] = pairOf(pos[bs.a[i]], pos[bs.b[i]])
		cp.off[pk[x]+1]++
	}
	for k := range a.prob.pi {
		cp.off[k+1] += cp.off[k]
	}
	next := append([]int32(nil), cp.off[:len(a.prob.pi)]...)
	cp.s, cp.z = make([]float64, len(kept)), make([]float64, len(kept)*p)
	for x, i := range kept {
		k := pk[x]
		b := next[k]
		next[k]++
		score := scores[x]
		sign := 1.0
		if pos[bs.a[i]] != a.prob.pi[k] {
			score, sign = 1-score, -1
		}
		cp.s[b] = score
		for e, f := range feats {
			cp.z[int(b)*p+e] = sign * (float64(bs.ctrl[int(i)*NumControls+f]) - mean[e]) / sd[e]
		}
	}
	return cp
}

// pairIndex looks pairs up by their models, either way round: a dense
// table up to denseCellLimit models (a million look-ups), else a map.
func pairIndex(m int, pi, pj []int32) func(i, j int32) int32 {
	if m <= denseCellLimit {
		dense := make([]int32, m*m)
		for k := range pi {
			i, j := int(pi[k]), int(pj[k])
			dense[i*m+j], dense[j*m+i] = int32(k), int32(k)
		}
		return func(i, j int32) int32 { return dense[int(i)*m+int(j)] }
	}
	sparse := make(map[[2]int32]int32, 2*len(pi))
	for k := range pi {
		sparse[[2]int32{pi[k], pj[k]}], sparse[[2]int32{pj[k], pi[k]}] = int32(k), int32(k)
	}
	return func(i, j int32) int32 { return sparse[[2]int32{i, j}] }
}

// pairCounts are the wins and ties per pair of cp's battles (weighted by
// cnt when set); a split battle counts as a tie, as in the cells.
func (cp *ctxProblem) pairCounts(wi, wj, t []int32) {
	for k := range cp.pi {
		var a, b, c int32
		for x := cp.off[k]; x < cp.off[k+1]; x++ {
			n := int32(1)
			if cp.cnt != nil {
				n = cp.cnt[x]
			}
			switch cp.s[x] {
			case 1:
				a += n
			case 0:
				b += n
			default:
				c += n
			}
		}
		wi[k], wj[k], t[k] = a, b, c
	}
}

// connected reports whether cp's battles link every rated model to every
// other by wins both ways (one strongly connected group): the condition of
// a finite fit, short of separation by the features.
func (a *analysis) connected(cp *ctxProblem) bool {
	np := len(cp.pi)
	wi, wj, t := make([]int32, np), make([]int32, np), make([]int32, np)
	cp.pairCounts(wi, wj, t)
	_, nc := buildGraph(cp.m, cp.pi, cp.pj, wi, wj, t).scc()
	return nc == 1
}

// coefficients reports the fitted features.
func (cf *ctrlFit) coefficients(interval string) []Coefficient {
	out := make([]Coefficient, len(cf.features))
	for e, f := range cf.features {
		c := Coefficient{Name: Controls[f], Value: cf.gamma[e]}
		if interval == IntervalBootstrap {
			if lo := cf.gLow[e]; !math.IsNaN(lo) && !math.IsInf(lo, 0) {
				c.CILow = ptr(lo)
			}
			if hi := cf.gHigh[e]; !math.IsNaN(hi) && !math.IsInf(hi, 0) {
				c.CIHigh = ptr(hi)
			}
		}
		out[e] = c
	}
	return out
}

func (cf *ctrlFit) names() []string {
	var out []string
	for _, f := range cf.features {
		out = append(out, Controls[f])
	}
	return out
}

// board is a's leaderboard, controlled when opts asks for controls: then
// ratings, intervals and ranks are the controlled fit's, and each model
// also carries its plain rating and rank.
func (a *analysis) board(opts *Options) *Leaderboard {
	if len(opts.Controls) == 0 {
		return a.leaderboard(opts)
	}
	ca, cf, notes := a.controlled(opts)
	if ca == nil {
		lb := a.leaderboard(opts)
		lb.Notes = append(append([]string(nil), lb.Notes...), notes...)
		return lb
	}
	lb := ca.leaderboard(opts)
	lb.Method.Controls = cf.names()
	lb.Coefficients = cf.coefficients(ca.interval)
	plain := map[string]int{}
	for f, v := range a.fit {
		plain[a.names[v]] = f
	}
	for x := range lb.Models {
		m := &lb.Models[x]
		f := plain[m.Model]
		m.UncontrolledRating, m.UncontrolledRank = ptr(a.rating[f]), ptr(1+a.above(f))
	}
	return lb
}
