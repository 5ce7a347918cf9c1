package battlefile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/ringside-eval/ringside"
)

// readAll reads a battle file into copies of its records, with line numbers.
func readAll(t *testing.T, input string) ([]Record, []int, error) {
	t.Helper()
	var recs []Record
	var lines []int
	err := Read(strings.NewReader(input), "battles.jsonl", func(line int, r *Record) error {
		recs = append(recs, *r)
		lines = append(lines, line)
		return nil
	})
	return recs, lines, err
}

// bothWays runs a test under sequential and parallel reading.
func bothWays(t *testing.T, fn func(t *testing.T)) {
	for _, procs := range []int{1, 2} {
		t.Run(fmt.Sprintf("procs=%d", procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			fn(t)
		})
	}
}

func TestReadArenaRecords(t *testing.T) {
	input := "\ufeff" + `{"model_a": "m1", "model_b": "m2", "winner": "model_a", "judge": "human:7f3c", "question_id": "refund-001", "tstamp": 1733150000.5, "turn": 1, "anony": true}
{"model_a":"m2","model_b":"m3","winner":"both_bad","question_id":17,"conversation_a":[{"role":"user","content":"hi"}],"language":"English"}` + "\r\n" + `

   
{"model_a": "m3", "model_b": "m1", "winner": "tie (bothbad)", "anony": false}
{"model_a": "m1", "model_b": "m3", "winner": "b", "category": "refunds", "kind": "edge", "tags": ["billing", "long"], "dimensions": {"format_compliance": "model_a", "factual_accuracy": "tie"}, "latency_ms_a": 812.5, "ttft_ms_b": 0, "cost_usd_a": 0.0012, "tokens_out_b": 0, "error_a": "timeout", "sample": 2, "identity_leak": true, "battle_id": "b-1"}`
	bothWays(t, func(t *testing.T) {
		recs, lines, err := readAll(t, input)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(lines, []int{1, 2, 6, 7}) {
			t.Errorf("lines %v, want [1 2 6 7]", lines)
		}
		r := recs[0]
		if r.ModelA != "m1" || r.ModelB != "m2" || r.Winner != ringside.WinnerA || r.Judge != "human:7f3c" ||
			r.QuestionID != "refund-001" || r.Tstamp != 1733150000.5 || r.Turn != 1 || r.Anony == nil || !*r.Anony {
			t.Errorf("record 1: %+v", r)
		}
		r = recs[1]
		if r.Winner != ringside.WinnerBothBad || r.QuestionID != "17" || !r.questionIDNumber || r.Anony != nil {
			t.Errorf("record 2: %+v", r)
		}
		if string(r.Extra["conversation_a"]) != `[{"role":"user","content":"hi"}]` || string(r.Extra["language"]) != `"English"` {
			t.Errorf("record 2 extra: %q", r.Extra)
		}
		if r := recs[2]; r.Winner != ringside.WinnerBothBad || r.Anony == nil || *r.Anony {
			t.Errorf("record 3: %+v", r)
		}
		r = recs[3]
		want := map[string]ringside.Winner{"format_compliance": ringside.WinnerA, "factual_accuracy": ringside.WinnerTie}
		if r.Winner != ringside.WinnerB || r.Category != "refunds" || r.Kind != "edge" || !reflect.DeepEqual(r.Tags, []string{"billing", "long"}) ||
			!reflect.DeepEqual(r.Dimensions, want) || *r.LatencyMsA != 812.5 || r.LatencyMsB != nil || *r.TTFTMsB != 0 ||
			*r.CostUSDA != 0.0012 || *r.TokensOutB != 0 || r.TokensOutA != nil || r.ErrorA != "timeout" || r.Sample != 2 ||
			!r.IdentityLeak || r.BattleID != "b-1" {
			t.Errorf("record 4: %+v", r)
		}
	})
}

