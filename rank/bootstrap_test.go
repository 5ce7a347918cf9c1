package rank

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

func TestQuantileMatchesNumpy(t *testing.T) {
	// numpy.quantile(x, q) with the default method="linear".
	for _, tc := range []struct {
		x    []float64
		q    float64
		want float64
	}{
		{[]float64{1, 2, 3, 4}, 0.25, 1.75},
		{[]float64{1, 2, 3, 4}, 0.5, 2.5},
		{[]float64{1, 2, 3, 4}, 0.95, 3.85},
		{[]float64{1, 2, 3, 4}, 0.975, 3.925},
		{[]float64{1, 2, 3, 4}, 0.025, 1.075},
		{[]float64{5}, 0.3, 5},
		{[]float64{0, 10}, 1, 10},
		{[]float64{0, 10}, 0, 0},
		{[]float64{math.Inf(-1), 1, 2}, 0.025, math.Inf(-1)},
		{[]float64{1, 2, math.Inf(1)}, 0.975, math.Inf(1)},
		{[]float64{1, 2, math.Inf(1)}, 0.5, 2},
	} {
		if got := Quantile(tc.x, tc.q); got != tc.want && math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("Quantile(%v, %v) = %v, want %v", tc.x, tc.q, got, tc.want)
		}
	}
	if !math.IsNaN(Quantile(nil, 0.5)) {
		t.Error("Quantile of nothing is not NaN")
	}
}

// The Poisson sampler against the exact distribution: mean, variance and a
// chi-square over the bulk, for both algorithms.
func TestPoissonDistribution(t *testing.T) {
	rng := rand.NewPCG(1, 2)
	for _, lam := range []float64{0.3, 4, 9.9, 10, 31.7, 250, 4000} {
		pc := newPoissonCell(lam)
		const draws = 200000
		hist := map[int]int{}
		var sum, sum2 float64
		for i := 0; i < draws; i++ {
			k := pc.poisson(rng)
			if k < 0 {
				t.Fatalf("Poisson(%g) drew %d", lam, k)
			}
			hist[k]++
			sum += float64(k)
			sum2 += float64(k) * float64(k)
		}
		mean := sum / draws
		variance := sum2/draws - mean*mean
		if math.Abs(mean-lam) > 5*math.Sqrt(lam/draws) {
			t.Errorf("Poisson(%g): mean %g", lam, mean)
		}
		if math.Abs(variance/lam-1) > 0.03 {
			t.Errorf("Poisson(%g): variance %g", lam, variance)
		}
		chi, dof := 0.0, -1
		for k := 0; float64(k) < lam+20*math.Sqrt(lam)+20; k++ {
			e := draws * math.Exp(-lam+float64(k)*math.Log(lam)-lgamma(float64(k)+1))
			if e < 20 {
				continue
			}
			d := float64(hist[k]) - e
			chi += d * d / e
			dof++
		}
		// 99.9th percentile of chi-square ≈ dof + 3.1·sqrt(2·dof) + 10.
		if limit := float64(dof) + 3.1*math.Sqrt(2*float64(dof)) + 10; chi > limit {
			t.Errorf("Poisson(%g): chi-square %.1f on %d dof (limit %.1f)", lam, chi, dof, limit)
		}
	}
}

// Multinomial draws keep the total, never fill an empty cell, and have the
// right means and variances, N·p and N·p·(1−p) (which an independent-Poisson
// shortcut would get wrong).
func TestMultinomial(t *testing.T) {
	rng := rand.NewPCG(3, 4)
	for _, counts := range [][]int32{{5, 0, 100, 1, 30000, 2, 0}, {1, 1}, {3}, {7, 2, 1}} {
		ms := newMultinomialSampler(counts)
		total := ms.total
		out := make([]int32, len(counts))
		mean := make([]float64, len(counts))
		sq := make([]float64, len(counts))
		const rounds = 20000
		for r := 0; r < rounds; r++ {
			ms.draw(rng, out)
			sum := 0
			for k, x := range out {
				sum += int(x)
				mean[k] += float64(x) / rounds
				sq[k] += float64(x) * float64(x) / rounds
				if counts[k] == 0 && x != 0 {
					t.Fatalf("empty cell %d drew %d", k, x)
				}
			}
			if sum != total {
				t.Fatalf("drew %d of %d", sum, total)
			}
		}
		for k, c := range counts {
			p := float64(c) / float64(total)
			wantVar := float64(total) * p * (1 - p)
			if math.Abs(mean[k]-float64(c)) > 5*math.Sqrt(wantVar/rounds)+1e-9 {
				t.Errorf("%v cell %d: mean %g, want %d", counts, k, mean[k], c)
			}
			if v := sq[k] - mean[k]*mean[k]; math.Abs(v-wantVar) > 0.05*wantVar+1e-9 {
				t.Errorf("%v cell %d: variance %g, want %g", counts, k, v, wantVar)
			}
		}
	}
}

