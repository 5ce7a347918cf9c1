package ringside

import (
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Message is one chat turn in the OpenAI chat format.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Prompt kinds: a team's distribution of inputs.
const (
	KindTypical     = "typical"
	KindEdge        = "edge"
	KindAdversarial = "adversarial"
	// KindUser is a question a judge wrote in a chat battle (the harvest).
	KindUser = "user"
)

// Kinds lists the prompt kinds in display order.
var Kinds = []string{KindTypical, KindEdge, KindAdversarial, KindUser}

// Prompt is one input of a prompt set.
type Prompt struct {
	ID        string    `json:"id"`
	Set       string    `json:"set,omitempty"`
	Messages  []Message `json:"messages"`
	Category  string    `json:"category,omitempty"`
	Kind      string    `json:"kind,omitempty"`
	Tags      []string  `json:"tags,omitempty"`
	Reference string    `json:"reference,omitempty"`
	Checks    []Check   `json:"checks,omitempty"`
}

// Check is one rule a generation for a prompt should pass. Which fields are
// used depends on Type; the rule-based judge interprets them.
type Check struct {
	Type      string          `json:"type"`
	Value     json.RawMessage `json:"value,omitempty"`
	Pattern   string          `json:"pattern,omitempty"`
	Schema    json.RawMessage `json:"schema,omitempty"`
	Weight    float64         `json:"weight,omitempty"`
	Dimension string          `json:"dimension,omitempty"`
	// Command is a command check's program and its arguments (no shell).
	Command []string `json:"command,omitempty"`
	// Timeout bounds a command check's program, as a duration with a unit
	// ("10s"); empty is the default.
	Timeout string `json:"timeout,omitempty"`
	// Model is the configured model an llm_rubric check asks.
	Model string `json:"model,omitempty"`
}

// CheckTypes are the rule types a prompt may carry. Both promptfoo's
// hyphenated spelling and ours are accepted; NormalizeCheckType maps one to
// the other.
var CheckTypes = []string{
	"contains", "icontains", "not_contains", "equals", "starts_with", "regex",
	"is_json", "json_schema", "min_chars", "max_chars", "max_words",
	"reference_match", "max_latency_ms", "max_cost_usd", "refusal", "no_refusal",
	"command", "llm_rubric",
}

// NormalizeCheckType returns the canonical spelling of a check type
// ("is-json" → "is_json").
func NormalizeCheckType(t string) string {
	return strings.ReplaceAll(strings.TrimSpace(t), "-", "_")
}

var promptIDRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$`)

var roles = []string{"system", "user", "assistant"}

// Validate checks a prompt's fields and normalises what has a canonical form
// (an empty kind becomes typical, check types their canonical spelling).
func (p *Prompt) Validate() error {
	if p.ID == "" {
		return FieldError("id", "required")
	}
	if !promptIDRE.MatchString(p.ID) {
		return FieldError("id", "%q: use letters, digits and . _ : / - (at most 128)", p.ID)
	}
	if len(p.Messages) == 0 {
		return FieldError("messages", "required (or \"prompt\")")
	}
	for i, m := range p.Messages {
		if !slices.Contains(roles, m.Role) {
			return FieldError(fieldIndex("messages", i, "role"), "%q is not one of system, user, assistant", m.Role)
		}
		if strings.TrimSpace(m.Content) == "" {
			return FieldError(fieldIndex("messages", i, "content"), "empty")
		}
	}
	if last := p.Messages[len(p.Messages)-1]; last.Role != "user" {
		return FieldError(fieldIndex("messages", len(p.Messages)-1, "role"), "the last message must be the user's")
	}
	if p.Kind == "" {
		p.Kind = KindTypical
	}
	if !slices.Contains(Kinds, p.Kind) {
		return FieldError("kind", "%q is not one of %s", p.Kind, strings.Join(Kinds, ", "))
	}
	for i := range p.Checks {
		c := &p.Checks[i]
		c.Type = NormalizeCheckType(c.Type)
		if !slices.Contains(CheckTypes, c.Type) {
			return FieldError(fieldIndex("checks", i, "type"), "%q is not a known check", c.Type)
		}
		if c.Weight < 0 {
			return FieldError(fieldIndex("checks", i, "weight"), "must not be negative")
		}
	}
	return nil
}

func fieldIndex(list string, i int, field string) string {
	return list + "[" + strconv.Itoa(i) + "]." + field
}
