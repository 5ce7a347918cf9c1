package config

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/judge"
)

// Judge is an automatic judge that `ringside judge` can apply.
type Judge struct {
	Name string `toml:"name"`
	Kind string `toml:"kind"`
	// Model is the configured model an LLM judge asks.
	Model string `toml:"model"`
	// PromptFile overrides the built-in pairwise judging prompt.
	PromptFile string `toml:"prompt_file"`
	// UseReference adds the prompt's reference answer to the judge prompt.
	UseReference bool `toml:"use_reference"`
	// StrongWeight is how many votes a strong verdict (A>>B) counts for.
	StrongWeight int `toml:"strong_weight"`
	// MaxFailures is how many recorded failures on a battle an LLM judge
	// takes before later runs leave the battle alone (nil: the default, 3;
	// 0: never). A battle the judge model cannot judge (too long for it,
	// say) would otherwise be paid for again on every rerun.
	MaxFailures *int `toml:"max_failures"`
	// PerDimension has an LLM judge also give a verdict on each configured
	// dimension, which its votes then carry like a human's.
	PerDimension bool `toml:"per_dimension"`
	// Checks are a rules judge's default checks, run on every prompt's
	// generations (or those of the listed kinds) besides the prompt's own.
	Checks []DefaultCheck `toml:"checks"`
}

// DefaultMaxFailures is an LLM judge's max_failures when unset.
const DefaultMaxFailures = 3

// FailureCap is the judge's max_failures, or its default; 0 means the judge
// never gives up on a battle.
func (j Judge) FailureCap() int {
	if j.MaxFailures == nil {
		return DefaultMaxFailures
	}
	return *j.MaxFailures
}

// DefaultCheck is a check written in the config rather than a prompt file:
// the fields of a prompt's check, plus the prompt kinds it applies to.
type DefaultCheck struct {
	Type string `toml:"type"`
	// Value is a string or a number, depending on the type.
	Value   AnyValue `toml:"value"`
	Pattern string   `toml:"pattern"`
	// Schema is a JSON Schema, as a table or as a string of JSON.
	Schema    AnyValue `toml:"schema"`
	Weight    float64  `toml:"weight"`
	Dimension string   `toml:"dimension"`
	Kinds     []string `toml:"kinds"`
	// Command and Timeout are a command check's program (an argv list)
	// and its time limit; Model is the model an llm_rubric check asks.
	Command []string `toml:"command"`
	Timeout string   `toml:"timeout"`
	Model   string   `toml:"model"`
}

// AnyValue is a TOML value of any shape, taken whole. Decoding it through
// UnmarshalTOML marks the keys of a table value as known, where a plain
// `any` field would leave a JSON Schema's keys reported as unknown.
type AnyValue struct{ V any }

// UnmarshalTOML keeps the decoded value.
func (a *AnyValue) UnmarshalTOML(v any) error {
	a.V = v
	return nil
}

// DefaultChecks returns the judge's default checks in the rule judge's
// terms, for judge.CompileDefaults. Errors name the field as
// "checks[i].field".
func (j *Judge) DefaultChecks() ([]judge.DefaultCheck, error) {
	out := make([]judge.DefaultCheck, 0, len(j.Checks))
	for i, c := range j.Checks {
		field := fmt.Sprintf("checks[%d]", i)
		dc := judge.DefaultCheck{Check: ringside.Check{Type: c.Type, Pattern: c.Pattern, Weight: c.Weight, Dimension: c.Dimension,
			Command: c.Command, Timeout: c.Timeout, Model: c.Model}, Kinds: c.Kinds}
		if c.Value.V != nil {
			v, err := json.Marshal(c.Value.V)
			if err != nil {
				return nil, ringside.FieldError(field+".value", "%v", err)
			}
			dc.Value = v
		}
		switch s := c.Schema.V.(type) {
		case nil:
		case string:
			if !json.Valid([]byte(s)) {
				return nil, ringside.FieldError(field+".schema", "not valid JSON")
			}
			dc.Schema = json.RawMessage(s)
		default:
			v, err := json.Marshal(s)
			if err != nil {
				return nil, ringside.FieldError(field+".schema", "%v", err)
			}
			dc.Schema = v
		}
		out = append(out, dc)
	}
	return out, nil
}

// validateJudges checks the automatic judges; models holds the configured
// model names.
func (c *Config) validateJudges(models map[string]bool) error {
	seen := map[string]bool{}
	for i, j := range c.Judges {
		field := fmt.Sprintf("judges[%d]", i)
		if j.Name == "" {
			return ringside.FieldError(field+".name", "required")
		}
		if seen[j.Name] {
			return ringside.FieldError(field+".name", "%q is used by another judge", j.Name)
		}
		seen[j.Name] = true
		switch j.Kind {
		case ringside.JudgeRules:
		case ringside.JudgeLLM:
			if !models[j.Model] {
				return ringside.FieldError(field+".model", "%q is not a configured model", j.Model)
			}
		default:
			return ringside.FieldError(field+".kind", "%q is not one of rules, llm", j.Kind)
		}
		if j.StrongWeight < 0 {
			return ringside.FieldError(field+".strong_weight", "must not be negative")
		}
		if j.MaxFailures != nil && *j.MaxFailures < 0 {
			return ringside.FieldError(field+".max_failures", "must not be negative (0 = never give up)")
		}
		if j.MaxFailures != nil && j.Kind != ringside.JudgeLLM {
			return ringside.FieldError(field+".max_failures", "only an llm judge fails and gives up")
		}
		if j.PerDimension && j.Kind != ringside.JudgeLLM {
			return ringside.FieldError(field+".per_dimension", "only an llm judge is asked for dimension verdicts (a rules judge takes them from its checks)")
		}
		if j.PerDimension {
			// The judge answers "NAME: [[LABEL]]" per dimension, beside its
			// "Rationale:" and "Verdict:" lines.
			for _, d := range c.Dimensions {
				if strings.EqualFold(d, "verdict") || strings.EqualFold(d, "rationale") {
					return ringside.FieldError(field+".per_dimension", "the dimension %q would be read as the judge's own %s line; rename it", d, strings.ToLower(d))
				}
			}
		}
		if len(j.Checks) > 0 && j.Kind != ringside.JudgeRules {
			return ringside.FieldError(field+".checks[0]", "only a rules judge runs checks")
		}
		// A malformed default check fails here, with its line, rather than
		// passing or failing every generation silently when judged.
		dcs, err := j.DefaultChecks()
		if err == nil {
			_, err = judge.CompileDefaults(dcs)
		}
		if err != nil {
			return prefixField(err, field)
		}
		for k, dc := range j.Checks {
			if dc.Dimension != "" && !slices.Contains(c.Dimensions, dc.Dimension) {
				return ringside.FieldError(fmt.Sprintf("%s.checks[%d].dimension", field, k), "%q is not one of the configured dimensions", dc.Dimension)
			}
			if dc.Model != "" && !models[dc.Model] {
				return ringside.FieldError(fmt.Sprintf("%s.checks[%d].model", field, k), "%q is not a configured model", dc.Model)
			}
		}
	}
	return nil
}
