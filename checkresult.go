package ringside

import (
	"fmt"
	"time"
)

// CheckResult is one check's outcome on one generation, as a rules judge
// finds it and the store keeps it, with the reason in a few words ("212
// words > 200", "at /total: got string, want number").
type CheckResult struct {
	GenerationID string `json:"generation_id"`
	// JudgeID and CheckedAt are set by the store.
	JudgeID string `json:"judge_id"`
	// Source is "prompt" or "default", Index the check's place there.
	Source    string  `json:"source"`
	Index     int     `json:"index"`
	Type      string  `json:"type"`
	Dimension string  `json:"dimension,omitempty"`
	Weight    float64 `json:"weight"`
	Pass      bool    `json:"pass"`
	Detail    string  `json:"detail"`
	// CostUSD is what the check cost to run: an llm_rubric check's calls to
	// its grader model; 0 for the others.
	CostUSD   float64   `json:"cost_usd,omitempty"`
	CheckedAt time.Time `json:"checked_at"`
}

// Name identifies the check the result is for: "checks[2] regex" for the
// third of its prompt's checks, "defaults[0] max_latency_ms" for a judge's
// first default.
func (r *CheckResult) Name() string {
	list := "checks"
	if r.Source == "default" {
		list = "defaults"
	}
	return fmt.Sprintf("%s[%d] %s", list, r.Index, r.Type)
}

// CheckScore is one generation's check results summed: who, on which prompt
// and sample, the prompt's slice attributes, and how it did. A generation
// gives one CheckScore with Dimension "" for all its checks and one per
// dimension its checks name, counting that dimension's checks only. Pass
// rates, pass^k and pass@k are computed from these.
type CheckScore struct {
	Model    string
	PromptID string
	Sample   int
	Category string
	Kind     string
	Tags     []string
	// Dimension is "" for the overall row.
	Dimension    string
	Checks       int
	Passed       int
	Weight       float64
	WeightPassed float64
}

// AllPassed reports whether there were checks and every one passed.
func (s *CheckScore) AllPassed() bool { return s.Checks > 0 && s.Passed == s.Checks }

// Score is the weighted share of checks passed.
func (s *CheckScore) Score() float64 {
	if s.Weight == 0 {
		return 0
	}
	return s.WeightPassed / s.Weight
}
