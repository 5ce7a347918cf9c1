package ringside

import "time"

// Run is a named campaign: models × prompt sets × samples per prompt, whose
// generations and battles can be produced headless and judged later.
type Run struct {
	ID         string    `json:"id"`
	Name       string    `json:"name"`
	Models     []string  `json:"models"`
	PromptSets []string  `json:"prompt_sets"`
	Samples    int       `json:"samples"`
	CreatedAt  time.Time `json:"created_at"`
}

// Validate checks a run's fields.
func (r *Run) Validate() error {
	if r.Name == "" {
		return FieldError("name", "required")
	}
	if len(r.Models) < 2 {
		return FieldError("models", "a run needs at least two models (has %d)", len(r.Models))
	}
	seen := map[string]bool{}
	for _, m := range r.Models {
		if seen[m] {
			return FieldError("models", "%q is listed twice", m)
		}
		seen[m] = true
	}
	if r.Samples < 1 {
		return FieldError("samples", "must be at least 1 (is %d)", r.Samples)
	}
	return nil
}

// Dimensions on which a vote may name a winner besides the overall one.
// Latency and cost are measured, never voted.
const (
	DimInstructionFollowing = "instruction_following"
	DimFactualAccuracy      = "factual_accuracy"
	DimFormatCompliance     = "format_compliance"
	DimLongContext          = "long_context_retention"
	DimMultiTurn            = "multi_turn_consistency"
)

// DefaultDimensions is the dimension set when the config names none.
var DefaultDimensions = []string{
	DimInstructionFollowing, DimFactualAccuracy, DimFormatCompliance, DimLongContext, DimMultiTurn,
}
