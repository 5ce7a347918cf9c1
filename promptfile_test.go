package ringside_test

import (
	"strings"
	"testing"

	"github.com/ringside-eval/ringside"
)

func TestReadPrompts(t *testing.T) {
	in := `{"id": "p1", "prompt": "Hello?", "category": "support", "tags": ["a"]}

{"id": "p2", "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}], "kind": "edge", "checks": [{"type": "is-json", "dimension": "format_compliance"}]}
`
	ps, err := ringside.ReadPrompts(strings.NewReader(in), "set.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 {
		t.Fatalf("got %d prompts, want 2", len(ps))
	}
	if got := ps[0].Messages; len(got) != 1 || got[0].Role != "user" || got[0].Content != "Hello?" {
		t.Errorf("shorthand prompt became %+v", got)
	}
	if ps[0].Kind != ringside.KindTypical {
		t.Errorf("default kind = %q, want typical", ps[0].Kind)
	}
	if ps[1].Checks[0].Type != "is_json" {
		t.Errorf("check type = %q, want the canonical is_json", ps[1].Checks[0].Type)
	}
}

func TestReadPromptsErrorsNameLineAndField(t *testing.T) {
	good := `{"id": "ok", "prompt": "fine"}`
	for _, tc := range []struct {
		name, line, want string
	}{
		{"bad kind", `{"id": "x", "prompt": "a", "kind": "weird"}`, "f.jsonl:3: kind: "},
		{"wrong type", `{"id": "x", "prompt": "a", "tags": "notalist"}`, "f.jsonl:3: tags: "},
		{"unknown field", `{"id": "x", "prompt": "a", "colour": "red"}`, "f.jsonl:3: colour: unknown field"},
		{"missing id", `{"prompt": "a"}`, "f.jsonl:3: id: required"},
		{"bad role", `{"id": "x", "messages": [{"role": "robot", "content": "a"}]}`, "f.jsonl:3: messages[0].role: "},
		{"last turn not user", `{"id": "x", "messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]}`, "f.jsonl:3: messages[1].role: "},
		{"unknown check", `{"id": "x", "prompt": "a", "checks": [{"type": "vibes"}]}`, "f.jsonl:3: checks[0].type: "},
		{"duplicate id", `{"id": "ok", "prompt": "again"}`, "f.jsonl:3: id: \"ok\" is already used on line 1"},
		{"broken json", `{"id": "x", "prompt": `, "f.jsonl:3: invalid JSON"},
		{"both forms", `{"id": "x", "prompt": "a", "messages": [{"role": "user", "content": "b"}]}`, "f.jsonl:3: prompt: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ringside.ReadPrompts(strings.NewReader(good+"\n\n"+tc.line+"\n"), "f.jsonl")
			if ringside.ErrorCode(err) != ringside.EINVALID {
				t.Fatalf("err = %v, want invalid", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %q, want it to contain %q", err, tc.want)
			}
		})
	}
}
