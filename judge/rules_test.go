package judge_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/judge"
)

// res builds results: one per (dimension, weight, pass).
func res(items ...any) []ringside.CheckResult {
	var out []ringside.CheckResult
	for i := 0; i < len(items); i += 3 {
		out = append(out, ringside.CheckResult{Source: judge.SourcePrompt, Index: i / 3, Type: "contains",
			Dimension: items[i].(string), Weight: items[i+1].(float64), Pass: items[i+2].(bool)})
	}
	return out
}

func TestRuleVoteVerdicts(t *testing.T) {
	const fa, ff = "factual_accuracy", "format_compliance"
	for _, tc := range []struct {
		name string
		a, b []ringside.CheckResult
		want ringside.Winner
		dims map[string]ringside.Winner
	}{
		{"higher weighted score wins",
			res(fa, 2.0, true, ff, 1.0, false), res(fa, 2.0, false, ff, 1.0, true),
			ringside.WinnerA, map[string]ringside.Winner{fa: ringside.WinnerA, ff: ringside.WinnerB}},
		{"more checks passed can still lose on weight",
			res("", 3.0, false, "", 1.0, true, "", 1.0, true), res("", 3.0, true, "", 1.0, false, "", 1.0, false),
			ringside.WinnerB, nil},
		{"equal scores tie",
			res(fa, 1.0, true, fa, 1.0, false), res(fa, 1.0, false, fa, 1.0, true),
			ringside.WinnerTie, map[string]ringside.Winner{fa: ringside.WinnerTie}},
		{"decimal weights that sum alike tie",
			res("", 0.1, true, "", 0.2, true, "", 0.3, false), res("", 0.1, false, "", 0.2, false, "", 0.3, true),
			ringside.WinnerTie, nil},
		{"nothing passed on either side is bothbad",
			res(fa, 1.0, false, ff, 1.0, true), res(fa, 1.0, false, ff, 1.0, true),
			ringside.WinnerTie, map[string]ringside.Winner{fa: ringside.WinnerBothBad, ff: ringside.WinnerTie}},
		{"both zero overall",
			res(fa, 1.0, false), res(fa, 1.0, false),
			ringside.WinnerBothBad, map[string]ringside.Winner{fa: ringside.WinnerBothBad}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, dims, reason, ok := judge.RuleVote(tc.a, tc.b)
			if !ok || w != tc.want || !reflect.DeepEqual(dims, tc.dims) {
				t.Fatalf("RuleVote = %s %v %v, want %s %v", w, dims, ok, tc.want, tc.dims)
			}
			if !strings.HasPrefix(reason, "a passed ") {
				t.Fatalf("reason = %q", reason)
			}
		})
	}
	if _, _, _, ok := judge.RuleVote(nil, nil); ok {
		t.Fatal("a prompt without checks got a vote")
	}
}

func TestRuleReasonNamesFailedChecks(t *testing.T) {
	_, _, reason, _ := judge.RuleVote(res("", 1.0, true, "", 2.0, false), res("", 1.0, true, "", 2.0, true))
	want := "a passed 1/2 (weight 1/3), b passed 2/2; a failed checks[1] contains"
	if reason != want {
		t.Fatalf("reason = %q, want %q", reason, want)
	}
}

func TestRulesCheckGenerationsOfKnownPrompts(t *testing.T) {
	prompts := []ringside.Prompt{{ID: "p1", Checks: []ringside.Check{check(t, `{"type":"icontains","value":"refund","dimension":"factual_accuracy"}`)}}}
	r, err := judge.NewRules(prompts, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := r.Check(&ringside.Generation{ID: "g1", PromptID: "p1", Output: "A REFUND"})
	if !ok || len(got) != 1 || !got[0].Pass || got[0].Dimension != "factual_accuracy" || got[0].GenerationID != "g1" {
		t.Fatalf("Check = %+v, %v", got, ok)
	}
	if _, ok := r.Check(&ringside.Generation{PromptID: "gone"}); ok {
		t.Fatal("a generation of an unknown prompt was checked")
	}
}