// Errors name the file, the line and the field, and are ringside.EINVALID.
func TestReadBattleErrors(t *testing.T) {
	good := `{"model_a": "m1", "model_b": "m2", "winner": "model_a"}` + "\n"
	for _, tc := range []struct {
		line string
		want string
	}{
		{`{"model_a": "m1", "model_b": "m2", "winner": "x"}`, `battles.jsonl:3: winner: "x" is not one of model_a, model_b, tie, tie (bothbad), both_bad`},
		{`{"model_b": "m2", "winner": "tie"}`, `battles.jsonl:3: model_a: required`},
		{`{"model_a": "m1", "winner": "tie"}`, `battles.jsonl:3: model_b: required`},
		{`{"model_a": "m1", "model_b": "m2"}`, `battles.jsonl:3: winner: required`},
		{`{"model_a": "m1", "model_b": "m1", "winner": "tie"}`, `battles.jsonl:3: model_b: a battle needs two different models (both are "m1")`},
		{`{"model_a": 7, "model_b": "m2", "winner": "tie"}`, `battles.jsonl:3: model_a: must be a string`},
		{`{"model_a": "m1", "model_b": "m2", "winner": "tie", "turn": "one"}`, `battles.jsonl:3: turn: must be a number`},
		{`{"model_a": "m1", "model_b": "m2", "winner": "tie", "turn": 1.5}`, `battles.jsonl:3: turn: must be a whole number (is 1.5)`},
		{`{"model_a": "m1", "model_b": "m2", "winner": "tie", "anony": "yes"}`, `battles.jsonl:3: anony: must be true or false`},
		{`{"model_a": "m1", "model_b": "m2", "winner": "tie", "kind": "weird"}`, `battles.jsonl:3: kind: "weird" is not one of typical, edge, adversarial`},
		{`{"model_a": "m1", "model_b": "m2", "winner": "tie", "tags": "billing"}`, `battles.jsonl:3: tags: must be a list of strings`},
		{`{"model_a": "m1", "model_b": "m2", "winner": "tie", "dimensions": {"format": "left"}}`, `battles.jsonl:3: dimensions.format: "left" is not one of model_a, model_b, tie, tie (bothbad), both_bad`},
		{`{"model_a": "m1", "model_b": "m2", "winner": "tie", "cost_usd_a": -1}`, `battles.jsonl:3: cost_usd_a: must not be negative`},
		{`{"model_a": "m1", "model_b": "m2", "winner": "tie", "question_id": true}`, `battles.jsonl:3: question_id: must be a string or a number`},
		{`{"model_a": "m1", "model_b": "m2", "winner": "tie"`, `battles.jsonl:3: invalid JSON: the line ends inside the battle object`},
		{`{"model_a": "m1", "model_b": "m2", "winner": "tie", "extra": [1, }`, `battles.jsonl:3: extra: invalid JSON`},
		{`["model_a"]`, `battles.jsonl:3: a battle must be a JSON object`},
		{`{"model_a": "m1", "model_b": "m2", "winner": "tie"} {}`, `battles.jsonl:3: invalid JSON: data after the battle object`},
		// Text that decoding would quietly change is refused, wherever it is.
		{"{\"model_a\": \"m\xff1\", \"model_b\": \"m2\", \"winner\": \"tie\"}", `battles.jsonl:3: model_a: not valid UTF-8`},
		{`{"model_a": "m1", "model_b": "m2", "winner": "tie", "language": "Engl` + "\xc3" + `"}`, `battles.jsonl:3: language: not valid UTF-8`},
		{`{"model_a": "m\ud800", "model_b": "m2", "winner": "tie"}`, `battles.jsonl:3: model_a: \ud800 is half of a UTF-16 surrogate pair, without its second half`},
		{`{"model_a": "m1", "model_b": "m2", "winner": "tie", "conversation_a": [{"role": "user", "content": "x \uDC00"}]}`,
			`battles.jsonl:3: conversation_a[0].content: \udc00 is half of a UTF-16 surrogate pair, without its first half`},
	} {
		bothWays(t, func(t *testing.T) {
			recs, _, err := readAll(t, good+"\n"+tc.line+"\n"+good)
			if ringside.ErrorCode(err) != ringside.EINVALID {
				t.Fatalf("%s: err %v, want ringside.EINVALID", tc.line, err)
			}
			if got := ringside.ErrorMessage(err); !strings.HasPrefix(got, tc.want) {
				t.Errorf("%s:\n got %s\nwant %s", tc.line, got, tc.want)
			}
			if len(recs) != 1 {
				t.Errorf("%s: %d records before the error, want 1", tc.line, len(recs))
			}
		})
	}
}

