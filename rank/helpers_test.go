package rank

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/battlefile"
)

// dataDir is the shared public data, beside the repository.
var dataDir = filepath.Join("..", "..", "shared", "data")

// mustLoad reads a battle file of the shared data, or skips the test when
// the directory is absent (a clone without shared/).
func mustLoad(tb testing.TB, name string) *Battles {
	tb.Helper()
	if _, err := os.Stat(dataDir); err != nil {
		tb.Skipf("public data not available at %s: %v", dataDir, err)
	}
	f, err := os.Open(filepath.Join(dataDir, name))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	bs := NewBattles()
	if err := battlefile.Read(f, name, func(_ int, r *battlefile.Record) error {
		return bs.Add(recordBattle(r))
	}); err != nil {
		tb.Fatal(err)
	}
	return bs
}

// mustRank ranks or fails the test.
func mustRank(tb testing.TB, bs *Battles, opts Options) *Leaderboard {
	tb.Helper()
	lb, err := Rank(bs, opts)
	if err != nil {
		tb.Fatal(err)
	}
	return lb
}

func ratingOf(tb testing.TB, lb *Leaderboard, model string) ModelRating {
	tb.Helper()
	for _, m := range lb.Models {
		if m.Model == model {
			return m
		}
	}
	tb.Fatalf("model %q is not rated", model)
	return ModelRating{}
}

// add appends n battles with the given winner.
func add(tb testing.TB, bs *Battles, a, b string, w ringside.Winner, n int) {
	tb.Helper()
	for i := 0; i < n; i++ {
		if err := bs.Add(Battle{ModelA: a, ModelB: b, Winner: w}); err != nil {
			tb.Fatal(err)
		}
	}
}

// synthetic draws battles between models of the given true ratings: random
// pairs, random sides, ties with probability 0.4·min(p, 1−p) split so that
// the expected score of a is exactly p (so the ties-as-half MLE is
// consistent for the true ratings).
func synthetic(rng *rand.Rand, names []string, ratings []float64, n int, add func(Battle)) {
	for k := 0; k < n; k++ {
		i := rng.IntN(len(names))
		j := rng.IntN(len(names) - 1)
		if j >= i {
			j++
		}
		p := 1 / (1 + math.Pow(10, (ratings[j]-ratings[i])/400))
		tie := 0.4 * math.Min(p, 1-p)
		u := rng.Float64()
		w := ringside.WinnerB
		switch {
		case u < p-tie/2:
			w = ringside.WinnerA
		case u < p+tie/2:
			w = ringside.WinnerTie
			if rng.IntN(5) == 0 {
				w = ringside.WinnerBothBad
			}
		}
		add(Battle{ModelA: names[i], ModelB: names[j], Winner: w})
	}
}

// recordBattle is a battle file's record as a Battle (leaderboard.RecordBattle,
// which this package's tests cannot import).
func recordBattle(r *battlefile.Record) Battle {
	return Battle{
		ModelA: r.ModelA, ModelB: r.ModelB, Winner: r.Winner, Time: r.Tstamp,
		Category: r.Category, Kind: r.Kind, Judge: r.Judge, Tags: r.Tags,
		Dimensions: r.Dimensions, IdentityLeak: r.IdentityLeak,
	}
}
