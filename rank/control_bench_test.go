package rank

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
)

// The speed target of issue 14: `rank --control style` on 1,000,000
// battles among 150 models with 100 bootstrap rounds, reading the file
// included, within 3× the plain run on the same file. The file carries
// FastChat's conv_metadata on every line.

var styleBench struct {
	once sync.Once
	dir  string // removed by TestMain
	path string
	err  error
}

func styledBenchFile(b *testing.B) string {
	b.Helper()
	if p := os.Getenv("RINGSIDE_STYLE_BENCH_FILE"); p != "" {
		return p
	}
	styleBench.once.Do(func() {
		dir, err := os.MkdirTemp("", "ringside-style-bench-")
		if err != nil {
			styleBench.err = err
			return
		}
		styleBench.dir = dir
		styleBench.path = filepath.Join(dir, "battles.jsonl")
		styleBench.err = writeStyledSynthetic(styleBench.path, 1_000_000, 150, 1)
	})
	if styleBench.err != nil {
		b.Fatal(styleBench.err)
	}
	return styleBench.path
}

func writeStyledSynthetic(path string, n, models int, seed uint64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	rng := rand.New(rand.NewPCG(seed, 0x57e1))
	names := make([]string, models)
	ratings := make([]float64, models)
	for i := range names {
		names[i] = fmt.Sprintf("model-%03d", i)
		ratings[i] = 1000 + 150*rng.NormFloat64()
	}
	side := func(s string) string {
		return `"sum_assistant_` + s + `_tokens": ` + strconv.Itoa(50+rng.IntN(900)) +
			`, "header_count_` + s + `": {"h1": ` + strconv.Itoa(rng.IntN(2)) + `, "h2": ` + strconv.Itoa(rng.IntN(4)) +
			`, "h3": 0, "h4": 0, "h5": 0, "h6": 0}, "list_count_` + s + `": {"ordered": ` + strconv.Itoa(rng.IntN(6)) +
			`, "unordered": ` + strconv.Itoa(rng.IntN(6)) + `}, "bold_count_` + s + `": {"**": ` + strconv.Itoa(rng.IntN(5)) +
			`, "__": 0}`
	}
	synthetic(rng, names, ratings, n, func(bt Battle) {
		line := `{"model_a": "` + bt.ModelA + `", "model_b": "` + bt.ModelB + `", "winner": "` + bt.Winner.ArenaWinner() +
			`", "judge": "human:j` + strconv.Itoa(rng.IntN(500)) + `", "conv_metadata": {` + side("a") + `, ` + side("b") + "}}\n"
		if err == nil {
			_, err = w.WriteString(line)
		}
	})
	if err != nil {
		return err
	}
	return w.Flush()
}

// StyledBenchFile is styledBenchFile for the external benchmark
// (control_ratio_test.go), which reads the file as the CLI does.
var StyledBenchFile = styledBenchFile

// styledStore is n battles among `models` models with four style features
// drawn at random, for the in-memory benchmarks.
func styledStore(tb testing.TB, n, models int) *Battles {
	rng := rand.New(rand.NewPCG(3, 0x57e1))
	names := make([]string, models)
	ratings := make([]float64, models)
	for i := range names {
		names[i] = fmt.Sprintf("model-%03d", i)
		ratings[i] = 1000 + 150*rng.NormFloat64()
	}
	bs := NewBattles()
	synthetic(rng, names, ratings, n, func(bt Battle) {
		st := &Style{}
		st.Set(0, float64(50+rng.IntN(900)), float64(50+rng.IntN(900)))
		for f := 1; f < 4; f++ {
			st.Set(f, float64(rng.IntN(6)), float64(rng.IntN(6)))
		}
		bt.Style = st
		if err := bs.Add(bt); err != nil {
			tb.Fatal(err)
		}
	})
	return bs
}

// BenchmarkControlledRank: the controlled board of 200,000 styled battles
// among 150 models with 20 rounds, the file not read (the fit and the
// bootstrap alone; /plain for comparison).
func BenchmarkControlledRank(b *testing.B) {
	bs := styledStore(b, 200_000, 150)
	for _, c := range []struct {
		name     string
		controls []string
	}{{"plain", nil}, {"style", []string{ControlLength, ControlHeaders, ControlLists, ControlBold}}} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := Rank(bs, Options{Rounds: 20, Seed: 1, Controls: c.controls}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
