package trust

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ringside-eval/ringside/rank"
)

// TestThirtyJudgesBenchmark is the benchmark of docs/performance.md: 30
// simulated judges, 6 of whom misbehave (two random, one always-left, two
// promoters of m4, one too fast), 3 judges a battle. It reports the flags'
// precision and recall over several seeds, the votes at which each bad
// judge is first flagged (the report made after every doubling of the
// votes), and how far the board moves from the true ratings with the bad
// judges' votes and without the flagged ones. Run it with
//
//	go test ./trust -run ThirtyJudgesBenchmark -v
func TestThirtyJudgesBenchmark(t *testing.T) {
	const battles, perBattle = 3000, 3
	var tp, fp, fn int
	for seed := uint64(1); seed <= 5; seed++ {
		votes := simulate(seed, thirty(), battles, perBattle)
		r, err := Analyse(votes, Defaults, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range r.Judges {
			bad := strings.HasPrefix(j.Judge, "human:x")
			switch {
			case bad && j.Flagged:
				tp++
			case !bad && j.Flagged:
				fp++
				t.Logf("seed %d: honest %s flagged: %s", seed, j.Judge, strings.Join(j.Reasons, "; "))
			case bad:
				fn++
				t.Logf("seed %d: %s not flagged", seed, j.Judge)
			}
		}
		if seed == 1 {
			flaggedAt(t, votes)
			boardMoves(t, votes, r.Excluded())
		}
	}
	precision, recall := float64(tp)/float64(tp+fp), float64(tp)/float64(tp+fn)
	t.Logf("5 seeds × 30 judges (%d battles, %d votes each): precision %.2f (%d of %d flagged are bad), recall %.2f (%d of %d bad flagged)",
		battles, battles*perBattle, precision, tp, tp+fp, recall, tp, tp+fn)
	if recall < 0.9 || precision < 0.9 {
		t.Fatalf("precision %.2f recall %.2f", precision, recall)
	}
}

// flaggedAt reports, for each bad judge, its own vote count when the
// report first flagged it, the report being made on the first 150, 300,
// 600, ... votes of the stream.
func flaggedAt(t *testing.T, votes []Vote) {
	t.Helper()
	at := map[string]string{}
	for n := 150; ; n *= 2 {
		n = min(n, len(votes))
		r, err := Analyse(votes[:n], Defaults, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range r.Judges {
			if _, done := at[j.Judge]; !done && j.Flagged && strings.HasPrefix(j.Judge, "human:x") {
				why, _, _ := strings.Cut(j.Reasons[0], ":")
				at[j.Judge] = fmt.Sprintf("%d of its votes (%d in all), %s", j.Votes, n, why)
			}
		}
		if n == len(votes) {
			break
		}
	}
	names := make([]string, 0, len(at))
	for j := range at {
		names = append(names, j)
	}
	sort.Strings(names)
	for _, j := range names {
		t.Logf("%-22s flagged at %s", j, at[j])
	}
}

// boardMoves fits the board with every vote and without the excluded
// judges', and compares both with the true ratings.
func boardMoves(t *testing.T, votes []Vote, excluded []string) {
	t.Helper()
	bs := rank.NewBattles()
	units := map[string]int64{}
	for _, v := range votes {
		if _, ok := units[v.Battle]; !ok {
			units[v.Battle] = int64(len(units) + 1)
		}
		if err := bs.Add(rank.Battle{ModelA: v.ModelA, ModelB: v.ModelB, Winner: v.Winner, Judge: v.Judge, Unit: units[v.Battle]}); err != nil {
			t.Fatal(err)
		}
	}
	honestOnly := []string{}
	for _, j := range thirty() {
		if j.kind != honest {
			honestOnly = append(honestOnly, j.name)
		}
	}
	for _, c := range []struct {
		name    string
		exclude []string
	}{{"every vote", nil}, {"flagged excluded", excluded}, {"only honest judges", honestOnly}} {
		lb, err := rank.Rank(bs, rank.Options{Judges: rank.JudgesAll, ExcludeJudges: c.exclude})
		if err != nil {
			t.Fatal(err)
		}
		maxErr, swapped, m4 := 0.0, 0, 0.0
		order := make([]string, len(lb.Models))
		for i, m := range lb.Models {
			k := slices.Index(simModels, m.Model)
			maxErr = math.Max(maxErr, math.Abs(m.Rating-simRatings[k]))
			if m.Model == "m4" {
				m4 = m.Rating
			}
			order[i] = m.Model
		}
		for i, m := range order {
			if simModels[i] != m {
				swapped++
			}
		}
		t.Logf("board, %-18s: %5d votes, max |rating − truth| %5.1f, promoted m4 at %.1f (truth 950), %d of 6 models off their true place",
			c.name, lb.CountedVotes, maxErr, m4, swapped)
	}
}
