package judge_test

import (
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/judge"
)

// FuzzParseVerdict: any answer gives a label of the scale, or nothing; the
// rationale is bounded and stays valid UTF-8; the sides mirror when swapped.
func FuzzParseVerdict(f *testing.F) {
	for _, s := range []string{
		"Rationale: A gives the right total; B invents a due date.\nVerdict: [[A>B]]",
		"verdict: [[ b >> a ]]",
		"**Verdict:** [[A=B]]",
		"My final verdict is: [[A>>B]]",
		"Both are close. [[B>A]]",
		"Verdict: A>B\nOn reflection, B keeps the format.\nVerdict: [[B>A]]",
		"Rationale: not quite [[A>>B]] territory.\nVerdict: [[A>B]]",
		"[[A>B]] or maybe [[B>A]]",
		"Verdict: [[A>A]]",
		"Rationale: é\nformat_compliance: [[B>A]]\nVerdict: [[A=B]]",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		label, rationale, ok := judge.ParseVerdict(text)
		if !ok {
			if label != "" || rationale != "" {
				t.Fatalf("no verdict, yet label %q and rationale %q", label, rationale)
			}
			return
		}
		if !slices.Contains(judge.Labels, label) {
			t.Fatalf("label %q is not on the scale", label)
		}
		if utf8.ValidString(text) && !utf8.ValidString(rationale) {
			t.Fatalf("rationale %q is not valid UTF-8", rationale)
		}
		if n := utf8.RuneCountInString(rationale); n > 2001 {
			t.Fatalf("rationale of %d runes", n)
		}
		l2, r2, ok2 := judge.ParseVerdict(text)
		if !ok2 || l2 != label || r2 != rationale {
			t.Fatal("the same answer parsed differently twice")
		}
		a, b := label.Winner(false), label.Winner(true)
		switch {
		case a == ringside.WinnerTie && b != ringside.WinnerTie,
			a == ringside.WinnerA && b != ringside.WinnerB,
			a == ringside.WinnerB && b != ringside.WinnerA:
			t.Fatalf("%q: winner %q, swapped %q", label, a, b)
		}
	})
}
