package judge_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/judge"
	"github.com/ringside-eval/ringside/judge/judgestore"
	"github.com/ringside-eval/ringside/judge/judgetest"
	"github.com/ringside-eval/ringside/provider"
	"github.com/ringside-eval/ringside/store"
)

// judgeOnce prepares and executes one judging of the fixture's battles by
// the judge of that kind and name, with cfg's other settings.
func judgeOnce(t *testing.T, db *store.DB, kind, name string, cfg judge.Config, obs judge.Observer) (judge.Report, *judge.Plan, *ringside.Judge) {
	t.Helper()
	ctx := context.Background()
	j, err := db.EnsureJudge(ctx, kind, name)
	if err != nil {
		t.Fatal(err)
	}
	cfg.JudgeID, cfg.Store = j.ID, judgestore.New(db)
	r, err := judge.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := r.Prepare(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := r.Execute(ctx, plan, obs)
	if err != nil {
		t.Fatal(err)
	}
	return rep, plan, j
}

// fakeLLM is a judge model served by srv, priced $1 in and $2 out per
// million tokens, asked about dims besides the overall verdict.
func fakeLLM(t *testing.T, srv *judgetest.FakeServer, dims ...string) *judge.LLM {
	t.Helper()
	m := ringside.Model{Name: "judge-model", Provider: "openai", ModelID: "gpt-judge-1", BaseURL: srv.URL + "/v1",
		PriceInPerM: 1, PriceOutPerM: 2}
	s, err := provider.New(m, provider.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	return &judge.LLM{Model: m, Streamer: s, Dimensions: dims}
}

func TestNewRefusesIncompleteConfig(t *testing.T) {
	llm := &judge.LLM{}
	for _, c := range []struct {
		cfg   judge.Config
		field string
	}{
		{judge.Config{Store: judgestore.Store{}}, "judge"},
		{judge.Config{JudgeID: "j"}, "store"},
		{judge.Config{JudgeID: "j", Store: judgestore.Store{}, LLM: llm}, "concurrency"},
		{judge.Config{JudgeID: "j", Store: judgestore.Store{}, LLM: llm, Concurrency: 1, GiveUpAfter: -1}, "max_failures"},
	} {
		if _, err := judge.New(c.cfg); ringside.ErrorCode(err) != ringside.EINVALID || !strings.Contains(err.Error(), c.field) {
			t.Errorf("New(%+v) = %v, want EINVALID naming %s", c.cfg, err, c.field)
		}
	}
}

func TestRunnerRulesOverStoredBattles(t *testing.T) {
	prompt := ringside.Prompt{ID: "refund-json", Messages: []ringside.Message{{Role: "user", Content: "JSON please"}},
		Checks: []ringside.Check{
			judgetest.MustCheck(t, `{"type":"is_json","dimension":"format_compliance"}`),
			judgetest.MustCheck(t, `{"type":"contains","value":"refund","weight":2,"dimension":"factual_accuracy"}`),
		}}
	f := judgetest.MustFixture(t, prompt,
		[2]string{`{"action": "refund"}`, `Sure! {"action": "refund"}`}, // a: 3, b: 2 → a
		[2]string{`{"action": "none"}`, `refund it`},                    // a: 1, b: 2 → b
		[2]string{`nope`, `nah`},                                        // both 0 → bothbad
		[2]string{`{"action": "refund"}`, `FAIL`},                       // a failed side: not judged
	)
	db := f.Open(t)
	ctx := context.Background()
	rep, plan, rules := judgeOnce(t, db, ringside.JudgeRules, "rules", judge.Config{RunID: f.Run.ID}, judge.Observer{})
	if plan.Battles != 3 || rep.Checked != 8 || rep.Passed != 7 || rep.Results != 16 || rep.Unknown != 0 ||
		rep.Written != 3 || len(rep.Votes) != 3 || rep.NoChecks != 0 {
		t.Fatalf("plan %+v, report %+v", plan, rep)
	}
	want := []struct {
		winner ringside.Winner
		dims   map[string]ringside.Winner
	}{
		{ringside.WinnerA, map[string]ringside.Winner{"format_compliance": "a", "factual_accuracy": "tie"}},
		{ringside.WinnerB, map[string]ringside.Winner{"format_compliance": "a", "factual_accuracy": "b"}},
		{ringside.WinnerBothBad, map[string]ringside.Winner{"format_compliance": "bothbad", "factual_accuracy": "bothbad"}},
	}
	for i, w := range want {
		v, err := db.VoteBy(ctx, f.Battles[i].ID, rules.ID)
		if err != nil || v.Winner != w.winner || fmt.Sprint(v.Dimensions) != fmt.Sprint(w.dims) || v.Reason == "" {
			t.Errorf("battle %d: vote %+v, %v; want %s %v", i, v, err, w.winner, w.dims)
		}
	}
	if _, err := db.VoteBy(ctx, f.Battles[3].ID, rules.ID); ringside.ErrorCode(err) != ringside.ENOTFOUND {
		t.Errorf("a battle with a failed side was voted on: %v", err)
	}

	// Every generation has its results, the failed one included.
	res, err := db.CheckResults(ctx, store.CheckFilter{GenerationID: f.Gens[1][0].ID})
	if err != nil || len(res) != 2 || !res[0].Pass || res[1].Pass || res[1].Detail != `"refund" not found` {
		t.Fatalf("check results = %+v, %v", res, err)
	}
	failed, _ := db.CheckResults(ctx, store.CheckFilter{GenerationID: f.Gens[3][1].ID})
	if len(failed) != 2 || failed[0].Pass || !strings.Contains(failed[0].Detail, "server_error") {
		t.Fatalf("failed generation's results = %+v", failed)
	}

	// A rerun checks again but has nothing to vote on.
	again, plan, _ := judgeOnce(t, db, ringside.JudgeRules, "rules", judge.Config{}, judge.Observer{})
	if !plan.Empty() || again.Checked != 8 || again.Written != 0 {
		t.Fatalf("rerun: plan %+v, report %+v", plan, again)
	}
	if n, _ := db.CountVotes(ctx); n != 3 {
		t.Fatalf("votes after rerun = %d", n)
	}
}
