package config_test

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/trust"
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
	if j := cfg.Judges[len(cfg.Judges)-1]; j.Kind != ringside.JudgeLLM || j.FailureCap() != 3 {
		t.Fatalf("llm judge %q gives up after %d failures, want 3", j.Name, j.FailureCap())
	}
	if j := cfg.Judges[len(cfg.Judges)-1]; j.PerDimension {
		t.Fatalf("llm judge %q asks for dimension verdicts; the example documents the default, off", j.Name)
	}
	if (config.Judge{}).FailureCap() != config.DefaultMaxFailures {
		t.Fatal("an unset max_failures is not the default")
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
		{"unknown judging key", "[judging]\nsource = \"live\"\nrevael = \"never\"\n", "c.toml:3: judging.revael: unknown key"},
		{"bad rank weighting", "[rank]\nbootstrap = 10\nweighting = \"inverse\"\n", "c.toml:3: rank.weighting: \"inverse\" is not one of none, propensity"},
		{"bad judging source", "[judging]\nsource = \"cache\"\n", "c.toml:2: judging.source: \"cache\""},
		{"bad reveal", "[judging]\nreveal = \"later\"\n", "c.toml:2: judging.reveal: "},
		{"pong not after ping", "[judging]\nping_interval = \"30s\"\npong_timeout = \"10s\"\n", "c.toml:3: judging.pong_timeout: "},
		{"unknown open judging key", "[judging.open]\nenabeld = true\n", "c.toml:2: judging.open.enabeld: unknown key"},
		{"bad open quota", "[judging.open]\nquota = -1\n", "c.toml:2: judging.open.quota: "},
		{"bad default regex", "[[judges]]\nname = \"r\"\nkind = \"rules\"\n[[judges.checks]]\ntype = \"regex\"\npattern = \"(x\"\n", "c.toml:6: judges[0].checks[0].pattern: "},
		{"default value of the wrong type", "[[judges]]\nname = \"r\"\nkind = \"rules\"\n[[judges.checks]]\ntype = \"max_words\"\nvalue = \"many\"\n", "c.toml:6: judges[0].checks[0].value: want a number"},
		{"rubric grader not configured", "[[judges]]\nname = \"r\"\nkind = \"rules\"\n[[judges.checks]]\ntype = \"llm_rubric\"\nvalue = \"polite\"\nmodel = \"nope\"\n", "c.toml:7: judges[0].checks[0].model: \"nope\" is not a configured model"},
		{"command timeout without a unit", "[[judges]]\nname = \"r\"\nkind = \"rules\"\n[[judges.checks]]\ntype = \"command\"\ncommand = [\"true\"]\ntimeout = \"10\"\n", "c.toml:7: judges[0].checks[0].timeout: "},
		{"command as a string", "[[judges]]\nname = \"r\"\nkind = \"rules\"\n[[judges.checks]]\ntype = \"command\"\ncommand = \"sh -c true\"\n", "c.toml:6: "},
		{"default schema invalid", "[[judges]]\nname = \"r\"\nkind = \"rules\"\n[[judges.checks]]\ntype = \"json_schema\"\nschema = '{\"type\": 5}'\n", "judges[0].checks[0].schema: invalid schema"},
		{"unknown default check", "[[judges]]\nname = \"r\"\nkind = \"rules\"\n[[judges.checks]]\ntype = \"sentiment\"\n", "c.toml:5: judges[0].checks[0].type: "},
		{"default check kinds", "[[judges]]\nname = \"r\"\nkind = \"rules\"\n[[judges.checks]]\ntype = \"is_json\"\nkinds = [\"rare\"]\n", "c.toml:6: judges[0].checks[0].kinds: "},
		{"default check dimension", "[[judges]]\nname = \"r\"\nkind = \"rules\"\n[[judges.checks]]\ntype = \"is_json\"\ndimension = \"vibes\"\n", "c.toml:6: judges[0].checks[0].dimension: "},
		{"checks on an llm judge", "[[models]]\nname = \"m\"\nprovider = \"sim\"\n[[judges]]\nname = \"j\"\nkind = \"llm\"\nmodel = \"m\"\n[[judges.checks]]\ntype = \"is_json\"\n", "c.toml:8: judges[0].checks[0]: "},
		{"negative max_failures", "[[models]]\nname = \"m\"\nprovider = \"sim\"\n[[judges]]\nname = \"j\"\nkind = \"llm\"\nmodel = \"m\"\nmax_failures = -1\n", "c.toml:8: judges[0].max_failures: "},
		{"max_failures on a rules judge", "[[judges]]\nname = \"r\"\nkind = \"rules\"\nmax_failures = 2\n", "c.toml:4: judges[0].max_failures: "},
		{"dimension named verdict", "dimensions = [\"Verdict\"]\n[[models]]\nname = \"m\"\nprovider = \"sim\"\n[[judges]]\nname = \"j\"\nkind = \"llm\"\nmodel = \"m\"\nper_dimension = true\n", "c.toml:9: judges[0].per_dimension: the dimension \"Verdict\""},
		{"per_dimension on a rules judge", "[[judges]]\nname = \"r\"\nkind = \"rules\"\nuse_reference = true\nper_dimension = true\n", "c.toml:5: judges[0].per_dimension: "},
		{"duplicate judge", "[[judges]]\nname = \"r\"\nkind = \"rules\"\n[[judges]]\nname = \"r\"\nkind = \"rules\"\n", "c.toml:5: judges[1].name: "},
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

func TestExampleJudgingMatchesDefaults(t *testing.T) {
	// The example documents the defaults: a drift between the two would
	// mislead whoever copies it.
	cfg, err := config.Load(filepath.Join("..", "config.example.toml"))
	if err != nil {
		t.Fatal(err)
	}
	want := config.DefaultJudging()
	want.Runs = []string{} // the example spells "every run" as []
	if !reflect.DeepEqual(cfg.Judging, want) {
		t.Fatalf("example [judging] = %+v\nwant the defaults %+v", cfg.Judging, want)
	}
	custom, err := config.Parse([]byte("[judging]\nsource = \"stored\"\nruns = [\"nightly\"]\nreveal = \"after_session\"\npace = \"instant\"\ndisplay_delay = \"1s\"\ndisplay_rate = 50.0\nvote_opens = \"partial\"\nvote_open_chars = 100\n[judging.open]\nenabled = true\nquota = 20\n"), "c.toml")
	if err != nil {
		t.Fatal(err)
	}
	j := custom.Judging
	if j.Source != "stored" || j.Runs[0] != "nightly" || j.Reveal != "after_session" || j.Pace != "instant" ||
		j.DisplayDelay.Seconds() != 1 || j.DisplayRate != 50 || j.VoteOpens != "partial" || j.VoteOpenChars != 100 || !j.Open.Enabled || j.Open.Quota != 20 {
		t.Fatalf("judging = %+v", j)
	}
	if j.PingInterval != config.DefaultJudging().PingInterval {
		t.Fatalf("unset keys must keep their defaults: %+v", j)
	}
}

func TestJudgeDefaultChecks(t *testing.T) {
	src := `
[[judges]]
name = "strict"
kind = "rules"
prompt_file = "ignored-for-rules.txt"

[[judges.checks]]
type = "max_cost_usd"
value = 0.002
weight = 2

[[judges.checks]]
type = "json_schema"
schema = { type = "object", required = ["total"] }
dimension = "format_compliance"
kinds = ["typical", "edge"]

[[judges.checks]]
type = "is-json"
`
	cfg, err := config.Parse([]byte(src), filepath.Join("conf", "c.toml"))
	if err != nil {
		t.Fatal(err)
	}
	j := cfg.Judges[0]
	if j.PromptFile != filepath.Join("conf", "ignored-for-rules.txt") {
		t.Fatalf("prompt_file = %q, want it relative to the config", j.PromptFile)
	}
	dcs, err := j.DefaultChecks()
	if err != nil || len(dcs) != 3 {
		t.Fatalf("DefaultChecks = %+v, %v", dcs, err)
	}
	if string(dcs[0].Value) != "0.002" || dcs[0].Weight != 2 {
		t.Fatalf("cost check = %+v", dcs[0])
	}
	if string(dcs[1].Schema) != `{"required":["total"],"type":"object"}` || dcs[1].Kinds[1] != "edge" || dcs[1].Dimension != "format_compliance" {
		t.Fatalf("schema check = %+v (%s)", dcs[1], dcs[1].Schema)
	}
	if dcs[2].Type != "is-json" || dcs[2].Value != nil {
		t.Fatalf("is-json check = %+v", dcs[2])
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := config.Load(filepath.Join(t.TempDir(), "nope.toml"))
	if ringside.ErrorCode(err) != ringside.EINVALID || !strings.Contains(err.Error(), "nope.toml") {
		t.Fatalf("err = %v", err)
	}
}

func TestLLMJudgePerDimension(t *testing.T) {
	src := "dimensions = [\"format_compliance\", \"tone\"]\n[[models]]\nname = \"m\"\nprovider = \"sim\"\n" +
		"[[judges]]\nname = \"j\"\nkind = \"llm\"\nmodel = \"m\"\nper_dimension = true\n" +
		"[[judges]]\nname = \"plain\"\nkind = \"llm\"\nmodel = \"m\"\n"
	cfg, err := config.Parse([]byte(src), "c.toml")
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Judges[0].PerDimension || cfg.Judges[1].PerDimension {
		t.Fatalf("per_dimension = %v, %v; want true, then the default false", cfg.Judges[0].PerDimension, cfg.Judges[1].PerDimension)
	}
}

func TestTrustSettings(t *testing.T) {
	cfg, err := config.Load(filepath.Join("..", "config.example.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Trust != config.DefaultTrust() || cfg.Trust.Thresholds() != trust.Defaults {
		t.Fatalf("example [trust] = %+v, want the defaults %+v", cfg.Trust, trust.Defaults)
	}
	custom, err := config.Parse([]byte("[trust]\nmin_gold_accuracy = 0.8\nposition_min_votes = 50\n"), "c.toml")
	if err != nil {
		t.Fatal(err)
	}
	if th := custom.Trust.Thresholds(); th.MinGoldAccuracy != 0.8 || th.PositionMinVotes != 50 || th.PositionP != trust.Defaults.PositionP {
		t.Fatalf("thresholds = %+v", th)
	}
	for src, want := range map[string]string{
		"\n[trust]\nmin_gold_accuracy = 1.5\n":            "c.toml:3: trust.min_gold_accuracy",
		"[trust]\nposition_min_votes = 0\n":               "c.toml:2: trust.position_min_votes",
		"[trust]\nimprobable_alpha = -0.1\n":              "c.toml:2: trust.improbable_alpha",
		"[trust]\nread_seconds = 2.0\n":                   "c.toml:2: trust.read_seconds: unknown key",
		"[judging]\nsource = \"live\"\ngold_rate = 2.0\n": "c.toml:3: judging.gold_rate",
	} {
		_, err := config.Parse([]byte(src), "c.toml")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", src, err, want)
		}
	}
}
