package judge

import (
	"context"

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
	return NewRulesWith(prompts, defaults, nil)
}

// Graders finds the model an llm_rubric check names: a configured model
// and its client. An unknown name is an error.
type Graders func(model string) (*Grader, error)

// NewRulesWith is NewRules for checks that reach outside: every command
// check's program must be found now, and every llm_rubric check's model
// among graders (nil: none), so that a missing program or model stops the
// judge before it stores anything. Errors name the prompt (or the default)
// and the check.
func NewRulesWith(prompts []ringside.Prompt, defaults []Check, graders Graders) (*Rules, error) {
	found := map[string]*Grader{}
	for i := range defaults {
		if err := prepareExternal(&defaults[i], graders, found); err != nil {
			return nil, ringside.Errorf(ringside.EINVALID, "%s: %s", defaults[i].Name(), ringside.ErrorMessage(err))
		}
	}
	r := &Rules{sets: make(map[promptKey]*Set, len(prompts))}
	for i := range prompts {
		s, err := CompilePrompt(&prompts[i], defaults)
		if err != nil {
			return nil, err
		}
		for k := range s.Checks {
			c := &s.Checks[k]
			if c.Source != SourcePrompt {
				continue
			}
			if err := prepareExternal(c, graders, found); err != nil {
				return nil, ringside.Errorf(ringside.EINVALID, "prompt %s: checks[%d] (%s): %s", s.PromptID, c.Index, c.Type, ringside.ErrorMessage(err))
			}
		}
		s.graders = found
		r.sets[promptKey{prompts[i].Set, prompts[i].ID}] = s
	}
	return r, nil
}

// CheckContext is Check with a context for the checks that reach outside.
func (r *Rules) CheckContext(ctx context.Context, g *ringside.Generation) (results []ringside.CheckResult, ok bool) {
	s, ok := r.sets[promptKey{g.PromptSet, g.PromptID}]
	if !ok {
		return nil, false
	}
	return s.RunContext(ctx, g), true
}

// Check runs the checks of the generation's prompt on it. ok is false when
// the prompt is not one of the judge's.
func (r *Rules) Check(g *ringside.Generation) (results []ringside.CheckResult, ok bool) {
	return r.CheckContext(context.Background(), g)
}
