package config_test

import (
	"strings"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
)

func TestChatKeys(t *testing.T) {
	models := "[[models]]\nname = \"a\"\nprovider = \"sim\"\n[[models]]\nname = \"b\"\nprovider = \"sim\"\n"
	for _, tc := range []struct{ src, want string }{
		{"[judging]\nsource = \"chat\"\nsources = {live = 1, cache = 2}\n", "judging.sources: \"cache\" is not one of live, stored, chat"},
		{"[judging]\nsources = {chat = 0.0}\n", "judging.sources: the weight of \"chat\" must be positive"},
		{"[judging]\nchat_set = \" \"\n", "c.toml:2: judging.chat_set: required"},
		{"[judging.chat]\nmax_turns = 0\n", "c.toml:2: judging.chat.max_turns: must be at least 1"},
		{"[judging.chat]\nmax_prompt_chars = 0\n", "c.toml:2: judging.chat.max_prompt_chars: must be at least 1"},
		{"[[judging.chat.reject]]\npattern = \"(\"\nreason = \"x\"\n", "judging.chat.reject[0].pattern: not a regular expression"},
		{"[[judging.chat.reject]]\npattern = \"x\"\n", "judging.chat.reject[0].reason: required"},
		{"[[judging.chat.categories]]\nname = \"code\"\n", "judging.chat.categories[0]: give keywords or a pattern"},
		{"[[judging.chat.categories]]\nname = \"code\"\nkeywords = [\"\"]\n", "judging.chat.categories[0].keywords: an empty keyword"},
		{"[[judging.chat.categories]]\nkeywords = [\"sql\"]\n", "judging.chat.categories[0].name: required"},
		{models + "[judging]\nmodels = [\"a\", \"c\"]\n", "judging.models: \"c\" is not a configured model"},
		{models + "[judging]\nweights = {a = -1.0}\n", "judging.weights: the weight of \"a\" must be positive"},
	} {
		_, err := config.Parse([]byte(tc.src), "c.toml")
		if ringside.ErrorCode(err) != ringside.EINVALID || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.src, err, tc.want)
		}
	}
	cfg, err := config.Parse([]byte("[judging]\nsources = {live = 3.0, chat = 1.0}\n[[judging.chat.categories]]\nname = \"code\"\nkeywords = [\"SQL\", \"c++\"]\n"), "c.toml")
	if err != nil {
		t.Fatal(err)
	}
	if w := cfg.Judging.SourceWeights(); w["live"] != 3 || w["chat"] != 1 || !cfg.Judging.UsesSource("chat") {
		t.Fatalf("source weights %v", w)
	}
	re, err := cfg.Judging.Chat.Categories[0].Regexp()
	if err != nil || !re.MatchString("a slow sql query") || !re.MatchString("C++ templates") || re.MatchString("sqlite") {
		t.Fatalf("category rule %v, %v", re, err)
	}
}

// The candidates dealt to people: judging.models, else run.models, else
// the models no [[judges]] entry uses.
func TestJudgingPool(t *testing.T) {
	cfg := config.Defaults()
	cfg.Models = []ringside.Model{{Name: "m2"}, {Name: "grader"}, {Name: "m1"}}
	cfg.Judges = []config.Judge{{Name: "llm", Kind: "llm", Model: "grader"}, {Name: "rules", Kind: "rules"}}
	if got := strings.Join(cfg.JudgingPool(), ","); got != "m1,m2" {
		t.Fatalf("pool without lists = %s", got)
	}
	cfg.Run.Models = []string{"grader", "m1"}
	if got := strings.Join(cfg.JudgingPool(), ","); got != "grader,m1" {
		t.Fatalf("pool from run.models = %s", got)
	}
	cfg.Judging.Models = []string{"m2", "m1"}
	cfg.Run.Weights = map[string]float64{"m1": 2, "m2": 5}
	cfg.Judging.Weights = map[string]float64{"m2": 3}
	if got := strings.Join(cfg.JudgingPool(), ","); got != "m1,m2" {
		t.Fatalf("pool from judging.models = %s", got)
	}
	if w := cfg.JudgingWeights(); w["m1"] != 2 || w["m2"] != 3 {
		t.Fatalf("weights %v: judging.weights over run.weights", w)
	}
}
