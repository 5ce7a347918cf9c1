package judge_test

import (
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/judge"
)

func TestParseVerdictReadsEveryLabel(t *testing.T) {
	for _, l := range judge.Labels {
		text := "Rationale: A gives the right total; B invents a due date.\nVerdict: [[" + string(l) + "]]"
		got, rationale, ok := judge.ParseVerdict(text)
		if !ok || got != l {
			t.Errorf("%q: got %q, %v", text, got, ok)
		}
		if rationale != "A gives the right total; B invents a due date." {
			t.Errorf("rationale = %q", rationale)
		}
	}
}

func TestParseVerdictLooseForms(t *testing.T) {
	for _, tc := range []struct {
		text string
		want judge.Label
	}{
		{"Verdict: A>B", judge.ABetter},
		{"verdict: [[ b >> a ]]", judge.BMuchBetter},
		{"**Verdict:** [[A=B]]", judge.Same},
		{"**Verdict**: B>A", judge.BBetter},
		{"My final verdict is: [[A>>B]]", judge.AMuchBetter},
		{"Verdict: [[B=A]]", judge.Same},
		{"Verdict: [[A==B]]", judge.Same},
		{"Both are close. [[B>A]]", judge.BBetter},
		{"First thought [[A>B]], and after checking again [[A>B]].", judge.ABetter},
		// The last verdict line wins: the judge corrected itself.
		{"Verdict: A>B\nOn reflection, B keeps the format.\nVerdict: [[B>A]]", judge.BBetter},
		// Labels listed in the rationale do not confuse the verdict line.
		{"Rationale: not quite [[A>>B]] territory.\nVerdict: [[A>B]]", judge.ABetter},
	} {
		got, _, ok := judge.ParseVerdict(tc.text)
		if !ok || got != tc.want {
			t.Errorf("%q: got %q, %v; want %q", tc.text, got, ok, tc.want)
		}
	}
}

func TestParseVerdictRejectsGarbage(t *testing.T) {
	for _, text := range []string{
		"",
		"I think both answers have merit.",
		"Verdict: A is better",
		"Verdict: [[C>A]]",
		"Verdict: [[A>A]]",
		"Verdict: A<B",
		"[[A>B]] or maybe [[B>A]]",
		"{\"winner\": \"A\"}",
		"Verdict: [[tie]]",
	} {
		if l, _, ok := judge.ParseVerdict(text); ok {
			t.Errorf("%q parsed as %q", text, l)
		}
	}
}

func TestLabelWinnerAndCombine(t *testing.T) {
	a, b, tie := ringside.WinnerA, ringside.WinnerB, ringside.WinnerTie
	for _, tc := range []struct {
		first, swapped judge.Label
		weight         int
		want           ringside.Winner
		wantWeight     int
	}{
		// Consistent verdicts: side a shown first wins, then side a shown second wins.
		{judge.ABetter, judge.BBetter, 3, a, 1},
		{judge.AMuchBetter, judge.BMuchBetter, 3, a, 3},
		{judge.AMuchBetter, judge.BBetter, 3, a, 1},
		{judge.BMuchBetter, judge.AMuchBetter, 2, b, 2},
		{judge.BMuchBetter, judge.AMuchBetter, 0, b, 1},
		{judge.Same, judge.Same, 3, tie, 1},
		// Position bias: the judge always prefers the first answer shown.
		{judge.ABetter, judge.ABetter, 3, tie, 1},
		{judge.AMuchBetter, judge.AMuchBetter, 3, tie, 1},
		// One order undecided.
		{judge.ABetter, judge.Same, 3, tie, 1},
	} {
		w, weight := judge.Combine(tc.first, tc.swapped, tc.weight)
		if w != tc.want || weight != tc.wantWeight {
			t.Errorf("Combine(%s, %s, %d) = %s, %d; want %s, %d", tc.first, tc.swapped, tc.weight, w, weight, tc.want, tc.wantWeight)
		}
	}
}
