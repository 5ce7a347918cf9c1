package trust

import (
	"sort"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/judge"
)

// Labels for agreement: a, b, tie; bothbad counts as tie (both score ½ in a
// rating, and "A = B" of two bad answers means what "both bad" means).
const (
	labA   = 0
	labB   = 1
	labTie = 2
)

func label(w ringside.Winner) int {
	switch w {
	case ringside.WinnerA:
		return labA
	case ringside.WinnerB:
		return labB
	}
	return labTie
}

// battleVotes are the votes on one battle, a judge's label per judge.
type battleVotes map[string]int

// Pair is the agreement of two judges on the battles both voted on.
type Pair struct {
	A         string   `json:"a"`
	B         string   `json:"b"`
	Shared    int      `json:"shared"`
	Agreement float64  `json:"agreement"`
	Kappa     *float64 `json:"kappa"`
}

// pairs compares every two judges with shared battles, sorted by names.
func pairs(byBattle map[string]battleVotes) []Pair {
	shared := map[[2]string][][2]ringside.Winner{}
	winners := [3]ringside.Winner{ringside.WinnerA, ringside.WinnerB, ringside.WinnerTie}
	for _, bv := range byBattle {
		js := make([]string, 0, len(bv))
		for j := range bv {
			js = append(js, j)
		}
		sort.Strings(js)
		for x := range js {
			for y := x + 1; y < len(js); y++ {
				k := [2]string{js[x], js[y]}
				shared[k] = append(shared[k], [2]ringside.Winner{winners[bv[js[x]]], winners[bv[js[y]]]})
			}
		}
	}
	out := make([]Pair, 0, len(shared))
	for k, ps := range shared {
		ag := judge.PairAgreement(ps)
		out = append(out, Pair{A: k[0], B: k[1], Shared: ag.Battles, Agreement: ag.Rate, Kappa: ag.Kappa})
	}
	sort.Slice(out, func(x, y int) bool {
		return out[x].A < out[y].A || out[x].A == out[y].A && out[x].B < out[y].B
	})
	return out
}

// majorityAgreement is, for judge j, the battles it shares with others and
// the share of them on which its label is the other judges' majority
// (leave-one-out); battles where the others tie for the most votes are not
// compared. NaN-free: compared 0 gives rate 0.
//
// It walks the judge's own votes, not every battle: with a million battles
// and hundreds of judges, a walk of all battles per judge took minutes.
func majorityAgreement(byBattle map[string]battleVotes, j string, vs []Vote) (shared, compared, agreed int) {
	seen := make(map[string]bool, len(vs))
	for _, v := range vs {
		if seen[v.Battle] {
			continue
		}
		seen[v.Battle] = true
		bv := byBattle[v.Battle]
		mine, ok := bv[j]
		if !ok || len(bv) < 2 {
			continue
		}
		shared++
		var n [3]int
		for o, l := range bv {
			if o != j {
				n[l]++
			}
		}
		best, unique := 0, true
		for l := 1; l < 3; l++ {
			switch {
			case n[l] > n[best]:
				best, unique = l, true
			case n[l] == n[best]:
				unique = false
			}
		}
		if !unique {
			continue
		}
		compared++
		if mine == best {
			agreed++
		}
	}
	return shared, compared, agreed
}

// alpha is Krippendorff's α for nominal data over the battles with at least
// two votes: 1 − D_o/D_e from the coincidence matrix, where each battle of m
// votes adds 1/(m−1) for every ordered pair of its votes. Nil when there are
// no such battles or every vote has the same label (D_e = 0). Labels are
// small non-negative integers (a, b, tie here; any nominal scale works).
func alpha(byBattle map[string]battleVotes) *float64 {
	k := 0
	for _, bv := range byBattle {
		for _, l := range bv {
			k = max(k, l+1)
		}
	}
	o := make([][]float64, k)
	for c := range o {
		o[c] = make([]float64, k)
	}
	n := make([]float64, k)
	for _, bv := range byBattle {
		m := len(bv)
		if m < 2 {
			continue
		}
		clear(n)
		for _, l := range bv {
			n[l]++
		}
		for c := 0; c < k; c++ {
			for d := 0; d < k; d++ {
				pairs := n[c] * n[d]
				if c == d {
					pairs = n[c] * (n[c] - 1)
				}
				o[c][d] += pairs / float64(m-1)
			}
		}
	}
	nc := make([]float64, k)
	total := 0.0
	for c := 0; c < k; c++ {
		for d := 0; d < k; d++ {
			nc[c] += o[c][d]
		}
		total += nc[c]
	}
	disagreeObs, disagreeExp := 0.0, 0.0
	for c := 0; c < k; c++ {
		for d := 0; d < k; d++ {
			if c != d {
				disagreeObs += o[c][d]
				disagreeExp += nc[c] * nc[d]
			}
		}
	}
	if total == 0 || disagreeExp == 0 {
		return nil
	}
	a := 1 - (total-1)*disagreeObs/disagreeExp
	return &a
}
