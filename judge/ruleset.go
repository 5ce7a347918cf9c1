package judge

import (
	"github.com/ringside-eval/ringside"
)

// Rules is the rule-based judge over a set of prompts: every prompt's checks
// and the judge's defaults, compiled once.
type Rules struct {
	sets map[promptKey]*Set
}

// promptKey names a prompt: ids are unique within a set, not across sets.
type promptKey struct{ set, id string }

// NewRules compiles the checks of every prompt with the defaults (from
// CompileDefaults). The first malformed check is an EINVALID error naming
// the prompt and the check.
func NewRules(prompts []ringside.Prompt, defaults []Check) (*Rules, error) {
	r := &Rules{sets: make(map[promptKey]*Set, len(prompts))}
	for i := range prompts {
		s, err := CompilePrompt(&prompts[i], defaults)
		if err != nil {
			return nil, err
		}
		r.sets[promptKey{prompts[i].Set, prompts[i].ID}] = s
	}
	return r, nil
}

// Check runs the checks of the generation's prompt on it. ok is false when
// the prompt is not one of the judge's.
func (r *Rules) Check(g *ringside.Generation) (results []ringside.CheckResult, ok bool) {
	s, ok := r.sets[promptKey{g.PromptSet, g.PromptID}]
	if !ok {
		return nil, false
	}
	return s.Run(g), true
}
