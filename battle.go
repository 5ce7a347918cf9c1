package ringside

import (
	"encoding/json"
	"slices"
	"strings"
	"time"
)

// Battle sources: produced by `ringside run`, dealt live to a judge, or read
// from a battle file.
const (
	SourceRun    = "run"
	SourceLive   = "live"
	SourceImport = "import"
)

// Battle is one prompt and two generations from two different models, shown
// as side a (left) and side b (right). Which model is a is random.
type Battle struct {
	ID       string `json:"battle_id"`
	RunID    string `json:"run_id,omitempty"`
	Source   string `json:"source"`
	PromptID string `json:"question_id,omitempty"`
	// PromptSet is the set of the prompt ("" for an imported battle):
	// ids are unique within a set.
	PromptSet   string `json:"prompt_set,omitempty"`
	Sample      int    `json:"sample"`
	ModelA      string `json:"model_a"`
	ModelB      string `json:"model_b"`
	GenerationA string `json:"generation_a,omitempty"`
	GenerationB string `json:"generation_b,omitempty"`
	// Category and Kind are copied from the prompt (or the imported record)
	// so that slicing a leaderboard needs no join.
	Category string   `json:"category,omitempty"`
	Kind     string   `json:"kind,omitempty"`
	Tags     []string `json:"tags,omitempty"`
	// IdentityLeak marks a battle whose outputs name a model (NamesAModel);
	// such battles are left out of rankings by default.
	IdentityLeak bool `json:"identity_leak,omitempty"`
	// Extra keeps the fields of an imported record that ringside does not
	// know, so an export gives them back.
	Extra     json.RawMessage `json:"-"`
	CreatedAt time.Time       `json:"created_at"`
}

// Validate checks a battle's fields.
func (b *Battle) Validate() error {
	if b.ModelA == "" {
		return FieldError("model_a", "required")
	}
	if b.ModelB == "" {
		return FieldError("model_b", "required")
	}
	if b.ModelA == b.ModelB {
		return FieldError("model_b", "a battle needs two different models (both are %q)", b.ModelA)
	}
	switch b.Source {
	case SourceRun, SourceLive, SourceImport:
	default:
		return FieldError("source", "%q is not one of run, live, import", b.Source)
	}
	if b.Kind != "" && !slices.Contains(Kinds, b.Kind) {
		return FieldError("kind", "%q is not one of %s", b.Kind, strings.Join(Kinds, ", "))
	}
	if b.Sample < 0 {
		return FieldError("sample", "must not be negative")
	}
	return nil
}

// Side returns the model on the given side ("a" or "b").
func (b *Battle) Side(side string) string {
	if side == "a" {
		return b.ModelA
	}
	return b.ModelB
}
