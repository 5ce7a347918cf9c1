package ringside_test

import (
	"testing"

	"github.com/ringside-eval/ringside"
)

func TestNamesAModel(t *testing.T) {
	models := []ringside.Model{{Name: "acme-large", ModelID: "acme-l-2"}, {Name: "zed", ModelID: "zed-7b"},
		{Name: "sim-breeze", ModelID: "gpt-4o"}, {Name: "q2", ModelID: "x"}}
	prompt := []ringside.Message{{Role: "system", Content: "Be brief."},
		{Role: "user", Content: "Compare ChatGPT with a spreadsheet."}}
	for _, tc := range []struct {
		out  string
		leak bool
	}{
		{"Refunds take a week.", false},
		// The battle's models, by name or provider id, in any case.
		{"I am Acme-Large, happy to help.", true},
		{"Served by zed-7b.", true},
		{"— SIM-BREEZE", true},
		{"As GPT-4o, I think", true},
		{"gpt-4o-mini says", true},
		// Vendors and products, whichever models are in the battle.
		{"As an AI developed by OpenAI, I cannot.", true},
		{"I'm Claude.", true},
		{"Built by Meta AI.", true},
		// A term ending in a digit matches with a suffix; a name is
		// followed by no letter.
		{"GPT-4o says hi.", true},
		{"a gpt-4o2 model", true},
		{"zed7 here", true},
		{"a sim-breezey day", false},
		// Whole words only.
		{"Our llamas graze; the bards sing; grokking takes time.", false},
		{"zedonk and pre-acme-large", true}, // '-' is not a letter: "acme-large" stands apart
		{"xzed and acme-largest", false},
		// Names shorter than three characters are not looked for.
		{"q2 of the year, x marks the spot", false},
		// The prompt says it, so the answer may.
		{"ChatGPT is a chatbot; a spreadsheet is not.", false},
	} {
		if got := ringside.NamesAModel(prompt, []string{tc.out}, models); got != tc.leak {
			t.Errorf("NamesAModel(%q) = %v, want %v", tc.out, got, tc.leak)
		}
	}
}

func TestNamesAModelLooksAtEveryOutput(t *testing.T) {
	models := []ringside.Model{{Name: "alpha"}, {Name: "beta"}}
	// Side a names side b's model: the judge learns who b is.
	if !ringside.NamesAModel(nil, []string{"Unlike Beta, I answer.", "ok"}, models) {
		t.Error("a name in the first output was missed")
	}
	if !ringside.NamesAModel(nil, []string{"ok", "alpha!"}, models) {
		t.Error("a name in the second output was missed")
	}
	if ringside.NamesAModel(nil, []string{"ok", "fine"}, models) {
		t.Error("flagged outputs that name nobody")
	}
	if ringside.NamesAModel([]ringside.Message{{Content: "Say ALPHA."}}, []string{"alpha"}, models) {
		t.Error("a name the prompt contains was counted")
	}
}
