package ringside_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
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

func TestReadPromptsInputHygiene(t *testing.T) {
	good := `{"id": "ok", "prompt": "fine"}`
	for _, tc := range []struct {
		name, line, want string
	}{
		{"invalid UTF-8", "{\"id\": \"x\", \"prompt\": \"caf\xe9\"}", "f.jsonl:3: prompt: not valid UTF-8"},
		{"invalid UTF-8 in a message", "{\"id\": \"x\", \"messages\": [{\"role\": \"user\", \"content\": \"a\"}, {\"role\": \"assistant\", \"content\": \"\xff\"}, {\"role\": \"user\", \"content\": \"b\"}]}", "f.jsonl:3: messages[1].content: not valid UTF-8"},
		{"lone high surrogate", `{"id": "x", "prompt": "a\ud800b"}`, `f.jsonl:3: prompt: \ud800 is half of a UTF-16 surrogate pair`},
		{"lone low surrogate", `{"id": "x", "prompt": "a", "tags": ["ok", "\udc00"]}`, `f.jsonl:3: tags[1]: \udc00 is half`},
		{"high surrogate then not low", `{"id": "x", "prompt": "\ud800\u0041"}`, `f.jsonl:3: prompt: \ud800 is half`},
		{"surrogate in a key", `{"id": "x", "prompt": "a", "\ud800": 1}`, `f.jsonl:3: the key`},
		{"no Go type for messages", `{"id": "x", "messages": "hi"}`, "f.jsonl:3: messages: want an array of messages, got a string"},
		{"no Go type for tags", `{"id": "x", "prompt": "a", "tags": [1]}`, "f.jsonl:3: tags"},
		{"no Go type for a line", `[1, 2]`, "f.jsonl:3: want an object (a promptline), got an array"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ringside.ReadPrompts(strings.NewReader(good+"\n\n"+tc.line+"\n"), "f.jsonl")
			if ringside.ErrorCode(err) != ringside.EINVALID || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
			for _, goType := range []string{"ringside.", "[]", "int64", "float64"} {
				if strings.Contains(err.Error(), goType) {
					t.Fatalf("err = %v names the Go type %s", err, goType)
				}
			}
		})
	}
}

func TestReadPromptsValidSurrogatePairAndBOM(t *testing.T) {
	in := "\ufeff" + `{"id": "emoji", "prompt": "\ud83d\ude00 \\ud800 is text"}` + "\n"
	ps, err := ringside.ReadPrompts(strings.NewReader(in), "f.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if got := ps[0].Messages[0].Content; got != "😀 \\ud800 is text" {
		t.Fatalf("content = %q", got)
	}
}

func TestReadPromptsCheckedNamesTheLine(t *testing.T) {
	in := `{"id": "a", "prompt": "x"}` + "\n" + `{"id": "b", "prompt": "y"}` + "\n"
	_, err := ringside.ReadPromptsChecked(strings.NewReader(in), "f.jsonl", func(p *ringside.Prompt) error {
		if p.ID == "b" {
			return ringside.Errorf(ringside.EINVALID, "prompt %s: checks[0] (regex): bad", p.ID)
		}
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "f.jsonl:2: prompt b: checks[0] (regex): bad") {
		t.Fatalf("err = %v", err)
	}
}

// FuzzReadPrompts: any input is read or refused with a line; what is read
// validates and reads back the same when written out again.
func FuzzReadPrompts(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("examples", "prompts.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		f.Add(line)
	}
	f.Add("\ufeff" + `{"id": "x", "prompt": "\ud83d\ude00", "tags": []}`)
	f.Add(`{"id": "x", "messages": [{"role": "user", "content": "a\ud800"}]}`)
	f.Add(`{"id": "x", "prompt": "a", "checks": [{"type": "regex", "pattern": "(x", "value": 3}]}`)
	lineRE := regexp.MustCompile(`^f\.jsonl(:\d+)?: `)
	f.Fuzz(func(t *testing.T, in string) {
		prompts, err := ringside.ReadPrompts(strings.NewReader(in), "f.jsonl")
		if err != nil {
			var re *ringside.Error
			if !errors.As(err, &re) || re.Code != ringside.EINVALID || !lineRE.MatchString(re.Message) {
				t.Fatalf("error %#v does not name the file and line", err)
			}
			if strings.Contains(re.Message, "ringside.") {
				t.Fatalf("error names a Go type: %v", err)
			}
			return
		}
		var out bytes.Buffer
		for i := range prompts {
			if err := prompts[i].Validate(); err != nil {
				t.Fatalf("prompt %d read but does not validate: %v", i, err)
			}
			line, err := json.Marshal(prompts[i])
			if err != nil {
				t.Fatal(err)
			}
			out.Write(line)
			out.WriteByte('\n')
		}
		again, err := ringside.ReadPrompts(bytes.NewReader(out.Bytes()), "f.jsonl")
		if err != nil {
			t.Fatalf("written prompts do not read back: %v\n%s", err, out.Bytes())
		}
		second, _ := json.Marshal(again)
		first, _ := json.Marshal(prompts)
		if !bytes.Equal(first, second) {
			t.Fatalf("round trip changed the prompts:\n%s\n%s", first, second)
		}
	})
}
