package pairing

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestBoardSeparatedMatchesBoundaries: without bootstrap error the
// simulated board decides exactly as the policy's boundaries do, on boards
// on either side of the line; with it, a board near the line is decided
// in some looks and not in others, and the error shrinks with the rounds.
func TestBoardSeparatedMatchesBoundaries(t *testing.T) {
	names := []string{"a", "b", "c", "d", "e"}
	r := rand.New(rand.NewPCG(1, 2))
	near := 0
	for _, votes := range []float64{20, 60, 120, 200, 300, 450, 700} {
		tr := NewTracker(names)
		for i := range names {
			for j := i + 1; j < len(names); j++ {
				tr.Add(names[i], names[j], 1, votes*0.7)
				tr.Add(names[i], names[j], 0, votes*0.3)
			}
		}
		tr.fit()
		for _, top := range []int{1, 3, 0} {
			want := Separated(Policy{FocusTop: top}.Boundaries(tr))
			if got := tr.boardSeparated(r, top, 0); got != want {
				t.Errorf("%v votes a pair, top %d: board separated %v, boundaries %v", votes, top, got, want)
			}
		}
		yes := 0
		for range 200 {
			if tr.boardSeparated(r, 3, 0.3) {
				yes++
			}
		}
		if yes > 0 && yes < 200 {
			near++
		}
	}
	if near == 0 {
		t.Error("bootstrap error never moved a board across the line")
	}
	k200, k1000 := PlanOptions{BoardRounds: 200}.kappa(), PlanOptions{BoardRounds: 1000}.kappa()
	if math.Abs(k200-0.189) > 0.001 || math.Abs(k200/k1000-math.Sqrt(5)) > 1e-9 {
		t.Errorf("kappa 200 rounds %v, 1000 rounds %v", k200, k1000)
	}
	if k := (PlanOptions{BoardRounds: -1}).kappa(); k != 0 {
		t.Errorf("exact intervals: kappa %v", k)
	}
}

// TestSimulateEarly: a future whose board separates before the current
// count is given up, unless kept, when it counts from the current count to
// the next look; one that cannot separate (two equal models at the top)
// runs out of votes.
func TestSimulateEarly(t *testing.T) {
	names := []string{"a", "b", "c", "d"}
	wide := []float64{3, 1.5, 0, -1.5} // 260 points apart
	o := PlanOptions{MaxVotes: 2000}
	o.defaults()
	p := DefaultPolicy()
	pairs := AllPairs(4)
	r := rand.New(rand.NewPCG(3, 4))
	if n, st := NewTracker(names).simulate(r, p, pairs, wide, o, 5000, false); st != simEarly {
		t.Errorf("wide gaps, not kept: %d, status %d, want early", n, st)
	}
	n, st := NewTracker(names).simulate(r, p, pairs, wide, o, 5000, true)
	if st != simDecided || n <= 0 || n > o.Check {
		t.Errorf("wide gaps, kept: %d further, status %d; want decided within %d", n, st, o.Check)
	}
	n, st = NewTracker(names).simulate(r, p, pairs, wide, o, 0, false)
	if st != simDecided || n <= 0 || n%o.Check != 0 {
		t.Errorf("wide gaps from no votes: %d, status %d", n, st)
	}
	tied := []float64{1, 1, 0, -1}
	if n, st := NewTracker(names).simulate(r, p, pairs, tied, o, 0, false); st != simUnreached {
		t.Errorf("tied top: %d, status %d, want unreached", n, st)
	}
}

// TestJudgeScore: simulated judges tie as often as the real votes did
// (as far as the chance of a win allows) and score p on average.
func TestJudgeScore(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct{ p, ties, wantTies float64 }{{0.7, 0.4, 0.4}, {0.9, 0.9, 0.2}, {0.6, 0, 0}} {
		const n = 200_000
		sum, tied := 0.0, 0
		for range n {
			s := judgeScore(r, c.p, c.ties)
			sum += s
			if s == 0.5 {
				tied++
			}
		}
		if mean := sum / n; math.Abs(mean-c.p) > 0.005 {
			t.Errorf("p %v ties %v: mean score %.4f", c.p, c.ties, mean)
		}
		if share := float64(tied) / n; math.Abs(share-c.wantTies) > 0.005 {
			t.Errorf("p %v ties %v: tie share %.4f, want %v", c.p, c.ties, share, c.wantTies)
		}
	}
}
