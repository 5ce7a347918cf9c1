package judge

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/ringside-eval/ringside"
)

// Score sums a generation's check results: how many checks there were and
// passed, and their weights.
type Score struct {
	Checks       int     `json:"checks"`
	Passed       int     `json:"passed"`
	Weight       float64 `json:"weight"`
	WeightPassed float64 `json:"weight_passed"`
}

func (s *Score) add(r ringside.CheckResult) {
	s.Checks++
	s.Weight += r.Weight
	if r.Pass {
		s.Passed++
		s.WeightPassed += r.Weight
	}
}

// Tally is a generation's score overall and per dimension (only checks that
// name a dimension count towards one).
type Tally struct {
	Overall    Score
	Dimensions map[string]Score
}

// TallyResults sums results.
func TallyResults(results []ringside.CheckResult) Tally {
	t := Tally{Dimensions: map[string]Score{}}
	for _, r := range results {
		t.Overall.add(r)
		if r.Dimension != "" {
			s := t.Dimensions[r.Dimension]
			s.add(r)
			t.Dimensions[r.Dimension] = s
		}
	}
	return t
}

// Compare is the rule judge's verdict on a battle whose sides scored a and
// b: the side with the higher weighted score wins, equal scores tie, and
// when neither side passed anything both are bad. Each dimension that has
// checks gets its own verdict by the same rule. Both sides ran the same
// checks, so comparing weight passed is comparing scores.
func Compare(a, b Tally) (ringside.Winner, map[string]ringside.Winner) {
	dims := map[string]ringside.Winner{}
	for d, sa := range a.Dimensions {
		dims[d] = compareScores(sa, b.Dimensions[d])
	}
	for d, sb := range b.Dimensions {
		if _, ok := dims[d]; !ok {
			dims[d] = compareScores(a.Dimensions[d], sb)
		}
	}
	if len(dims) == 0 {
		dims = nil
	}
	return compareScores(a.Overall, b.Overall), dims
}

func compareScores(a, b Score) ringside.Winner {
	// Weights are decimals a person wrote, so sums like 0.1+0.2 must
	// compare equal to 0.3.
	eps := 1e-9 * math.Max(1, math.Max(a.Weight, b.Weight))
	switch {
	case a.WeightPassed < eps && b.WeightPassed < eps:
		return ringside.WinnerBothBad
	case a.WeightPassed > b.WeightPassed+eps:
		return ringside.WinnerA
	case b.WeightPassed > a.WeightPassed+eps:
		return ringside.WinnerB
	}
	return ringside.WinnerTie
}

// RuleVote is the rule judge's vote on one battle, given each side's check
// results; ok is false when the prompt has no checks, so there is nothing to
// vote on.
func RuleVote(a, b []ringside.CheckResult) (w ringside.Winner, dims map[string]ringside.Winner, reason string, ok bool) {
	ta, tb := TallyResults(a), TallyResults(b)
	if ta.Overall.Checks == 0 && tb.Overall.Checks == 0 {
		return "", nil, "", false
	}
	w, dims = Compare(ta, tb)
	return w, dims, ruleReason(ta, tb, a, b), true
}

// ruleReason says in one line why: both scores and which checks each side
// failed.
func ruleReason(ta, tb Tally, a, b []ringside.CheckResult) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "a passed %s, b passed %s", scoreText(ta.Overall), scoreText(tb.Overall))
	for _, side := range []struct {
		name    string
		results []ringside.CheckResult
	}{{"a", a}, {"b", b}} {
		var failed []string
		for i := range side.results {
			if !side.results[i].Pass {
				failed = append(failed, side.results[i].Name())
			}
		}
		if len(failed) > 0 {
			sort.Strings(failed)
			fmt.Fprintf(&sb, "; %s failed %s", side.name, strings.Join(failed, ", "))
		}
	}
	return sb.String()
}

func scoreText(s Score) string {
	if s.Checks == s.Passed || float64(s.Checks) == s.Weight {
		return fmt.Sprintf("%d/%d", s.Passed, s.Checks)
	}
	return fmt.Sprintf("%d/%d (weight %g/%g)", s.Passed, s.Checks, s.WeightPassed, s.Weight)
}
