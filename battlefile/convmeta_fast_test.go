package battlefile

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
)

var convCases = []string{
	`{}`,
	` { } `,
	`{"sum_assistant_a_tokens": 479, "sum_assistant_b_tokens": 783}`,
	`{"sum_assistant_a_tokens": 479, "header_count_a": {"h1": 0, "h2": 2, "h3": 0}, "list_count_a": {"ordered": 3, "unordered": 1}, "bold_count_a": {"**": 4, "__": 1},
	  "sum_assistant_b_tokens": 7.5e2, "header_count_b": {}, "list_count_b": {"ordered": 2}, "bold_count_b": {"**": 2, "__": 0}, "turns": 1, "sum_user_tokens": 12}`,
	`{"sum_assistant_a_tokens": null, "sum_assistant_b_tokens": 3}`,
	`{"sum_assistant_a_tokens": -0.5, "sum_assistant_b_tokens": 1E+2}`,
	`{"sum_assistant_a_tokens": 1, "sum_assistant_a_tokens": 4}`,
	`{"Sum_Assistant_A_Tokens": 9, "sum_assistant_b_tokens": 3}`,
	`{"header_count_a": {"h1": 1, "h1": 2}, "header_count_b": {"h1": 1}}`,
	`{"sum_assistant_a_tokens": 01}`,
	`{"sum_assistant_a_tokens": "12"}`,
	`{"sum_assistant_a_tokens": 1e999}`,
	`{"sum_assistant_a_tokens": 1,}`,
	`{"sum_assistant_a_tokens": 1} x`,
	`{"sum_assistant_\u0061_tokens": 5}`,
	`{"header_count_a": {"h1": null}}`,
	`{"header_count_a": [1, 2]}`,
	`{"other": "text", "sum_assistant_a_tokens": 2}`,
	`{"sum_assistant_a_tokens": .5}`,
	`{"sum_assistant_a_tokens": 5.}`,
	`{"sum_assistant_a_tokens": -}`,
	`{"sum_assistant_a_tokens" 5}`,
	`[1]`,
}

// checkConvCounts: whatever the fast path accepts, encoding/json reads
// alike; and the fast path accepts FastChat's usual form.
func checkConvCounts(t *testing.T, raw string) {
	fast, ok := fastConvCounts([]byte(raw))
	if !ok {
		return
	}
	slow, err := decodeConvCounts([]byte(raw))
	if err != nil {
		t.Fatalf("%s: the fast path read %v, encoding/json failed: %v", raw, fast, err)
	}
	if fast != slow {
		t.Fatalf("%s: fast %v, encoding/json %v", raw, fast, slow)
	}
}

func TestFastConvCounts(t *testing.T) {
	for _, raw := range convCases {
		checkConvCounts(t, raw)
	}
	for _, raw := range convCases[:6] {
		if _, ok := fastConvCounts([]byte(raw)); !ok {
			t.Errorf("%s: the fast path declined FastChat's form", raw)
		}
	}
	for _, raw := range convCases[6:] {
		if _, ok := fastConvCounts([]byte(raw)); ok {
			t.Errorf("%s: the fast path accepted what it should leave to encoding/json", raw)
		}
	}
	r := &Record{Extra: map[string]json.RawMessage{"conv_metadata": json.RawMessage(convCases[3])}}
	tok, head, lists, bold, err := r.StyleCounts()
	if err != nil || tok != (StyleCount{479, 750, true}) || head != (StyleCount{2, 0, true}) || lists != (StyleCount{4, 2, true}) || bold != (StyleCount{5, 2, true}) {
		t.Fatalf("StyleCounts = %v %v %v %v, %v", tok, head, lists, bold, err)
	}
}

func FuzzFastConvCounts(f *testing.F) {
	for _, raw := range convCases {
		f.Add(raw)
	}
	f.Fuzz(checkConvCounts)
}

// ReadStyled parses conv_metadata while decoding, in parallel or not, and
// StyleCounts then gives what it gives from the raw field (Read), errors
// included.
func TestReadStyled(t *testing.T) {
	var file strings.Builder
	var cases []string
	for _, raw := range append(convCases, "") {
		raw = strings.ReplaceAll(raw, "\n", " ") // one line each
		if raw != "" && !json.Valid([]byte(raw)) {
			continue
		}
		cases = append(cases, raw)
		file.WriteString(`{"model_a": "a", "model_b": "b", "winner": "tie"`)
		if raw != "" {
			file.WriteString(`, "conv_metadata": ` + raw)
		}
		file.WriteString("}\n")
	}
	counts := func(rec *Record) string {
		tok, head, lists, bold, err := rec.StyleCounts()
		return fmt.Sprint(tok, head, lists, bold, err)
	}
	var want []string
	if err := Read(strings.NewReader(file.String()), "f", func(_ int, rec *Record) error {
		want = append(want, counts(rec))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	check := func(how string, line int, rec *Record) {
		t.Helper()
		if got := counts(rec); got != want[line-1] {
			t.Errorf("%s, %s: %s, Read's %s", how, cases[line-1], got, want[line-1])
		}
		if _, fast := fastConvCounts([]byte(cases[line-1])); rec.convReady != fast {
			t.Errorf("%s, %s: parsed ahead %v", how, cases[line-1], rec.convReady)
		}
	}
	n := 0
	if err := ReadStyled(strings.NewReader(file.String()), "f", func(line int, rec *Record) error {
		n++
		check("ReadStyled", line, rec)
		return nil
	}); err != nil || n != len(cases) {
		t.Fatalf("ReadStyled: %d records, %v", n, err)
	}
	r := NewReader(strings.NewReader(file.String()), "f")
	r.style = true
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		check("Next", r.Line(), rec)
	}
}
