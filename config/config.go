// Package config reads ringside's TOML configuration. Every key is known:
// an unknown key, a wrong type or a missing required value is an error that
// names the key and the line.
package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/judge"
)

// Config is the whole file.
type Config struct {
	Server     Server           `toml:"server"`
	Database   Database         `toml:"database"`
	Models     []ringside.Model `toml:"models"`
	PromptSets []PromptSet      `toml:"prompt_sets"`
	Run        Run              `toml:"run"`
	Judges     []Judge          `toml:"judges"`
	Rank       Rank             `toml:"rank"`
	Judging    Judging          `toml:"judging"`
	// Dimensions a vote may name a winner on, besides the overall verdict.
	Dimensions []string `toml:"dimensions"`

	// Path is the file the config was read from ("" for the built-in demo).
	Path string `toml:"-"`
}

// Server holds the web server's settings.
type Server struct {
	Addr string `toml:"addr"`
	// PublicURL is the address judges use, for the links ringside prints.
	PublicURL string `toml:"public_url"`
	// AdminTokenEnv names the environment variable holding a fixed admin
	// token; without it, a token is generated on first start.
	AdminTokenEnv   string        `toml:"admin_token_env"`
	ShutdownTimeout time.Duration `toml:"shutdown_timeout"`
}

// Database holds the SQLite file's settings.
type Database struct {
	Path string `toml:"path"`
}

// PromptSet is a named prompt file.
type PromptSet struct {
	Name string `toml:"name"`
	File string `toml:"file"`
}

// Run holds the defaults of `ringside run`.
type Run struct {
	Name        string `toml:"name"`
	Samples     int    `toml:"samples"`
	Concurrency int    `toml:"concurrency"`
	// Models lists the models of a run (all configured models when empty).
	Models []string `toml:"models"`
	// Pairs is "all" (every pair for every prompt and sample) or "sampled".
	Pairs string `toml:"pairs"`
	// PairsPerPrompt is how many pairs a sampled run draws per prompt and sample.
	PairsPerPrompt int `toml:"pairs_per_prompt"`
	// Weights biases the sampled pairs towards some models (default 1 each).
	Weights map[string]float64 `toml:"weights"`
	Seed    int64              `toml:"seed"`
}

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
		dc := judge.DefaultCheck{Check: ringside.Check{Type: c.Type, Pattern: c.Pattern, Weight: c.Weight, Dimension: c.Dimension}, Kinds: c.Kinds}
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

// Rank holds the defaults of `ringside rank`.
type Rank struct {
	Bootstrap int    `toml:"bootstrap"`
	Seed      int64  `toml:"seed"`
	Anchor    string `toml:"anchor"` // MODEL=RATING
	// IncludeIdentityLeaks ranks battles in which a model named itself.
	IncludeIdentityLeaks bool `toml:"include_identity_leaks"`
}

// Defaults returns a config with every default filled in and no models or
// prompt sets.
func Defaults() *Config {
	return &Config{
		Server:     Server{Addr: "127.0.0.1:8080", AdminTokenEnv: "RINGSIDE_ADMIN_TOKEN", ShutdownTimeout: 10 * time.Second},
		Database:   Database{Path: "ringside.db"},
		Run:        Run{Name: "default", Samples: 1, Concurrency: 8, Pairs: "all", PairsPerPrompt: 1},
		Rank:       Rank{Bootstrap: 1000},
		Judging:    DefaultJudging(),
		Dimensions: append([]string(nil), ringside.DefaultDimensions...),
	}
}

// Load reads and validates the file at path.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, ringside.Errorf(ringside.EINVALID, "config: %v", err)
	}
	cfg, err := Parse(data, path)
	if err != nil {
		return nil, err
	}
	return cfg, nil
}

// typeErrRE reads the library's type errors, which are plain errors that
// carry the line and key only in their text.
var typeErrRE = regexp.MustCompile(`^toml: line (\d+) \(last key "([^"]+)"\): (.*)$`)

