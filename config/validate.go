package config

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/rank"
)

// Validate checks values that the types alone do not, and returns an
// EINVALID error whose Field is the dotted key at fault.
func (c *Config) Validate() error {
	if c.Database.Path == "" {
		return ringside.FieldError("database.path", "required")
	}
	if c.Server.Addr == "" {
		return ringside.FieldError("server.addr", "required")
	}
	names := map[string]bool{}
	for i := range c.Models {
		m := &c.Models[i]
		if err := m.Validate(); err != nil {
			return prefixField(err, fmt.Sprintf("models[%d]", i))
		}
		if names[m.Name] {
			return ringside.FieldError(fmt.Sprintf("models[%d].name", i), "%q is used by another model", m.Name)
		}
		names[m.Name] = true
		if m.APIKeyEnv != "" && strings.ContainsAny(m.APIKeyEnv, " =") {
			return ringside.FieldError(fmt.Sprintf("models[%d].api_key_env", i), "%q should name an environment variable, not hold a key", m.APIKeyEnv)
		}
	}
	sets := map[string]bool{}
	for i, ps := range c.PromptSets {
		field := fmt.Sprintf("prompt_sets[%d]", i)
		if ps.Name == "" {
			return ringside.FieldError(field+".name", "required")
		}
		if ps.File == "" {
			return ringside.FieldError(field+".file", "required")
		}
		if sets[ps.Name] {
			return ringside.FieldError(field+".name", "%q is used by another prompt set", ps.Name)
		}
		sets[ps.Name] = true
	}
	if err := c.validateRun(names); err != nil {
		return err
	}
	if err := c.validateJudges(names); err != nil {
		return err
	}
	if c.Rank.CompareMinSliceBattles < 0 {
		return ringside.FieldError("rank.compare_min_slice_battles", "must not be negative")
	}
	if err := c.validateJudgingModels(names); err != nil {
		return err
	}
	if c.Rank.Bootstrap < 0 {
		return ringside.FieldError("rank.bootstrap", "must not be negative")
	}
	if _, err := rank.ParseControls(c.Rank.Control); err != nil {
		return ringside.FieldError("rank.control", "%q: want style, none or a comma list of %s", c.Rank.Control, strings.Join(rank.Controls, ", "))
	}
	if err := rank.ValidateWeighting("rank.weighting", c.Rank.Weighting); err != nil {
		return err
	}
	if len(c.Dimensions) == 0 {
		return ringside.FieldError("dimensions", "name at least one dimension")
	}
	for i, d := range c.Dimensions {
		if slices.Contains(c.Dimensions[:i], d) {
			return ringside.FieldError("dimensions", "%q is listed twice", d)
		}
	}
	if err := c.Trust.Validate(); err != nil {
		return err
	}
	return c.Judging.Validate()
}

// validateRun checks the run defaults; models holds the configured model
// names.
func (c *Config) validateRun(models map[string]bool) error {
	r := c.Run
	if r.Samples < 1 {
		return ringside.FieldError("run.samples", "must be at least 1")
	}
	if r.Concurrency < 1 {
		return ringside.FieldError("run.concurrency", "must be at least 1")
	}
	if r.Pairs != "all" && r.Pairs != "sampled" {
		return ringside.FieldError("run.pairs", "%q is not one of all, sampled", r.Pairs)
	}
	if r.PairsPerPrompt < 1 {
		return ringside.FieldError("run.pairs_per_prompt", "must be at least 1")
	}
	for _, m := range r.Models {
		if !models[m] {
			return ringside.FieldError("run.models", "%q is not a configured model", m)
		}
	}
	for m, w := range r.Weights {
		if !models[m] {
			return ringside.FieldError("run.weights", "%q is not a configured model", m)
		}
		if w <= 0 {
			return ringside.FieldError("run.weights", "the weight of %q must be positive", m)
		}
	}
	return nil
}

// prefixField places a nested value's field error under its parent key, so
// that the error still names the key as written in the file.
func prefixField(err error, prefix string) error {
	var fe *ringside.Error
	if errors.As(err, &fe) && fe.Field != "" {
		return &ringside.Error{Code: fe.Code, Field: prefix + "." + fe.Field, Message: fe.Message}
	}
	return err
}
