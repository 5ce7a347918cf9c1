// Package config reads ringside's TOML configuration. Every key is known:
// an unknown key, a wrong type or a missing required value is an error that
// names the key and the line.
package config

import (
	"time"

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
	Judging    Judging          `toml:"judging"`
	Trust      Trust            `toml:"trust"`
	// Dimensions a vote may name a winner on, besides the overall verdict.
	Dimensions []string `toml:"dimensions"`

	// Path is the file the config was read from ("" for the built-in demo).
	Path string `toml:"-"`
	// src is the file's text, kept to place errors found after loading
	// (Locate).
	src string
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

// Rank holds the defaults of `ringside rank`.
type Rank struct {
	Bootstrap int    `toml:"bootstrap"`
	Seed      int64  `toml:"seed"`
	Anchor    string `toml:"anchor"` // MODEL=RATING
	// IncludeIdentityLeaks ranks battles in which a model named itself.
	IncludeIdentityLeaks bool `toml:"include_identity_leaks"`
	// Control ranks with style or cost control: "style" or a comma list of
	// length, headers, lists, bold, cost, latency ("" or "none": plain).
	Control string `toml:"control"`
	// Weighting is "none" (every vote weighs 1) or "propensity": each vote
	// weighs the inverse of the probability its pair was dealt with, so
	// that a board of adaptively dealt votes estimates what uniform
	// dealing would have given, with wider intervals.
	Weighting string `toml:"weighting"`
	// CompareMinSliceBattles: `compare` reports a slice with fewer battles
	// but never fails the gate on it (a handful of battles crosses by
	// chance).
	CompareMinSliceBattles int `toml:"compare_min_slice_battles"`
}

// Defaults returns a config with every default filled in and no models or
// prompt sets.
func Defaults() *Config {
	return &Config{
		Server:     Server{Addr: "127.0.0.1:8080", AdminTokenEnv: "RINGSIDE_ADMIN_TOKEN", ShutdownTimeout: 10 * time.Second},
		Database:   Database{Path: "ringside.db"},
		Run:        Run{Name: "default", Samples: 1, Concurrency: 8, Pairs: "all", PairsPerPrompt: 1},
		Rank:       Rank{Bootstrap: 1000, CompareMinSliceBattles: 20},
		Judging:    DefaultJudging(),
		Trust:      DefaultTrust(),
		Dimensions: append([]string(nil), ringside.DefaultDimensions...),
	}
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