// Parse decodes and validates a config file's contents; name is used in
// errors and relative paths in the file are resolved against its directory.
func Parse(data []byte, name string) (*Config, error) {
	cfg := Defaults()
	md, err := toml.Decode(string(data), cfg)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			msg := pe.Message
			if pe.LastKey != "" {
				msg = pe.LastKey + ": " + msg
			}
			return nil, ringside.Errorf(ringside.EINVALID, "%s:%d: %s", name, pe.Position.Line, msg)
		}
		if m := typeErrRE.FindStringSubmatch(err.Error()); m != nil {
			return nil, ringside.Errorf(ringside.EINVALID, "%s:%s: %s: %s", name, m[1], m[2], m[3])
		}
		return nil, ringside.Errorf(ringside.EINVALID, "%s: %v", name, err)
	}
	if undecoded := md.Undecoded(); len(undecoded) > 0 {
		k := firstUnknown(undecoded)
		return nil, ringside.Errorf(ringside.EINVALID, "%s:%d: %s: unknown key", name, keyLine(string(data), k), k.String())
	}
	cfg.Path = name
	dir := filepath.Dir(name)
	for i := range cfg.Judges {
		if f := cfg.Judges[i].PromptFile; f != "" && !filepath.IsAbs(f) {
			cfg.Judges[i].PromptFile = filepath.Join(dir, f)
		}
	}
	for i := range cfg.PromptSets {
		if f := cfg.PromptSets[i].File; f != "" && !filepath.IsAbs(f) {
			cfg.PromptSets[i].File = filepath.Join(dir, f)
		}
	}
	if err := cfg.Validate(); err != nil {
		var fe *ringside.Error
		if errors.As(err, &fe) && fe.Field != "" {
			return nil, ringside.Errorf(ringside.EINVALID, "%s:%d: %s: %s", name, fieldLine(string(data), fe.Field), fe.Field, fe.Message)
		}
		return nil, ringside.Errorf(ringside.EINVALID, "%s: %v", name, ringside.ErrorMessage(err))
	}
	return cfg, nil
}

// firstUnknown picks the unknown key to report: a key inside a provider's
// free-form options table is the provider's to check, not ours.
func firstUnknown(keys []toml.Key) toml.Key {
	for _, k := range keys {
		if !(len(k) >= 2 && k[0] == "models" && k[1] == "options") {
			return k
		}
	}
	return keys[0]
}

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
	if c.Rank.Bootstrap < 0 {
		return ringside.FieldError("rank.bootstrap", "must not be negative")
	}
	if len(c.Dimensions) == 0 {
		return ringside.FieldError("dimensions", "name at least one dimension")
	}
	return c.Judging.Validate()
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
		}
	}
	return nil
}

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

// Model returns the configured model with that name.
func (c *Config) Model(name string) (ringside.Model, bool) {
	for _, m := range c.Models {
		if m.Name == name {
			return m, true
		}
	}
	return ringside.Model{}, false
}

func prefixField(err error, prefix string) error {
	var fe *ringside.Error
	if errors.As(err, &fe) && fe.Field != "" {
		return &ringside.Error{Code: fe.Code, Field: prefix + "." + fe.Field, Message: fe.Message}
	}
	return err
}

// Judging holds the settings of live human judging: the judge page and its
// websocket (see docs/protocol.md).
type Judging struct {
	// Source is where battles come from: "live" runs two configured models
	// on a prompt when a judge asks; "stored" deals battles that
	// `ringside run` produced.
	Source string `toml:"source"`
	// Runs limits stored battles to these runs (all runs when empty).
	Runs []string `toml:"runs"`
	// Reveal is when a judge learns which model wrote which side:
	// "after_vote", "after_session" (when the quota is met or the judge
	// ends the session) or "never".
	Reveal string `toml:"reveal"`
	// Pace is how stored battles stream: "recorded" (at the pace the
	// generation was recorded) or "instant".
	Pace string `toml:"pace"`
	// PaceToSlower shows both sides at the speed of the slower one, so that
	// speed does not give a model away.
	PaceToSlower bool `toml:"pace_to_slower"`
	// VoteOpens is when a judge may vote: "end" (both sides finished) or
	// "partial" (each side finished or showed VoteOpenChars characters).
	VoteOpens     string `toml:"vote_opens"`
	VoteOpenChars int    `toml:"vote_open_chars"`
	// MaxReasonChars bounds a vote's free-text reason.
	MaxReasonChars int `toml:"max_reason_chars"`
	// MaxMessageBytes is the largest frame a judge may send; a larger one
	// (up to 16 times this) is answered with an error and dropped, and the
	// connection stays open; beyond that the connection is closed.
	MaxMessageBytes int `toml:"max_message_bytes"`
	// SendBuffer is how many frames may wait for a slow judge before the
	// connection is dropped (the judge then reconnects and resumes).
	SendBuffer   int           `toml:"send_buffer"`
	PingInterval time.Duration `toml:"ping_interval"`
	// PongTimeout is how long a silent connection is kept.
	PongTimeout  time.Duration `toml:"pong_timeout"`
	WriteTimeout time.Duration `toml:"write_timeout"`
	// ResumeWindow is how long a disconnected judge's battle stays in
	// memory, streaming, for the judge to come back to.
	ResumeWindow time.Duration `toml:"resume_window"`
	// MessagesPerSecond and MessageBurst limit what one connection may send.
	MessagesPerSecond float64     `toml:"messages_per_second"`
	MessageBurst      int         `toml:"message_burst"`
	Open              OpenJudging `toml:"open"`
}

