package config_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
)

func TestExampleConfigLoads(t *testing.T) {
	cfg, err := config.Load(filepath.Join("..", "config.example.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Models) != 3 || cfg.Models[0].Name != "gpt-4o-mini" {
		t.Fatalf("models = %+v", cfg.Models)
	}
	if got := cfg.Models[0].Params.Temperature; got == nil || *got != 0.7 {
		t.Fatalf("temperature = %v", got)
	}
	if cfg.Models[0].Timeout.Seconds() != 120 {
		t.Fatalf("timeout = %v", cfg.Models[0].Timeout)
	}
	if cfg.Models[2].Options["follow_format"] != 0.8 {
		t.Fatalf("sim options = %v", cfg.Models[2].Options)
	}
	want := filepath.Join("..", "examples", "prompts.jsonl")
	if cfg.PromptSets[0].File != want {
		t.Fatalf("prompt set file = %q, want %q (relative to the config)", cfg.PromptSets[0].File, want)
	}
}

func TestConfigErrorsNameKeyAndLine(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"unknown top-level key", "[server]\naddr = \"x:1\"\nport = 9\n", "c.toml:3: server.port: unknown key"},
		{"unknown model key", "[[models]]\nname = \"a\"\nprovider = \"sim\"\n\n[[models]]\nname = \"b\"\nprovider = \"sim\"\ntemprature = 1\n", "c.toml:8: models.temprature: unknown key"},
		{"wrong type", "[run]\nsamples = \"three\"\n", "c.toml:2: run.samples"},
		{"bad duration", "[server]\nshutdown_timeout = \"soon\"\n", "c.toml:2: server.shutdown_timeout"},
		{"missing provider", "[[models]]\nname = \"a\"\n", "c.toml:1: models[0].provider: "},
		{"bad param in second model", "[[models]]\nname = \"a\"\nprovider = \"sim\"\n[[models]]\nname = \"b\"\nprovider = \"sim\"\n[models.params]\ntemperature = 9.0\n", "c.toml:8: models[1].params.temperature: "},
		{"duplicate model", "[[models]]\nname = \"a\"\nprovider = \"sim\"\n[[models]]\nname = \"a\"\nprovider = \"sim\"\n", "c.toml:5: models[1].name: "},
		{"run names unknown model", "[run]\nmodels = [\"ghost\"]\n", "c.toml:2: run.models: \"ghost\""},
		{"syntax", "[server]\naddr = \n", "c.toml:2:"},
		{"llm judge without model", "[[judges]]\nname = \"j\"\nkind = \"llm\"\n", "c.toml:1: judges[0].model: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := config.Parse([]byte(tc.src), "c.toml")
			if ringside.ErrorCode(err) != ringside.EINVALID {
				t.Fatalf("err = %v, want invalid", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %q, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestDefaultsNeedNoFile(t *testing.T) {
	cfg, err := config.Parse(nil, "empty.toml")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Database.Path != "ringside.db" || cfg.Run.Samples != 1 || len(cfg.Dimensions) != 5 {
		t.Fatalf("defaults = %+v", cfg)
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := config.Load(filepath.Join(t.TempDir(), "nope.toml"))
	if ringside.ErrorCode(err) != ringside.EINVALID || !strings.Contains(err.Error(), "nope.toml") {
		t.Fatalf("err = %v", err)
	}
}
