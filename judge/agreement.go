package judge

import (
	"sort"

	"github.com/ringside-eval/ringside"
)

// JudgeVote is one judge's verdict on one battle, for agreement statistics.
// Judge is whatever identifies the judge for the comparison: a judge's label
// ("llm:gpt-judge"), or its kind to pool all human judges into one.
type JudgeVote struct {
	BattleID string
	Judge    string
	Winner   ringside.Winner
}

// Agreement compares two judges on the battles both voted on. Verdicts are
// a, b or tie, with bothbad counted as tie: both score ½ in a rating, and a
// judge that says A=B of two bad answers means the same as one that says
// both are bad.
type Agreement struct {
	JudgeA  string `json:"judge_a"`
	JudgeB  string `json:"judge_b"`
	Battles int    `json:"battles"`
	// Rate is the share of those battles with the same verdict.
	Rate float64 `json:"agreement"`
	// Kappa is Cohen's kappa: agreement beyond what the two judges' own
	// verdict frequencies would give by chance. Nil when undefined (both
	// judges gave one and the same verdict throughout).
	Kappa *float64 `json:"kappa"`
	// Decisive counts the battles where both judges picked a side, and
	// DecisiveRate the share of those where they picked the same one (the
	// "without ties" agreement of MT-Bench).
	Decisive     int     `json:"decisive"`
	DecisiveRate float64 `json:"decisive_agreement"`
}

// Agreements compares every pair of judges that voted on at least one
// common battle, sorted by judge names. When a judge has several votes on a
// battle (pooled humans), its first vote in the slice counts.
func Agreements(votes []JudgeVote) []Agreement {
	byJudge := map[string]map[string]ringside.Winner{}
	for _, v := range votes {
		m := byJudge[v.Judge]
		if m == nil {
			m = map[string]ringside.Winner{}
			byJudge[v.Judge] = m
		}
		if _, dup := m[v.BattleID]; !dup {
			m[v.BattleID] = v.Winner
		}
	}
	judges := make([]string, 0, len(byJudge))
	for j := range byJudge {
		judges = append(judges, j)
	}
	sort.Strings(judges)
	var out []Agreement
	for i, ja := range judges {
		for _, jb := range judges[i+1:] {
			var pairs [][2]ringside.Winner
			for battle, wa := range byJudge[ja] {
				if wb, ok := byJudge[jb][battle]; ok {
					pairs = append(pairs, [2]ringside.Winner{wa, wb})
				}
			}
			if len(pairs) == 0 {
				continue
			}
			ag := PairAgreement(pairs)
			ag.JudgeA, ag.JudgeB = ja, jb
			out = append(out, ag)
		}
	}
	return out
}

// PairAgreement computes agreement and Cohen's kappa over pairs of verdicts, the
// first of each pair from one judge and the second from the other.
func PairAgreement(pairs [][2]ringside.Winner) Agreement {
	ag := Agreement{Battles: len(pairs)}
	if len(pairs) == 0 {
		return ag
	}
	var agree, decisiveAgree int
	var margin [2]map[ringside.Winner]int
	margin[0], margin[1] = map[ringside.Winner]int{}, map[ringside.Winner]int{}
	for _, p := range pairs {
		a, b := threeWay(p[0]), threeWay(p[1])
		margin[0][a]++
		margin[1][b]++
		if a == b {
			agree++
		}
		if a != ringside.WinnerTie && b != ringside.WinnerTie {
			ag.Decisive++
			if a == b {
				decisiveAgree++
			}
		}
	}
	n := float64(len(pairs))
	ag.Rate = float64(agree) / n
	if ag.Decisive > 0 {
		ag.DecisiveRate = float64(decisiveAgree) / float64(ag.Decisive)
	}
	var chance float64
	for _, w := range []ringside.Winner{ringside.WinnerA, ringside.WinnerB, ringside.WinnerTie} {
		chance += float64(margin[0][w]) / n * float64(margin[1][w]) / n
	}
	if chance < 1 {
		k := (ag.Rate - chance) / (1 - chance)
		ag.Kappa = &k
	}
	return ag
}

func threeWay(w ringside.Winner) ringside.Winner {
	if w == ringside.WinnerBothBad {
		return ringside.WinnerTie
	}
	return w
}

// OrderVerdicts are an LLM judge's two labels on one battle, as it wrote
// them: First with side a shown as A, Swapped with side b shown as A.
type OrderVerdicts struct {
	First, Swapped Label
}

// OrderStats says how much an LLM judge's verdicts depend on the order the
// answers are shown in.
type OrderStats struct {
	Battles int `json:"battles"`
	// Flips counts battles whose two verdicts name different winners once
	// mapped back to the battle's sides (one of them may be a tie), and
	// Reversals those where each order picked the other side outright.
	Flips        int     `json:"flips"`
	FlipRate     float64 `json:"flip_rate"`
	Reversals    int     `json:"reversals"`
	ReversalRate float64 `json:"reversal_rate"`
	// FirstShownRate is the share of non-tie verdicts that preferred the
	// answer shown first; 0.5 is no position bias.
	FirstShownRate float64 `json:"first_shown_rate"`
}

// OrderConsistency computes OrderStats over battles judged in both orders.
func OrderConsistency(pairs []OrderVerdicts) OrderStats {
	st := OrderStats{Battles: len(pairs)}
	var decisive, first int
	for _, p := range pairs {
		w1, w2 := p.First.Winner(false), p.Swapped.Winner(true)
		if w1 != w2 {
			st.Flips++
			if w1 != ringside.WinnerTie && w2 != ringside.WinnerTie {
				st.Reversals++
			}
		}
		for _, l := range []Label{p.First, p.Swapped} {
			if l.Winner(false) != ringside.WinnerTie {
				decisive++
				if l.Winner(false) == ringside.WinnerA {
					first++
				}
			}
		}
	}
	if st.Battles > 0 {
		st.FlipRate = float64(st.Flips) / float64(st.Battles)
		st.ReversalRate = float64(st.Reversals) / float64(st.Battles)
	}
	if decisive > 0 {
		st.FirstShownRate = float64(first) / float64(decisive)
	}
	return st
}

// LengthVote is a verdict with the lengths (in characters) of the two
// answers.
type LengthVote struct {
	Winner     ringside.Winner
	LenA, LenB int
}

// LengthStats says how often a judge picks the longer answer when it picks
// one and the answers differ in length; a judge that ignores length sits
// near the share of battles the longer answer deserved, one that rewards
// padding well above it.
type LengthStats struct {
	Decisive      int     `json:"decisive"`
	PrefersLonger int     `json:"prefers_longer"`
	Rate          float64 `json:"longer_rate"`
}

// LengthPreference computes LengthStats.
func LengthPreference(votes []LengthVote) LengthStats {
	var st LengthStats
	for _, v := range votes {
		if v.LenA == v.LenB || (v.Winner != ringside.WinnerA && v.Winner != ringside.WinnerB) {
			continue
		}
		st.Decisive++
		if (v.Winner == ringside.WinnerA) == (v.LenA > v.LenB) {
			st.PrefersLonger++
		}
	}
	if st.Decisive > 0 {
		st.Rate = float64(st.PrefersLonger) / float64(st.Decisive)
	}
	return st
}