// An error returned by the callback stops the reading; an ringside.EINVALID one gets
// the line, others come back as they are.
func TestReadBattleKeepsSurrogatePairs(t *testing.T) {
	recs, _, err := readAll(t, `{"model_a": "m1", "model_b": "m2", "winner": "tie", "question_id": "smile \ud83d\ude00"}`+"\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].QuestionID != "smile 😀" {
		t.Fatalf("records %+v, want one with the emoji", recs)
	}
}

func TestReadBattleCallbackError(t *testing.T) {
	input := strings.Repeat(`{"model_a": "m1", "model_b": "m2", "winner": "model_a"}`+"\n", 5000)
	bothWays(t, func(t *testing.T) {
		calls := 0
		err := Read(strings.NewReader(input), "f", func(line int, r *Record) error {
			if calls++; line == 4321 {
				return ringside.FieldError("model_a", "unknown model")
			}
			return nil
		})
		if got := ringside.ErrorMessage(err); got != "f:4321: model_a: unknown model" || calls != 4321 {
			t.Errorf("err %q after %d calls", got, calls)
		}
		stop := errors.New("stop")
		err = Read(strings.NewReader(input), "f", func(line int, r *Record) error { return stop })
		if err != stop {
			t.Errorf("err %v, want the callback's", err)
		}
	})
}

// Lines of many megabytes (whole conversations embedded) are read, and the
// line numbers after them stay right.
func TestReadLongLines(t *testing.T) {
	big := strings.Repeat("x", 5<<20)
	var b strings.Builder
	for i := 0; i < 3; i++ {
		fmt.Fprintf(&b, `{"model_a": "m1", "model_b": "m2", "winner": "tie", "conversation_a": "%s"}`+"\n", big)
		b.WriteString(`{"model_a": "m1", "model_b": "m2", "winner": "model_b"}` + "\n")
	}
	b.WriteString(`{"model_a": "m1", "model_b": "m2", "winner": "nope"}`)
	bothWays(t, func(t *testing.T) {
		recs, lines, err := readAll(t, b.String())
		if len(recs) != 6 || len(recs[4].Extra["conversation_a"]) != len(big)+2 || lines[5] != 6 {
			t.Fatalf("%d records, lines %v", len(recs), lines)
		}
		if !strings.HasPrefix(ringside.ErrorMessage(err), "battles.jsonl:7: winner:") {
			t.Errorf("err %v", err)
		}
		br := NewReader(strings.NewReader(b.String()), "f")
		br.MaxLineBytes = 1 << 20
		if _, err := br.Next(); !strings.Contains(ringside.ErrorMessage(err), "f:1: line longer than") {
			t.Errorf("limit: %v", err)
		}
	})
}

// The scanner and encoding/json decode every line alike.
func TestFastAndSlowPathsAgree(t *testing.T) {
	lines := []string{
		`{"model_a": "m1", "model_b": "m2", "winner": "model_a", "judge": "human:7f3c", "question_id": "q", "tstamp": 1.5e9, "turn": 1, "anony": true}`,
		`{"model_a":"m\u00e9","model_b":"m\"2\"","winner":"tie","question_id":-3.25e2,"x":{"a":[1,2,{"b":"]"}]},"y":null}`,
		`{ "winner" : "model_b" , "model_b" : "é", "model_a" : "ü\\" , "tags":[] , "dimensions":{}}`,
		`{"model_a": "m1", "model_b": "m2", "winner": "tie", "winner": "model_b", "z": 1, "z": 2}`,
		`{"model_a": "m1", "model_b": "m2", "winner": " tie ", "turn": 2.0, "sample": null, "anony": null, "tags": null}`,
		`{"model_a": "m1", "model_b": "m2", "winner": "a", "latency_ms_a": 1e3, "tokens_out_a": 12, "dimensions": {"d\u0031": "b"}}`,
		"{\"model_a\": \"m\xff1\", \"model_b\": \"m2\", \"winner\": \"tie\"}",
		`{"model_a": "m1", "model_b": "m2", "winner": "tie", "t\u0061gs": ["k"]}`,
	}
	for _, line := range lines {
		var fast, slow Record
		d := *newDecoder()
		if !d.decodeFast([]byte(line), &fast) {
			t.Errorf("fast path refused %s", line)
			continue
		}
		if err := d.decodeSlow([]byte(line), &slow); err != nil {
			t.Errorf("slow path: %v on %s", err, line)
			continue
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Errorf("%s:\nfast %+v\nslow %+v", line, fast, slow)
		}
	}
}

