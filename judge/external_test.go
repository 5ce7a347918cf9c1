package judge_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/judge"
	"github.com/ringside-eval/ringside/judge/judgetest"
	"github.com/ringside-eval/ringside/provider"
	"github.com/ringside-eval/ringside/store"
)

// externalRules compiles one prompt with checks and the graders.
func externalRules(t *testing.T, checks string, graders judge.Graders) (*judge.Rules, error) {
	t.Helper()
	p := ringside.Prompt{ID: "p1", Messages: []ringside.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "How long do refunds take?"}}}
	for _, js := range strings.Split(checks, "\n") {
		p.Checks = append(p.Checks, check(t, js))
	}
	return judge.NewRulesWith([]ringside.Prompt{p}, nil, graders)
}

func TestCommandCheckRunsTheTeamsProgram(t *testing.T) {
	for _, tc := range []struct {
		name, check, output string
		pass                bool
		detail              string
	}{
		{"exit 0 passes, first line is the reason", `{"type":"command","command":["sh","-c","grep -q refund && printf 'mentions refunds\\nmore'"]}`,
			"Your refund takes 5 days.", true, "mentions refunds"},
		{"exit 1 fails with the program's reason", `{"type":"command","command":["sh","-c","grep -q refund || { echo 'no refund mentioned'; exit 1; }"]}`,
			"Your money comes back.", false, "no refund mentioned"},
		{"stderr when stdout is silent", `{"type":"command","command":["sh","-c","echo 'too long' >&2; exit 3"]}`,
			"x", false, "too long"},
		{"no output: the exit status", `{"type":"command","command":["sh","-c","exit 4"]}`, "x", false, "exit status 4"},
		{"the prompt as JSON on descriptor 3", `{"type":"command","command":["sh","-c","cat <&3 | grep -q '\"id\":\"p1\"' && echo \"prompt $RINGSIDE_PROMPT_ID for $RINGSIDE_MODEL\""]}`,
			"x", true, "prompt p1 for m1"},
		{"a program that reads neither", `{"type":"command","command":["true"]}`, strings.Repeat("long answer ", 20000), true, "exit status 0"},
		{"timeout kills the whole group", `{"type":"command","command":["sh","-c","sleep 30; echo never"],"timeout":"50ms"}`,
			"x", false, "timed out after 50ms (killed)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rules, err := externalRules(t, tc.check, nil)
			if err != nil {
				t.Fatal(err)
			}
			rs, ok := rules.CheckContext(context.Background(), &ringside.Generation{ID: "g1", PromptID: "p1", Model: "m1", Output: tc.output})
			if !ok || len(rs) != 1 {
				t.Fatalf("results %+v, %v", rs, ok)
			}
			if rs[0].Pass != tc.pass || rs[0].Detail != tc.detail {
				t.Errorf("pass %v %q, want %v %q", rs[0].Pass, rs[0].Detail, tc.pass, tc.detail)
			}
		})
	}
}

