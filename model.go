package ringside

import (
	"regexp"
	"slices"
	"time"
)

// Params are the generation parameters sent with every request for a model.
// Nil pointers mean "the provider's default".
type Params struct {
	Temperature *float64 `json:"temperature,omitempty" toml:"temperature"`
	TopP        *float64 `json:"top_p,omitempty" toml:"top_p"`
	MaxTokens   int      `json:"max_tokens,omitempty" toml:"max_tokens"`
	Seed        *int64   `json:"seed,omitempty" toml:"seed"`
	Stop        []string `json:"stop,omitempty" toml:"stop"`
}

// Model is a named candidate: a provider, the provider's model id, generation
// parameters and prices. Name is what rankings show.
type Model struct {
	Name      string `json:"name" toml:"name"`
	Provider  string `json:"provider" toml:"provider"`
	ModelID   string `json:"model_id" toml:"model"`
	BaseURL   string `json:"base_url,omitempty" toml:"base_url"`
	APIKeyEnv string `json:"api_key_env,omitempty" toml:"api_key_env"`
	Params    Params `json:"params" toml:"params"`
	// Prices in US dollars per million tokens.
	PriceInPerM  float64 `json:"price_in_per_m" toml:"price_in_per_m"`
	PriceOutPerM float64 `json:"price_out_per_m" toml:"price_out_per_m"`
	// Timeout bounds a whole generation; StallTimeout the wait for the next
	// delta. Zero means the configured default.
	Timeout      time.Duration `json:"-" toml:"timeout"`
	StallTimeout time.Duration `json:"-" toml:"stall_timeout"`
	// Concurrency caps this model's requests in flight; zero means no cap of
	// its own beyond the global one.
	Concurrency int `json:"-" toml:"concurrency"`
	// Options holds provider-specific settings (a sim model's profile, a
	// replay file), which the provider validates.
	Options map[string]any `json:"-" toml:"options"`
}

// Providers are the API families a model may name.
var Providers = []string{"openai", "anthropic", "sim", "replay"}

var modelNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,127}$`)

// Validate checks a model's own fields.
func (m *Model) Validate() error {
	if m.Name == "" {
		return FieldError("name", "required")
	}
	if !modelNameRE.MatchString(m.Name) {
		return FieldError("name", "%q: use letters, digits and . _ : / @ + - (at most 128)", m.Name)
	}
	if !slices.Contains(Providers, m.Provider) {
		return FieldError("provider", "%q is not one of %v", m.Provider, Providers)
	}
	if m.ModelID == "" && m.Provider != "sim" && m.Provider != "replay" {
		return FieldError("model", "required for provider %s", m.Provider)
	}
	if m.PriceInPerM < 0 || m.PriceOutPerM < 0 {
		return FieldError("price_in_per_m", "prices must not be negative")
	}
	if t := m.Params.Temperature; t != nil && (*t < 0 || *t > 2) {
		return FieldError("params.temperature", "%g is outside 0..2", *t)
	}
	if p := m.Params.TopP; p != nil && (*p <= 0 || *p > 1) {
		return FieldError("params.top_p", "%g is outside (0, 1]", *p)
	}
	if m.Params.MaxTokens < 0 {
		return FieldError("params.max_tokens", "must not be negative")
	}
	if m.Timeout < 0 || m.StallTimeout < 0 {
		return FieldError("timeout", "must not be negative")
	}
	if m.Concurrency < 0 {
		return FieldError("concurrency", "must not be negative")
	}
	return nil
}

// Cost is the price in US dollars of a generation with the given token counts.
func (m *Model) Cost(tokensIn, tokensOut int) float64 {
	return (float64(tokensIn)*m.PriceInPerM + float64(tokensOut)*m.PriceOutPerM) / 1e6
}