// Synthetic battles from known strengths: the 95 % bootstrap intervals cover
// the true (centred) ratings at about 95 %. Too-narrow intervals (say half
// width, ~67 % coverage) or a biased fit fail this.
func TestBootstrapCoverage(t *testing.T) {
	if testing.Short() {
		t.Skip("coverage needs many fits")
	}
	rng := rand.New(rand.NewPCG(11, 12))
	const datasets, models = 25, 8
	names := []string{"m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7"}
	covered, total := 0, 0
	for d := 0; d < datasets; d++ {
		ratings := make([]float64, models)
		mean := 0.0
		for i := range ratings {
			ratings[i] = 1000 + 200*rng.NormFloat64()
			mean += ratings[i] / models
		}
		bs := NewBattles()
		synthetic(rng, names, ratings, 3000, func(b Battle) { _ = bs.Add(b) })
		lb := mustRank(t, bs, Options{Rounds: 300, Seed: uint64(d)})
		for i, name := range names {
			m := ratingOf(t, lb, name)
			truth := ratings[i] - mean + 1000
			if m.CILow == nil || m.CIHigh == nil {
				t.Fatalf("%s: no interval", name)
			}
			total++
			if *m.CILow <= truth && truth <= *m.CIHigh {
				covered++
			}
		}
	}
	rate := float64(covered) / float64(total)
	t.Logf("coverage %d/%d = %.3f", covered, total, rate)
	if rate < 0.89 || rate > 0.99 {
		t.Errorf("coverage %.3f, want about 0.95", rate)
	}
}

// The same seed gives the same replicates whatever GOMAXPROCS and worker
// count; another seed gives others.
func TestBootstrapReproducible(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	names := []string{"a", "b", "c", "d", "e"}
	bs := NewBattles()
	synthetic(rng, names, []float64{900, 950, 1000, 1050, 1100}, 2000, func(b Battle) { _ = bs.Add(b) })
	// A model with one loss in 9 battles: a third of the rounds have it
	// undefeated, so its upper bound is open; its lower bound is not.
	add(t, bs, "f", "a", wA, 8)
	add(t, bs, "a", "f", wA, 1)
	run := func(procs, workers int, seed uint64) []float64 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		opts := Options{Rounds: 200, Seed: seed, Workers: workers}
		a, err := analyse(bs, bs.all(false), &opts, true)
		if err != nil {
			t.Fatal(err)
		}
		return a.reps
	}
	one := run(1, 0, 42)
	if two := run(2, 0, 42); !sameFloats(one, two) {
		t.Error("GOMAXPROCS 1 and 2 differ")
	}
	if many := run(2, 7, 42); !sameFloats(one, many) {
		t.Error("7 workers differ from 1")
	}
	if other := run(2, 0, 43); sameFloats(one, other) {
		t.Error("seeds 42 and 43 agree")
	}
	infinite := 0
	for _, x := range one {
		if math.IsInf(x, 0) {
			infinite++
		}
	}
	if infinite == 0 {
		t.Error("no round left f without a finite estimate: the case tests nothing")
	}
	lb := mustRank(t, bs, Options{Rounds: 200, Seed: 42})
	if f := ratingOf(t, lb, "f"); f.NonfiniteRounds == 0 || f.CIUnbounded != "high" || f.CIHigh != nil {
		t.Errorf("f: %+v", f)
	}
}

func sameFloats(x, y []float64) bool {
	return slices.EqualFunc(x, y, func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) })
}

// Rank(UB) from the intervals.
func TestRankUB(t *testing.T) {
	a := &analysis{interval: IntervalBootstrap,
		rating: []float64{1100, 1050, 1000, 900},
		low:    []float64{1080, 1000, 960, 800},
		high:   []float64{1120, 1090, 1040, math.Inf(1)}}
	want := []int{1, 1, 2, 1}
	for f := range want {
		if got := 1 + a.above(f); got != want[f] {
			t.Errorf("model %d: rank %d, want %d", f, got, want[f])
		}
	}
}