// OpenJudging lets anyone judge without an invite, under a cookie identity
// and rate limits.
type OpenJudging struct {
	Enabled bool `toml:"enabled"`
	// Quota is the number of battles an anonymous judge is asked for (0 = no limit).
	Quota int `toml:"quota"`
	// IPPerMinute and IPBurst limit page loads and connections per client
	// address for anonymous judges.
	IPPerMinute float64 `toml:"ip_per_minute"`
	IPBurst     int     `toml:"ip_burst"`
	// BattlesPerMinute limits how fast one anonymous judge is dealt battles.
	BattlesPerMinute float64 `toml:"battles_per_minute"`
}

// Judging sources, reveal policies, paces and vote openings.
const (
	SourceLive   = "live"
	SourceStored = "stored"

	RevealAfterVote    = "after_vote"
	RevealAfterSession = "after_session"
	RevealNever        = "never"

	PaceRecorded = "recorded"
	PaceInstant  = "instant"

	VoteOpensEnd     = "end"
	VoteOpensPartial = "partial"
)

// DefaultJudging returns the judging settings of a config that sets none.
func DefaultJudging() Judging {
	return Judging{
		Source: SourceLive, Reveal: RevealAfterVote, Pace: PaceRecorded,
		VoteOpens: VoteOpensEnd, VoteOpenChars: 400, MaxReasonChars: 2000,
		MaxMessageBytes: 16 << 10, SendBuffer: 256,
		PingInterval: 25 * time.Second, PongTimeout: 60 * time.Second, WriteTimeout: 10 * time.Second,
		ResumeWindow:      10 * time.Minute,
		MessagesPerSecond: 20, MessageBurst: 40,
		Open: OpenJudging{IPPerMinute: 30, IPBurst: 20, BattlesPerMinute: 20},
	}
}

// Validate checks the judging settings; errors name the key.
func (j *Judging) Validate() error {
	for _, c := range []struct {
		key, value string
		allowed    []string
	}{
		{"source", j.Source, []string{SourceLive, SourceStored}},
		{"reveal", j.Reveal, []string{RevealAfterVote, RevealAfterSession, RevealNever}},
		{"pace", j.Pace, []string{PaceRecorded, PaceInstant}},
		{"vote_opens", j.VoteOpens, []string{VoteOpensEnd, VoteOpensPartial}},
	} {
		if !slices.Contains(c.allowed, c.value) {
			return ringside.FieldError("judging."+c.key, "%q is not one of %s", c.value, strings.Join(c.allowed, ", "))
		}
	}
	for _, c := range []struct {
		key   string
		value int
		min   int
	}{
		{"vote_open_chars", j.VoteOpenChars, 0},
		{"max_reason_chars", j.MaxReasonChars, 0},
		{"max_message_bytes", j.MaxMessageBytes, 1024},
		{"send_buffer", j.SendBuffer, 8},
		{"message_burst", j.MessageBurst, 1},
		{"open.quota", j.Open.Quota, 0},
		{"open.ip_burst", j.Open.IPBurst, 1},
	} {
		if c.value < c.min {
			return ringside.FieldError("judging."+c.key, "must be at least %d", c.min)
		}
	}
	for _, c := range []struct {
		key   string
		value time.Duration
	}{
		{"ping_interval", j.PingInterval}, {"pong_timeout", j.PongTimeout},
		{"write_timeout", j.WriteTimeout}, {"resume_window", j.ResumeWindow},
	} {
		if c.value <= 0 {
			return ringside.FieldError("judging."+c.key, "must be positive")
		}
	}
	if j.PongTimeout <= j.PingInterval {
		return ringside.FieldError("judging.pong_timeout", "must be longer than ping_interval (%s)", j.PingInterval)
	}
	for _, c := range []struct {
		key  string
		rate float64
	}{
		{"messages_per_second", j.MessagesPerSecond}, {"open.ip_per_minute", j.Open.IPPerMinute},
		{"open.battles_per_minute", j.Open.BattlesPerMinute},
	} {
		if c.rate <= 0 {
			return ringside.FieldError("judging."+c.key, "must be positive")
		}
	}
	return nil
}
