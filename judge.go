package ringside

import (
	"slices"
	"time"
)

// Judge kinds. Every vote records its judge, and rankings can be sliced by
// either.
const (
	JudgeHuman = "human"
	JudgeRules = "rules"
	JudgeLLM   = "llm"
)

// JudgeKinds lists the judge kinds.
var JudgeKinds = []string{JudgeHuman, JudgeRules, JudgeLLM}

// Judge is whoever votes: a person with an invite, the rule-based checker, or
// an LLM judge.
type Judge struct {
	ID   string `json:"id"`
	Kind string `json:"kind"`
	Name string `json:"name"`
	// Quota is the number of battles a human judge is asked for; 0 means no limit.
	Quota     int        `json:"quota,omitempty"`
	RevokedAt *time.Time `json:"revoked_at,omitempty"`
	CreatedAt time.Time  `json:"created_at"`
}

// Validate checks a judge's fields.
func (j *Judge) Validate() error {
	if !slices.Contains(JudgeKinds, j.Kind) {
		return FieldError("kind", "%q is not one of human, rules, llm", j.Kind)
	}
	if j.Name == "" {
		return FieldError("name", "required")
	}
	if len(j.Name) > 200 {
		return FieldError("name", "longer than 200 characters")
	}
	if j.Quota < 0 {
		return FieldError("quota", "must not be negative")
	}
	return nil
}

// Label is how a judge is written in a battle record's `judge` field.
func (j *Judge) Label() string { return j.Kind + ":" + j.Name }
