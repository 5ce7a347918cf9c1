package config

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/ringside-eval/ringside"
)

// SourceChat is the judging source in which the judge writes the prompt and
// may follow up over several turns.
const SourceChat = "chat"

// DefaultChatSet is the prompt set the judges' own questions are stored in.
const DefaultChatSet = "arena"

// ChatJudging holds the guardrails of chat battles ([judging.chat]) and the
// rules that give a judge's question its category.
type ChatJudging struct {
	// MaxPromptChars bounds one question or follow-up, in characters.
	MaxPromptChars int `toml:"max_prompt_chars"`
	// MaxTurns bounds the questions of one conversation.
	MaxTurns int `toml:"max_turns"`
	// TokensPerDay bounds the tokens (in and out, both sides) one judge's
	// conversations may use per UTC day; 0 is no limit.
	TokensPerDay int `toml:"tokens_per_day"`
	// Reject refuses a question that matches a pattern, telling the judge
	// the rule's reason.
	Reject []ChatReject `toml:"reject"`
	// Categories give a question its category: the first rule whose
	// keyword (a whole word, any case) or pattern matches.
	Categories []ChatCategory `toml:"categories"`
}

// ChatReject is one rule refusing questions.
type ChatReject struct {
	Pattern string `toml:"pattern"`
	Reason  string `toml:"reason"`
}

// ChatCategory maps questions to a category by keywords or a pattern.
type ChatCategory struct {
	Name     string   `toml:"name"`
	Keywords []string `toml:"keywords"`
	Pattern  string   `toml:"pattern"`
}

// DefaultChat returns the chat guardrails of a config that sets none.
func DefaultChat() ChatJudging {
	return ChatJudging{MaxPromptChars: 4000, MaxTurns: 5, TokensPerDay: 200000}
}

// Regexp is the category rule as one case-insensitive expression: its
// pattern, or its keywords as whole words.
func (c ChatCategory) Regexp() (*regexp.Regexp, error) {
	if c.Pattern != "" {
		return regexp.Compile(c.Pattern)
	}
	words := make([]string, len(c.Keywords))
	for i, k := range c.Keywords {
		words[i] = regexp.QuoteMeta(strings.TrimSpace(k))
	}
	// Not \b: a keyword may end in a symbol ("c++"), where \b never matches.
	return regexp.Compile(`(?i)(?:^|[^\pL\pN_])(?:` + strings.Join(words, "|") + `)(?:$|[^\pL\pN_])`)
}

func (c *ChatJudging) validate() error {
	for _, v := range []struct {
		key        string
		value, min int
	}{{"max_prompt_chars", c.MaxPromptChars, 1}, {"max_turns", c.MaxTurns, 1}, {"tokens_per_day", c.TokensPerDay, 0}} {
		if v.value < v.min {
			return ringside.FieldError("judging.chat."+v.key, "must be at least %d", v.min)
		}
	}
	for i, r := range c.Reject {
		key := fmt.Sprintf("judging.chat.reject[%d]", i)
		if _, err := regexp.Compile(r.Pattern); err != nil || r.Pattern == "" {
			return ringside.FieldError(key+".pattern", "not a regular expression: %q", r.Pattern)
		}
		if strings.TrimSpace(r.Reason) == "" {
			return ringside.FieldError(key+".reason", "required: the judge is told it")
		}
	}
	for i, cat := range c.Categories {
		key := fmt.Sprintf("judging.chat.categories[%d]", i)
		if strings.TrimSpace(cat.Name) == "" {
			return ringside.FieldError(key+".name", "required")
		}
		if (cat.Pattern == "") == (len(cat.Keywords) == 0) {
			return ringside.FieldError(key, "give keywords or a pattern (one of the two)")
		}
		if slices.ContainsFunc(cat.Keywords, func(k string) bool { return strings.TrimSpace(k) == "" }) {
			return ringside.FieldError(key+".keywords", "an empty keyword matches everything")
		}
		if _, err := cat.Regexp(); err != nil {
			return ringside.FieldError(key+".pattern", "not a regular expression: %q", cat.Pattern)
		}
	}
	return nil
}

// validateSources checks judging.sources, the mix of battle sources.
func (j *Judging) validateSources() error {
	for src, w := range j.Sources {
		if !slices.Contains([]string{SourceLive, SourceStored, SourceChat}, src) {
			return ringside.FieldError("judging.sources", "%q is not one of live, stored, chat", src)
		}
		if !(w > 0) {
			return ringside.FieldError("judging.sources", "the weight of %q must be positive", src)
		}
	}
	if strings.TrimSpace(j.ChatSet) == "" {
		return ringside.FieldError("judging.chat_set", "required: the prompt set judges' questions are stored in")
	}
	return j.Chat.validate()
}

// SourceWeights is the mix of battle sources a judge is dealt from:
// judging.sources when set, else judging.source alone.
func (j *Judging) SourceWeights() map[string]float64 {
	if len(j.Sources) > 0 {
		return j.Sources
	}
	return map[string]float64{j.Source: 1}
}

// UsesSource reports whether battles may come from src.
func (j *Judging) UsesSource(src string) bool { return j.SourceWeights()[src] > 0 }

// validateJudgingModels checks the models named by [judging]; models holds
// the configured model names.
func (c *Config) validateJudgingModels(models map[string]bool) error {
	for _, m := range c.Judging.Models {
		if !models[m] {
			return ringside.FieldError("judging.models", "%q is not a configured model", m)
		}
	}
	for m, w := range c.Judging.Weights {
		if !models[m] {
			return ringside.FieldError("judging.weights", "%q is not a configured model", m)
		}
		if !(w > 0) {
			return ringside.FieldError("judging.weights", "the weight of %q must be positive", m)
		}
	}
	return nil
}

// JudgingPool is the candidate models dealt to people: judging.models when
// set, else run.models when set, else every configured model that no
// [[judges]] entry uses (a model configured only to judge is no candidate).
// Sorted by name.
func (c *Config) JudgingPool() []string {
	var pool []string
	switch {
	case len(c.Judging.Models) > 0:
		pool = slices.Clone(c.Judging.Models)
	case len(c.Run.Models) > 0:
		pool = slices.Clone(c.Run.Models)
	default:
		for _, m := range c.Models {
			if !slices.ContainsFunc(c.Judges, func(j Judge) bool { return j.Model == m.Name }) {
				pool = append(pool, m.Name)
			}
		}
	}
	sort.Strings(pool)
	return slices.Compact(pool)
}

// JudgingWeights is how often each candidate is drawn: judging.weights,
// else run.weights, else 1.
func (c *Config) JudgingWeights() map[string]float64 {
	w := map[string]float64{}
	for m, x := range c.Run.Weights {
		w[m] = x
	}
	for m, x := range c.Judging.Weights {
		w[m] = x
	}
	return w
}
