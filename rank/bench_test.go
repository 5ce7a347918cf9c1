package rank

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/ringside-eval/ringside/battlefile"
)

// The speed targets of issue 4: `ringside rank --battles FILE` on 1,000,000
// battles among 150 models with 0, 100 and 1,000 bootstrap rounds, reading
// the file included. The file is the format of scripts/genbattles.

var bench struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, dir := range []string{bench.dir, styleBench.dir} {
		if dir != "" {
			os.RemoveAll(dir)
		}
	}
	os.Exit(code)
}

// benchFile writes (once per process) a 1M-battle file among 150 models,
// or takes the one named by RINGSIDE_BENCH_FILE (e.g. written by
// `go run ./scripts/genbattles -o /tmp/battles.jsonl`).
func benchFile(b *testing.B) string {
	b.Helper()
	if p := os.Getenv("RINGSIDE_BENCH_FILE"); p != "" {
		return p
	}
	bench.once.Do(func() {
		if bench.dir, bench.err = os.MkdirTemp("", "ringside-bench-"); bench.err != nil {
			return
		}
		bench.path = filepath.Join(bench.dir, "battles.jsonl")
		bench.err = writeSynthetic(bench.path, 1_000_000, 150, 1)
	})
	if bench.err != nil {
		b.Fatal(bench.err)
	}
	return bench.path
}

func writeSynthetic(path string, n, models int, seed uint64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	names := make([]string, models)
	ratings := make([]float64, models)
	for i := range names {
		names[i] = fmt.Sprintf("model-%03d", i)
		ratings[i] = 1000 + 150*rng.NormFloat64()
	}
	categories := []string{"refunds", "billing", "coding", "writing", "math", "legal", "travel", "health"}
	k := 0
	synthetic(rng, names, ratings, n, func(bt Battle) {
		line := []byte(`{"model_a": "` + bt.ModelA + `", "model_b": "` + bt.ModelB + `", "winner": "` + bt.Winner.ArenaWinner() +
			`", "judge": "human:j` + strconv.Itoa(rng.IntN(500)) + `", "question_id": "q-` + strconv.Itoa(rng.IntN(20000)) +
			`", "tstamp": ` + strconv.FormatFloat(1733150000+float64(k)/2, 'f', -1, 64) +
			`, "turn": 1, "anony": true, "category": "` + categories[rng.IntN(len(categories))] + "\"}\n")
		k++
		if err == nil {
			_, err = w.Write(line)
		}
	})
	if err != nil {
		return err
	}
	return w.Flush()
}

func readBattles(b *testing.B, path string) *Battles {
	b.Helper()
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	bs := NewBattles()
	if err := battlefile.Read(f, path, func(_ int, r *battlefile.Record) error {
		return bs.Add(recordBattle(r))
	}); err != nil {
		b.Fatal(err)
	}
	return bs
}

// BenchmarkRead1M: read and store a million battle records.
func BenchmarkRead1M(b *testing.B) {
	path := benchFile(b)
	st, _ := os.Stat(path)
	b.SetBytes(st.Size())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if bs := readBattles(b, path); bs.Len() == 0 {
			b.Fatal(bs.Len())
		}
	}
}

var benchStore struct {
	once sync.Once
	bs   *Battles
}

func benchBattles(b *testing.B) *Battles {
	path := benchFile(b)
	benchStore.once.Do(func() { benchStore.bs = readBattles(b, path) })
	return benchStore.bs
}

// BenchmarkCells1M: collapsing a million battles to sufficient statistics.
func BenchmarkCells1M(b *testing.B) {
	bs := benchBattles(b)
	sub := bs.all(false)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		bs.cellsOf(sub, false)
	}
}

// BenchmarkFit150: the exact fit from zero on the cells of 1M battles.
func BenchmarkFit150(b *testing.B) {
	bs := benchBattles(b)
	opts := Options{}
	a, err := analyse(bs, bs.all(false), &opts, true)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(len(a.prob.pi)), "pairs")
	sv := newSolver(len(a.fit))
	theta := make([]float64, len(a.fit))
	b.ResetTimer()
	iters := 0
	for i := 0; i < b.N; i++ {
		clear(theta)
		n, err := sv.fit(a.prob, theta, false)
		if err != nil {
			b.Fatal(err)
		}
		iters = n
	}
	b.ReportMetric(float64(iters), "newton-iters")
	if g := gradMax(a.prob, theta); g > 1e-12 || math.IsNaN(g) {
		b.Fatalf("gradient %g", g)
	}
}

func benchRank(b *testing.B, rounds int, read bool) {
	path := benchFile(b)
	var bs *Battles
	if !read {
		bs = benchBattles(b)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if read {
			bs = readBattles(b, path)
		}
		if _, err := Rank(bs, Options{Rounds: rounds, Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBootstrap100 and 1000: cells, fit and rounds, file already read.
func BenchmarkBootstrap100(b *testing.B)  { benchRank(b, 100, false) }
func BenchmarkBootstrap1000(b *testing.B) { benchRank(b, 1000, false) }

// BenchmarkRankFile*: what `ringside rank --battles FILE` does, reading
// included.
func BenchmarkRankFile0(b *testing.B)    { benchRank(b, 0, true) }
func BenchmarkRankFile100(b *testing.B)  { benchRank(b, 100, true) }
func BenchmarkRankFile1000(b *testing.B) { benchRank(b, 1000, true) }

// roundSetup is what a bootstrap over the 1M-battle cells prepares.
func roundSetup(b *testing.B) (*analysis, *multinomialSampler, []int32, *solver) {
	bs := benchBattles(b)
	opts := Options{}
	a, err := analyse(bs, bs.all(false), &opts, true)
	if err != nil {
		b.Fatal(err)
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
	full := newSolver(len(a.fit))
	full.eval(a.prob, a.theta, false)
	if err := cholesky(full.hess, full.chol, len(a.fit)-1, len(a.fit)); err != nil {
		b.Fatal(err)
	}
	return a, newMultinomialSampler(counts), refs, full
}

// BenchmarkRoundMultinomial and BenchmarkRoundFit time one bootstrap round's
// two halves on the cells of 1M battles: the multinomial draw, and the fit
// warm-started from the full-data one.
func BenchmarkRoundMultinomial(b *testing.B) {
	_, ms, _, _ := roundSetup(b)
	out := make([]int32, len(ms.cells))
	b.ReportMetric(float64(len(ms.cells)), "cells")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ms.draw(rand.NewPCG(roundSeed(1, i)), out)
	}
}

func BenchmarkRoundFit(b *testing.B) {
	a, ms, refs, full := roundSetup(b)
	rw := newRoundWorker(a, full.chol, len(ms.cells))
	out := make([]float64, len(a.fit))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		ms.draw(rand.NewPCG(roundSeed(1, i)), rw.draw)
		b.StartTimer()
		if err := rw.round(refs, out); err != nil {
			b.Fatal(err)
		}
	}
}
