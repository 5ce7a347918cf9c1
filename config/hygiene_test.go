package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
)

// A bare number used to be read as nanoseconds: write_timeout = 10 dropped
// every connection and a model's timeout = 30 failed every generation.
func TestDurationsNeedAUnit(t *testing.T) {
	model := "[[models]]\nname = \"a\"\nprovider = \"sim\"\n"
	for _, tc := range []struct {
		name, src, want string
	}{
		{"integer write_timeout", "[judging]\nwrite_timeout = 10\n", "c.toml:2: judging.write_timeout: 10 is not a duration"},
		{"integer ping_interval", "[judging]\nping_interval = 25\n", "c.toml:2: judging.ping_interval: "},
		{"pong_timeout", "[judging]\npong_timeout = 60\n", "c.toml:2: judging.pong_timeout: "},
		{"resume_window", "[judging]\nresume_window = 600\n", "c.toml:2: judging.resume_window: "},
		{"shutdown_timeout", "[server]\nshutdown_timeout = 10\n", "c.toml:2: server.shutdown_timeout: "},
		{"model timeout", model + "timeout = 30\n", "c.toml:4: models[0].timeout: 30 is not a duration"},
		{"second model's stall_timeout", model + model + "stall_timeout = 5\n", "c.toml:7: models[1].stall_timeout: "},
		{"inline model", "models = [{name = \"a\", provider = \"sim\", timeout = 30}]\n", "c.toml:1: models[0].timeout: "},
		{"float", model + "timeout = 1.5\n", "c.toml:4: models[0].timeout: 1.5 is not a duration"},
		{"string without unit", model + "timeout = \"30\"\n", "c.toml:4: models[0].timeout: \"30\" is not a duration"},
		{"bare zero", "[judging]\nwrite_timeout = \"0\"\n", "c.toml:2: judging.write_timeout: "},
		{"negative", model + "stall_timeout = \"-5s\"\n", "c.toml:4: models[0].stall_timeout: \"-5s\" must not be negative"},
		{"negative shutdown", "[server]\nshutdown_timeout = \"-1s\"\n", "c.toml:2: server.shutdown_timeout: "},
		{"array", "[judging]\nwrite_timeout = [\"1s\"]\n", "c.toml:2: judging.write_timeout: an array is not a duration"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := config.Parse([]byte(tc.src), "c.toml")
			if ringside.ErrorCode(err) != ringside.EINVALID || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestDurationsWithUnits(t *testing.T) {
	cfg, err := config.Parse([]byte("[server]\nshutdown_timeout = \"0s\"\n[judging]\nwrite_timeout = \"1m30s\"\n[[models]]\nname = \"a\"\nprovider = \"sim\"\ntimeout = \"2m\"\nstall_timeout = \"500ms\"\n"), "c.toml")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Judging.WriteTimeout != 90*time.Second || cfg.Models[0].Timeout != 2*time.Minute ||
		cfg.Models[0].StallTimeout != 500*time.Millisecond || cfg.Server.ShutdownTimeout != 0 {
		t.Fatalf("durations = %v %v %v %v", cfg.Judging.WriteTimeout, cfg.Models[0].Timeout, cfg.Models[0].StallTimeout, cfg.Server.ShutdownTimeout)
	}
}

func TestConfigInputHygiene(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"invalid UTF-8", "[run]\nname = \"a\xffb\"\n", "c.toml:2: run.name: invalid UTF-8"},
		{"lone surrogate", "[run]\nname = \"\\ud800\"\n", "c.toml:2: run.name: "},
		{"duplicate dimension", "dimensions = [\"tone\", \"style\", \"tone\"]\n", "c.toml:1: dimensions: \"tone\" is listed twice"},
		{"no Go types: float for integer", "[run]\nsamples = 1.5\n", "c.toml:2: run.samples: want an integer, got a number"},
		{"no Go types: integer for array", "[run]\nmodels = 3\n", "c.toml:2: run.models: want an array, got an integer"},
		{"no Go types: string for table", "judging = \"x\"\n", "c.toml:1: judging: want a table, got a string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := config.Parse([]byte(tc.src), "c.toml")
			if ringside.ErrorCode(err) != ringside.EINVALID || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
			for _, goType := range []string{"int64", "float64", "[]", "map[", "interface", "slice"} {
				if strings.Contains(err.Error(), goType) {
					t.Fatalf("err = %v names the Go type %s", err, goType)
				}
			}
		})
	}
}

func TestConfigByteOrderMark(t *testing.T) {
	cfg, err := config.Parse([]byte("\ufeffdimensions = [\"tone\"]\n[run]\nsamples = 0\n"), "c.toml")
	if err == nil || !strings.Contains(err.Error(), "c.toml:3: run.samples") {
		t.Fatalf("cfg = %+v, err = %v; want the BOM skipped and line 3 named", cfg, err)
	}
	cfg, err = config.Parse([]byte("\ufeffdimensions = [\"tone\"]\n"), "c.toml")
	if err != nil || cfg.Dimensions[0] != "tone" {
		t.Fatalf("cfg = %+v, err = %v", cfg, err)
	}
}
