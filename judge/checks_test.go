package judge_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/judge"
)

// check builds a ringside.Check from JSON, as a prompt file writes it.
func check(t *testing.T, js string) ringside.Check {
	t.Helper()
	var c ringside.Check
	if err := json.Unmarshal([]byte(js), &c); err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return c
}

func TestEveryCheckTypePassesAndFails(t *testing.T) {
	ok := &ringside.Generation{PromptID: "p", Model: "m", LatencyMs: 900, CostUSD: 0.0004}
	for _, tc := range []struct {
		check      string
		pass, fail string // outputs
	}{
		{`{"type":"contains","value":"refund"}`, "Your refund is on its way.", "Your Refund is on its way."},
		{`{"type":"icontains","value":"REFUND"}`, "your Refund is coming", "your money is coming"},
		{`{"type":"not_contains","value":"calm down"}`, "I understand.", "Please calm down."},
		{`{"type":"equals","value":"billing"}`, "  billing\n", "billing."},
		{`{"type":"starts_with","value":"SELECT"}`, "\nSELECT 1", "Here: SELECT 1"},
		{`{"type":"regex","pattern":"(?i)5\\s*-\\s*7 business days"}`, "within 5-7 Business Days", "within a week"},
		{`{"type":"regex","value":"^P[1-4]$"}`, "P2", "P5"},
		{`{"type":"is_json"}`, ` {"a": 1} `, "```json\n{\"a\": 1}\n```"},
		{`{"type":"json_schema","schema":{"type":"object","required":["total"],"properties":{"total":{"type":"number"}}}}`,
			`{"total": 702}`, `{"total": "702"}`},
		{`{"type":"min_chars","value":5}`, "héllo", "hé"},
		{`{"type":"max_chars","value":5}`, "  héllo  ", "héllo!"},
		{`{"type":"max_words","value":3}`, "one two\nthree", "one two three four"},
		{`{"type":"reference_match"}`, " Billing ", "billing"},
		{`{"type":"reference_match","value":"normalized"}`, "billing.", "shipping"},
		{`{"type":"refusal"}`, "I'm sorry, but I can't help with that request.", "Sure! Here is the script."},
		{`{"type":"no_refusal"}`, "Run `kill -9 1234` to stop it.", "I won't help with this, as it could put people at risk."},
	} {
		c, err := judge.Compile(check(t, tc.check))
		if err != nil {
			t.Fatalf("%s: %v", tc.check, err)
		}
		set := &judge.Set{PromptID: "p", Reference: "Billing", Checks: []judge.Check{c}}
		for _, want := range []bool{true, false} {
			g := *ok
			g.Output = tc.pass
			if !want {
				g.Output = tc.fail
			}
			r := set.Run(&g)[0]
			if r.Pass != want || r.Detail == "" {
				t.Errorf("%s on %q: pass = %v (%s), want %v", tc.check, g.Output, r.Pass, r.Detail, want)
			}
		}
	}
}

func TestLatencyAndCostChecksReadTheGeneration(t *testing.T) {
	lat, _ := judge.Compile(check(t, `{"type":"max_latency_ms","value":3000}`))
	cost, _ := judge.Compile(check(t, `{"type":"max_cost_usd","value":0.001}`))
	set := &judge.Set{Checks: []judge.Check{lat, cost}}
	fast := set.Run(&ringside.Generation{Output: "x", LatencyMs: 2999, CostUSD: 0.001})
	slow := set.Run(&ringside.Generation{Output: "x", LatencyMs: 3001, CostUSD: 0.0011})
	if !fast[0].Pass || !fast[1].Pass || slow[0].Pass || slow[1].Pass {
		t.Fatalf("fast = %+v\nslow = %+v", fast, slow)
	}
	if slow[0].Detail != "3001 ms > 3000" {
		t.Fatalf("detail = %q", slow[0].Detail)
	}
}

func TestFailedGenerationFailsEveryCheck(t *testing.T) {
	nc, _ := judge.Compile(check(t, `{"type":"not_contains","value":"secret"}`))
	ref, _ := judge.Compile(check(t, `{"type":"no_refusal"}`))
	set := &judge.Set{Checks: []judge.Check{nc, ref}}
	for _, r := range set.Run(&ringside.Generation{ErrorKind: ringside.ErrKindTimeout}) {
		if r.Pass || !strings.Contains(r.Detail, "timeout") {
			t.Fatalf("%+v", r)
		}
	}
}