// The sandwich interval agrees roughly with the bootstrap on BT data.
func TestSandwichNearBootstrap(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	names := []string{"a", "b", "c", "d"}
	bs := NewBattles()
	synthetic(rng, names, []float64{900, 980, 1020, 1100}, 8000, func(b Battle) { _ = bs.Add(b) })
	boot := mustRank(t, bs, Options{Rounds: 400, Seed: 1})
	sand := mustRank(t, bs, Options{Interval: IntervalSandwich})
	for _, n := range names {
		b, s := ratingOf(t, boot, n), ratingOf(t, sand, n)
		if b.Rating != s.Rating {
			t.Errorf("%s: point estimates differ", n)
		}
		wb, ws := *b.CIHigh-*b.CILow, *s.CIHigh-*s.CILow
		if math.Abs(ws/wb-1) > 0.15 {
			t.Errorf("%s: sandwich width %.2f, bootstrap %.2f", n, ws, wb)
		}
	}
	anch := mustRank(t, bs, Options{Interval: IntervalSandwich, Anchor: &Anchor{Model: "a", Rating: 1000}})
	if a := ratingOf(t, anch, "a"); *a.CILow != 1000 || *a.CIHigh != 1000 {
		t.Errorf("anchor interval [%v, %v], want a point", *a.CILow, *a.CIHigh)
	}
}

func lgamma(x float64) float64 {
	l, _ := math.Lgamma(x)
	return l
}

func TestLogFactorial(t *testing.T) {
	for _, x := range []float64{0, 1, 2, 10, 1023, 1024, 1025, 5000, 123456, 1e6, 3e7} {
		want := lgamma(x + 1)
		if got := logFactorial(x); math.Abs(got-want) > 4e-16*math.Max(1, math.Abs(want)) {
			t.Errorf("logFactorial(%g) = %.17g, want %.17g", x, got, want)
		}
	}
}

// Every bootstrap round equals an independent exact fit of its resample:
// the chord iteration (and its fallback to Newton's method) and the
// partial-round rules give what fitting the round from scratch gives.
func TestRoundsMatchFreshFits(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	names := []string{"a", "b", "c", "d", "e", "f"}
	bs := NewBattles()
	// Sparse and uneven: resamples change the Hessian a lot.
	synthetic(rng, names, []float64{700, 900, 1000, 1050, 1100, 1400}, 120, func(b Battle) { _ = bs.Add(b) })
	opts := Options{Rounds: 300, Seed: 9, Workers: 1}
	a, err := analyse(bs, bs.all(false), &opts, true)
	if err != nil {
		t.Fatal(err)
	}
	mf := len(a.fit)
	if mf < 4 {
		t.Fatalf("only %d rated", mf)
	}
	var counts, refs []int32
	for k := range a.pwi {
		for slot, n := range [3]int32{a.pwi[k], a.pwj[k], a.pt[k]} {
			if n > 0 {
				counts = append(counts, n)
				refs = append(refs, int32(k<<2|slot))
			}
		}
	}
	counts = append(counts, int32(a.other))
	ms := newMultinomialSampler(counts)
	full := newSolver(mf)
	full.eval(a.prob, a.theta, false)
	if err := cholesky(full.hess, full.chol, mf-1, mf); err != nil {
		t.Fatal(err)
	}
	rw := newRoundWorker(a, full.chol, len(counts))
	partial := 0
	for r := 0; r < opts.Rounds; r++ {
		ms.draw(rand.NewPCG(roundSeed(opts.Seed, r)), rw.draw)
		got := make([]float64, mf)
		if err := rw.round(refs, got); err != nil {
			t.Fatal(err)
		}
		if !sameFloats(got, a.reps[r*mf:(r+1)*mf]) {
			t.Fatalf("round %d differs from the bootstrap's", r)
		}
		finite := true
		for _, x := range got {
			finite = finite && !math.IsInf(x, 0) && !math.IsNaN(x)
		}
		if !finite {
			partial++
			continue
		}
		// Fresh: Newton from zero on the round's counts, centred.
		theta := make([]float64, mf)
		if _, err := newSolver(mf).fit(&rw.prob, theta, false); err != nil {
			t.Fatal(err)
		}
		want := make([]float64, mf)
		a.place(theta, nil, want)
		for f := range want {
			if math.Abs(got[f]-want[f]) > 1e-6 {
				t.Fatalf("round %d model %d: %.9f, fresh fit %.9f", r, f, got[f], want[f])
			}
		}
	}
	t.Logf("%d rounds, %d partial, %d chord fallbacks", opts.Rounds, partial, rw.fallbacks)
	if partial == 0 {
		t.Error("no partial round: the data no longer test that path")
	}
}
