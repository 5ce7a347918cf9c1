// Package config reads ringside's TOML configuration. Every key is known:
// an unknown key, a wrong type or a missing required value is an error that
// names the key and the line.
package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/ringside-eval/ringside"
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
	for i, j := range c.Judges {
		field := fmt.Sprintf("judges[%d]", i)
		if j.Name == "" {
			return ringside.FieldError(field+".name", "required")
		}
		switch j.Kind {
		case ringside.JudgeRules:
		case ringside.JudgeLLM:
			if !names[j.Model] {
				return ringside.FieldError(field+".model", "%q is not a configured model", j.Model)
			}
		default:
			return ringside.FieldError(field+".kind", "%q is not one of rules, llm", j.Kind)
		}
		if j.StrongWeight < 0 {
			return ringside.FieldError(field+".strong_weight", "must not be negative")
		}
	}
	if c.Rank.Bootstrap < 0 {
		return ringside.FieldError("rank.bootstrap", "must not be negative")
	}
	if len(c.Dimensions) == 0 {
		return ringside.FieldError("dimensions", "name at least one dimension")
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