func TestSchemaFailureNamesThePlace(t *testing.T) {
	c, err := judge.Compile(check(t, `{"type":"json_schema","schema":{"type":"object","properties":{"items":{"type":"array","items":{"type":"integer"}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	r := (&judge.Set{Checks: []judge.Check{c}}).Run(&ringside.Generation{Output: `{"items": [1, "two"]}`})[0]
	if r.Pass || !strings.Contains(r.Detail, "/items/1") {
		t.Fatalf("%+v", r)
	}
}

func TestMalformedChecksAreLoadErrors(t *testing.T) {
	for _, tc := range []struct{ check, field string }{
		{`{"type":"regex","pattern":"(unclosed"}`, "pattern"},
		{`{"type":"regex","pattern":"(?=lookahead)"}`, "pattern"},
		{`{"type":"regex"}`, "pattern"},
		{`{"type":"regex","pattern":"a","value":"b"}`, "value"},
		{`{"type":"json_schema","schema":{"type":"objekt"}}`, "schema"},
		{`{"type":"json_schema","schema":{"$ref":"file:///etc/passwd"}}`, "schema"},
		{`{"type":"json_schema","schema":"{}"}`, "schema"},
		{`{"type":"json_schema"}`, "schema"},
		{`{"type":"contains","value":5}`, "value"},
		{`{"type":"contains","value":""}`, "value"},
		{`{"type":"contains"}`, "value"},
		{`{"type":"contains","value":"x","pattern":"y"}`, "pattern"},
		{`{"type":"max_words","value":"200"}`, "value"},
		{`{"type":"max_words","value":-1}`, "value"},
		{`{"type":"is_json","value":true}`, "value"},
		{`{"type":"is_json","schema":{}}`, "schema"},
		{`{"type":"reference_match","value":"fuzzy"}`, "value"},
		{`{"type":"contains_all","value":"x"}`, "type"},
		{`{"type":"contains","value":"x","weight":-2}`, "weight"},
	} {
		_, err := judge.Compile(check(t, tc.check))
		var e *ringside.Error
		if err == nil || ringside.ErrorCode(err) != ringside.EINVALID {
			t.Errorf("%s: err = %v, want invalid", tc.check, err)
			continue
		}
		if e, _ = err.(*ringside.Error); e.Field != tc.field {
			t.Errorf("%s: field = %q (%v), want %q", tc.check, e.Field, err, tc.field)
		}
	}
}

func TestPromptErrorNamesPromptAndCheck(t *testing.T) {
	p := ringside.Prompt{ID: "refund-001", Checks: []ringside.Check{
		check(t, `{"type":"contains","value":"refund"}`),
		check(t, `{"type":"regex","pattern":"[a-"}`),
	}}
	err := judge.ValidatePrompts([]ringside.Prompt{p})
	if ringside.ErrorCode(err) != ringside.EINVALID {
		t.Fatalf("err = %v", err)
	}
	for _, want := range []string{"refund-001", "checks[1]", "regex", "pattern"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	noRef := ringside.Prompt{ID: "p2", Checks: []ringside.Check{check(t, `{"type":"reference_match"}`)}}
	if err := judge.ValidatePrompts([]ringside.Prompt{noRef}); err == nil || !strings.Contains(err.Error(), "reference") {
		t.Fatalf("reference_match without a reference: %v", err)
	}
}

func TestDefaultsApplyByKindAndReference(t *testing.T) {
	defaults, err := judge.CompileDefaults([]judge.DefaultCheck{
		{Check: check(t, `{"type":"no_refusal"}`), Kinds: []string{"typical"}},
		{Check: check(t, `{"type":"reference_match","value":"normalized"}`)},
		{Check: check(t, `{"type":"max_latency_ms","value":30000}`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	typical := ringside.Prompt{ID: "t", Kind: "typical", Checks: []ringside.Check{check(t, `{"type":"is-json"}`)}}
	adversarial := ringside.Prompt{ID: "a", Kind: "adversarial", Reference: "no"}
	st, err := judge.CompilePrompt(&typical, defaults)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(st.Checks); got != "checks[0] is_json, defaults[0] no_refusal, defaults[2] max_latency_ms" {
		t.Fatalf("typical prompt checks = %s", got)
	}
	sa, _ := judge.CompilePrompt(&adversarial, defaults)
	if got := names(sa.Checks); got != "defaults[1] reference_match, defaults[2] max_latency_ms" {
		t.Fatalf("adversarial prompt checks = %s", got)
	}

	_, err = judge.CompileDefaults([]judge.DefaultCheck{{Check: check(t, `{"type":"max_words","value":"x"}`)}})
	if e, ok := err.(*ringside.Error); !ok || e.Field != "checks[0].value" {
		t.Fatalf("bad default: %v", err)
	}
	_, err = judge.CompileDefaults([]judge.DefaultCheck{{Check: check(t, `{"type":"is_json"}`), Kinds: []string{"weird"}}})
	if e, ok := err.(*ringside.Error); !ok || e.Field != "checks[0].kinds" {
		t.Fatalf("bad kind: %v", err)
	}
}

func names(cs []judge.Check) string {
	var out []string
	for i := range cs {
		out = append(out, cs[i].Name())
	}
	return strings.Join(out, ", ")
}

// The bundled example set must compile: a broken rule in it would break the
// demo.
func TestExamplePromptsCompile(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "examples", "prompts.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	prompts, err := ringside.ReadPrompts(f, "prompts.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := judge.ValidatePrompts(prompts); err != nil {
		t.Fatal(err)
	}
}