// Fuzz the two decoding paths against each other.
func FuzzBattleDecode(f *testing.F) {
	f.Add(`{"model_a": "m1", "model_b": "m2", "winner": "model_a", "question_id": 3, "tags": ["a"]}`)
	f.Add(`{"model_a": "m1", "model_b": "m2", "winner": "tie", "x": [1, {"y": "\"}"}]}`)
	f.Fuzz(func(t *testing.T, line string) {
		var fast, slow Record
		d := *newDecoder()
		ok := d.decodeFast([]byte(line), &fast)
		err := d.decodeSlow([]byte(line), &slow)
		if ok && err != nil {
			t.Fatalf("fast accepted what slow refused (%v): %q", err, line)
		}
		if ok && !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%q:\nfast %+v\nslow %+v", line, fast, slow)
		}
	})
}

// Records written and read back are the same, unknown fields included; the
// writer uses the arena spelling.
func TestWriteRoundTrip(t *testing.T) {
	input := `{"model_a":"m2","model_b":"m3","winner":"both_bad","question_id":17,"conversation_a":[{"role":"user","content":"hi\nthere"}],"language":"English"}
{"model_a": "m1", "model_b": "m3", "winner": "b", "judge": "llm:gpt", "tstamp": 1733150000.25, "turn": 2, "anony": false, "category": "refunds", "kind": "edge", "tags": ["billing"], "dimensions": {"format_compliance": "a"}, "latency_ms_a": 812.5, "ttft_ms_b": 0, "cost_usd_a": 1e-7, "tokens_out_b": 0, "error_a": "timeout", "sample": 2, "identity_leak": true, "battle_id": "b-1", "question_id": "q\u00e9<&>"}
`
	recs, _, err := readAll(t, input)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for i := range recs {
		if err := w.Write(&recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	wantFirst := `{"model_a":"m2","model_b":"m3","winner":"tie (bothbad)","question_id":17,"conversation_a":[{"role":"user","content":"hi\nthere"}],"language":"English"}`
	if first := strings.SplitN(out, "\n", 2)[0]; first != wantFirst {
		t.Errorf("first line\n got %s\nwant %s", first, wantFirst)
	}
	for _, want := range []string{`"winner":"model_b"`, `"dimensions":{"format_compliance":"model_a"}`, `"cost_usd_a":1e-7`,
		`"ttft_ms_b":0`, `"anony":false`, `"question_id":"qé<&>"`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
	}
	back, _, err := readAll(t, out)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, recs) {
		t.Errorf("round trip:\n got %+v\nwant %+v", back, recs)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("invalid JSON line %s", line)
		}
	}
	if err := w.Write(&Record{ModelA: "a", ModelB: "b", Winner: "x"}); ringside.ErrorCode(err) != ringside.EINVALID {
		t.Errorf("invalid winner written: %v", err)
	}
}

func TestAppendJSONStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{"plain", "quote\" back\\ nl\n tab\t cr\r", "\x00\x1f", "é ü 漢", "\u2028\u2029", "bad \xff utf8"} {
		want, _ := json.Marshal(s)
		want = bytes.ReplaceAll(want, []byte(`\u003c`), []byte("<"))
		if got := appendJSONString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("%q: got %s, want %s", s, got, want)
		}
	}
	for _, f := range []float64{0, 1, -2.5, 1733150000.5, 1e-7, 1e21, 123456789012345680000} {
		want, _ := json.Marshal(f)
		if got := appendJSONFloat(nil, f); !bytes.Equal(got, want) {
			t.Errorf("%g: got %s, want %s", f, got, want)
		}
	}
}

// A reader that fails mid-file reports the failure, not a bad line.
func TestReadIOError(t *testing.T) {
	boom := errors.New("disk gone")
	bothWays(t, func(t *testing.T) {
		r := io.MultiReader(strings.NewReader(`{"model_a": "m1", "model_b": "m2", "winner": "tie"}`+"\n"), errReader{boom})
		err := Read(r, "f", func(int, *Record) error { return nil })
		if !errors.Is(err, boom) {
			t.Errorf("err %v, want %v", err, boom)
		}
	})
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
