package judge_test

import (
	"strings"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/judge"
)

// winners turns "a a b tie x" into verdicts; x is bothbad.
func winners(s string) []ringside.Winner {
	var out []ringside.Winner
	for _, f := range strings.Fields(s) {
		if f == "x" {
			f = "bothbad"
		}
		out = append(out, ringside.Winner(f))
	}
	return out
}

func pairs(x, y string) [][2]ringside.Winner {
	wx, wy := winners(x), winners(y)
	out := make([][2]ringside.Winner, len(wx))
	for i := range wx {
		out[i] = [2]ringside.Winner{wx[i], wy[i]}
	}
	return out
}

func TestKappaByHand(t *testing.T) {
	for _, tc := range []struct {
		name, x, y string
		rate       float64
		kappa      float64 // NaN-free; see undefined below
		decisive   int
		decRate    float64
	}{
		// 7 of 10 agree. Marginals x: a 5, b 3, tie 2; y: a 5, b 4, tie 1.
		// Chance = .5·.5 + .3·.4 + .2·.1 = .39; kappa = (.7−.39)/(1−.39) = .31/.61.
		{"worked example", "a a a a b b b tie tie a", "a a b a b b a tie b a", 0.7, 0.31 / 0.61, 8, 6.0 / 8},
		// bothbad counts as tie, so the same numbers come out.
		{"bothbad is a tie", "a a a a b b b x tie a", "a a b a b b a tie b a", 0.7, 0.31 / 0.61, 8, 6.0 / 8},
		// Always opposite sides: chance .5, kappa −1.
		{"opposites", "a b a b", "b a b a", 0, -1, 4, 0},
		// Perfect agreement over two verdicts: kappa 1.
		{"perfect", "a b tie a", "a b tie a", 1, 1, 3, 1},
		// 3 of 4 agree; x: a 2, b 2; y: a 3, b 1. Chance = .5·.75 + .5·.25 = .5;
		// kappa = (.75 − .5)/.5 = .5.
		{"half beyond chance", "a a b b", "a a a b", 0.75, 0.5, 4, 0.75},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ag := judge.PairAgreement(pairs(tc.x, tc.y))
			if !near(ag.Rate, tc.rate) || ag.Kappa == nil || !near(*ag.Kappa, tc.kappa) {
				t.Fatalf("rate %g kappa %v, want %g %g", ag.Rate, deref(ag.Kappa), tc.rate, tc.kappa)
			}
			if ag.Decisive != tc.decisive || !near(ag.DecisiveRate, tc.decRate) {
				t.Fatalf("decisive %d rate %g, want %d %g", ag.Decisive, ag.DecisiveRate, tc.decisive, tc.decRate)
			}
		})
	}
	// Both judges said a every time: chance agreement is 1, kappa undefined.
	if ag := judge.PairAgreement(pairs("a a a", "a a a")); ag.Rate != 1 || ag.Kappa != nil {
		t.Fatalf("constant judges: %+v", ag)
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestAgreementsPairJudgesOnCommonBattles(t *testing.T) {
	votes := []judge.JudgeVote{
		{"b1", "rules:rules", "a"}, {"b1", "llm:gpt", "a"}, {"b1", "human", "b"},
		{"b2", "rules:rules", "b"}, {"b2", "llm:gpt", "b"},
		{"b3", "rules:rules", "a"}, {"b3", "llm:gpt", "b"}, {"b3", "human", "b"},
		{"b3", "human", "a"}, // a second person on b3: the first vote counts
		{"b4", "llm:gpt", "tie"},
	}
	got := judge.Agreements(votes)
	if len(got) != 3 {
		t.Fatalf("agreements = %+v", got)
	}
	// Sorted: human/llm:gpt, human/rules:rules, llm:gpt/rules:rules.
	hl, hr, lr := got[0], got[1], got[2]
	if hl.JudgeA != "human" || hl.JudgeB != "llm:gpt" || hl.Battles != 2 || hl.Rate != 0.5 {
		t.Fatalf("human vs llm = %+v", hl)
	}
	if hr.Battles != 2 || hr.Rate != 0 {
		t.Fatalf("human vs rules = %+v", hr)
	}
	// b1 a/a, b2 b/b, b3 a/b: rate 2/3; marginals llm a1 b2, rules a2 b1:
	// chance = 1/3·2/3 + 2/3·1/3 = 4/9; kappa = (2/3 − 4/9)/(5/9) = 2/5.
	if lr.JudgeA != "llm:gpt" || lr.Battles != 3 || !near(lr.Rate, 2.0/3) || !near(*lr.Kappa, 0.4) {
		t.Fatalf("llm vs rules = %+v kappa %v", lr, deref(lr.Kappa))
	}
}

func TestOrderConsistency(t *testing.T) {
	st := judge.OrderConsistency([]judge.OrderVerdicts{
		{judge.ABetter, judge.BBetter},         // consistent: a
		{judge.ABetter, judge.ABetter},         // always the first shown: a, then b
		{judge.Same, judge.BBetter},            // tie, then a: a flip, not a reversal
		{judge.BMuchBetter, judge.AMuchBetter}, // consistent: b
	})
	if st.Battles != 4 || st.Flips != 2 || st.FlipRate != 0.5 || st.Reversals != 1 || st.ReversalRate != 0.25 {
		t.Fatalf("stats = %+v", st)
	}
	// Non-tie labels: A>B B>A A>B A>B B>A B>>A A>>B → 4 of 7 for the first shown.
	if !near(st.FirstShownRate, 4.0/7) {
		t.Fatalf("first shown = %g", st.FirstShownRate)
	}
}

func TestLengthPreference(t *testing.T) {
	st := judge.LengthPreference([]judge.LengthVote{
		{ringside.WinnerA, 100, 50}, // longer
		{ringside.WinnerB, 100, 50}, // shorter
		{ringside.WinnerTie, 100, 50},
		{ringside.WinnerBothBad, 100, 50},
		{ringside.WinnerA, 10, 10}, // same length
		{ringside.WinnerB, 5, 500}, // longer
	})
	if st.Decisive != 3 || st.PrefersLonger != 2 || !near(st.Rate, 2.0/3) {
		t.Fatalf("stats = %+v", st)
	}
}