func TestCommandCheckMistakes(t *testing.T) {
	for _, tc := range []struct{ check, field string }{
		{`{"type":"command"}`, "command"},
		{`{"type":"command","command":[""]}`, "command"},
		{`{"type":"command","command":["true"],"value":"x"}`, "value"},
		{`{"type":"command","command":["true"],"timeout":"10"}`, "timeout"},
		{`{"type":"command","command":["true"],"timeout":"-1s"}`, "timeout"},
		{`{"type":"contains","value":"x","command":["true"]}`, "command"},
		{`{"type":"contains","value":"x","timeout":"1s"}`, "timeout"},
		{`{"type":"contains","value":"x","model":"m"}`, "model"},
		{`{"type":"llm_rubric","value":"is polite"}`, "model"},
		{`{"type":"llm_rubric","model":"m"}`, "value"},
	} {
		_, err := judge.Compile(check(t, tc.check))
		var fe *ringside.Error
		if err == nil || !asError(err, &fe) || fe.Field != tc.field {
			t.Errorf("%s: error %v, want one naming %s", tc.check, err, tc.field)
		}
	}
	// A missing program stops the judge before it runs anything.
	_, err := externalRules(t, `{"type":"contains","value":"x"}`+"\n"+`{"type":"command","command":["./no-such-checker","--strict"]}`, nil)
	if ringside.ErrorCode(err) != ringside.EINVALID || !strings.Contains(err.Error(), `prompt p1: checks[1] (command)`) ||
		!strings.Contains(err.Error(), `"./no-such-checker" not found`) {
		t.Errorf("missing program: %v", err)
	}
	// A failed generation fails without running the program.
	rules, err := externalRules(t, `{"type":"command","command":["sh","-c","echo ran"]}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	rs, _ := rules.CheckContext(context.Background(), &ringside.Generation{ID: "g", PromptID: "p1", ErrorKind: ringside.ErrKindTimeout})
	if rs[0].Pass || rs[0].Detail != "generation failed (timeout)" {
		t.Errorf("failed generation: %+v", rs[0])
	}
}

func asError(err error, target **ringside.Error) bool {
	e, ok := err.(*ringside.Error)
	*target = e
	return ok
}

func TestLLMRubricGradesOneAnswer(t *testing.T) {
	srv := judgetest.NewFakeServer(t)
	model := ringside.Model{Name: "grader", Provider: "openai", ModelID: "gpt-judge-1", BaseURL: srv.URL + "/v1",
		PriceInPerM: 1, PriceOutPerM: 2}
	streamer, err := provider.New(model, provider.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	graders := func(name string) (*judge.Grader, error) {
		if name != "grader" {
			return nil, ringside.Errorf(ringside.EINVALID, "%q is not a configured model", name)
		}
		return &judge.Grader{Model: model, Streamer: streamer}, nil
	}
	if _, err := externalRules(t, `{"type":"llm_rubric","value":"polite","model":"nobody"}`, graders); err == nil ||
		!strings.Contains(err.Error(), `prompt p1: checks[0] (llm_rubric): model: "nobody" is not a configured model`) {
		t.Errorf("unknown grader: %v", err)
	}
	rules, err := externalRules(t, `{"type":"llm_rubric","value":"Says how many days.","model":"grader","dimension":"factual_accuracy"}`, graders)
	if err != nil {
		t.Fatal(err)
	}
	// One call costs 1000 tokens in at $1/M and 20 out at $2/M.
	const call = 1000*1.0/1e6 + 20*2.0/1e6
	for _, tc := range []struct {
		output string
		pass   bool
		detail string
		cost   float64
		calls  int32
	}{
		{"PASSME: 5 days", true, "meets the rubric", call, 1},
		{"soon", false, "ignores the rubric", call, 1}, // in a ```json fence
		{"MUMBLE", false, "grader grader gave no readable verdict, twice: not the JSON verdict asked for: invalid character 'T' looking for beginning of value", 2 * call, 2},
	} {
		before := srv.RubricAsks.Load()
		rs, _ := rules.CheckContext(context.Background(), &ringside.Generation{ID: "g", PromptID: "p1", Model: "m1", Output: tc.output})
		r := rs[0]
		if r.Pass != tc.pass || r.Detail != tc.detail || r.Dimension != "factual_accuracy" || abs(r.CostUSD-tc.cost) > 1e-12 {
			t.Errorf("%q: %+v, want pass %v %q cost %g", tc.output, r, tc.pass, tc.detail, tc.cost)
		}
		if n := srv.RubricAsks.Load() - before; n != tc.calls {
			t.Errorf("%q: %d calls, want %d", tc.output, n, tc.calls)
		}
	}
	if n := srv.BadTemps.Load(); n != 0 {
		t.Errorf("%d grader calls without temperature 0", n)
	}
}

func TestRubricCostIsStoredWithTheResult(t *testing.T) {
	srv := judgetest.NewFakeServer(t)
	llm := fakeLLM(t, srv)
	prompt := ringside.Prompt{ID: "p1", Messages: []ringside.Message{{Role: "user", Content: "How long?"}},
		Checks: []ringside.Check{judgetest.MustCheck(t, `{"type":"llm_rubric","value":"Says how long.","model":"judge-model"}`)}}
	f := judgetest.MustFixture(t, prompt, [2]string{"PASSME 5 days", "soon"})
	db := f.Open(t)
	graders := func(string) (*judge.Grader, error) {
		return &judge.Grader{Model: llm.Model, Streamer: llm.Streamer}, nil
	}
	rep, _, _ := judgeOnce(t, db, ringside.JudgeRules, "rules", judge.Config{Graders: graders}, judge.Observer{})
	if rep.Written != 1 || rep.Votes[0].Winner != ringside.WinnerA {
		t.Fatalf("report %+v", rep)
	}
	rs, err := db.CheckResults(context.Background(), store.CheckFilter{})
	if err != nil || len(rs) != 2 {
		t.Fatalf("results %+v, %v", rs, err)
	}
	for _, r := range rs {
		if r.CostUSD != 1000*1.0/1e6+20*2.0/1e6 {
			t.Errorf("result %+v: cost not stored", r)
		}
	}
}
