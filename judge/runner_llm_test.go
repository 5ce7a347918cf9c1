package judge_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/judge"
	"github.com/ringside-eval/ringside/judge/judgetest"
	"github.com/ringside-eval/ringside/store"
)

// fiveBattles are one battle of each kind the fake server judges.
func fiveBattles(t *testing.T) *judgetest.Fixture {
	prompt := ringside.Prompt{ID: "p1", Reference: "Refunds take 5-7 business days.",
		Messages: []ringside.Message{{Role: "user", Content: "How long do refunds take?"}}}
	return judgetest.MustFixture(t, prompt,
		[2]string{"GREAT GOOD answer (b1)", "meh (b1)"},   // A>>B, B>>A: a, strongly
		[2]string{"meh (b2)", "GOOD answer (b2)"},         // B>A, A>B: b
		[2]string{"BIASED one (b3)", "BIASED two (b3)"},   // A>B both times: a tie
		[2]string{"GARBAGE one (b4)", "GARBAGE two (b4)"}, // unreadable twice: a failure
		[2]string{"meh (b5)", "meh too (b5)"},             // A=B both times: a tie
	)
}

func TestRunnerLLMJudgesBothOrders(t *testing.T) {
	srv := judgetest.NewFakeServer(t)
	f := fiveBattles(t)
	db := f.Open(t)
	ctx := context.Background()
	llm := fakeLLM(t, srv)
	llm.UseReference, llm.StrongWeight = true, 3
	rep, _, gpt := judgeOnce(t, db, ringside.JudgeLLM, "gpt", judge.Config{LLM: llm, Concurrency: 3}, judge.Observer{})
	if rep.Written != 4 || len(rep.Votes) != 4 || rep.Failed != 1 || rep.Skipped != 0 {
		t.Fatalf("report %+v", rep)
	}
	for _, m := range []string{"(b1)", "(b2)", "(b3)", "(b4)", "(b5)"} {
		if n := srv.Calls()[m]; n != 2 {
			t.Errorf("battle %s: %d calls, want 2", m, n)
		}
	}
	if n := srv.BadTemps.Load(); n != 0 {
		t.Errorf("%d calls without temperature 0", n)
	}
	for i, want := range []ringside.Winner{"a", "b", "tie", "", "tie"} {
		v, err := db.VoteBy(ctx, f.Battles[i].ID, gpt.ID)
		if want == "" {
			if ringside.ErrorCode(err) != ringside.ENOTFOUND {
				t.Errorf("battle %d: a failure became a vote: %+v", i+1, v)
			}
			continue
		}
		if err != nil || v.Winner != want {
			t.Errorf("battle %d: vote %+v, %v; want %s", i+1, v, err, want)
		}
	}
	js, _ := db.LLMJudgments(ctx, f.Battles[0].ID, gpt.ID)
	if len(js) != 1 || js[0].Weight != 3 || len(js[0].Calls) != 2 || js[0].Calls[0].Label != "A>>B" || js[0].Calls[1].Position != "ba" ||
		js[0].Calls[1].Label != "B>>A" || js[0].Calls[0].Rationale != "one answer follows the instructions." || js[0].CostUSD < 0.00207 {
		t.Fatalf("battle 1 judgment = %+v", js)
	}
	fails, _ := db.LLMJudgments(ctx, f.Battles[3].ID, gpt.ID)
	if len(fails) != 1 || fails[0].Status != store.JudgmentFailed || len(fails[0].Calls) != 2 ||
		!strings.Contains(fails[0].Calls[1].Raw, "cannot decide") || fails[0].Calls[1].Attempt != 2 {
		t.Fatalf("battle 4 judgment = %+v", fails)
	}
	if w, _ := db.VoteWeights(ctx); len(w) != 1 {
		t.Fatalf("vote weights = %v", w)
	}

	// A rerun asks only about the failure, which now gets a verdict.
	srv.Fixed.Store(true)
	again, plan, _ := judgeOnce(t, db, ringside.JudgeLLM, "gpt", judge.Config{LLM: llm, Concurrency: 3}, judge.Observer{})
	if plan.Battles != 1 || again.Written != 1 || again.Votes[0].Winner != ringside.WinnerTie || again.Failed != 0 {
		t.Fatalf("rerun: plan %+v, report %+v", plan, again)
	}
	if calls := srv.Calls(); calls["(b4)"] != 4 || calls["(b1)"] != 2 {
		t.Errorf("calls after rerun = %v", calls)
	}
}

func TestRunnerLLMLeavesABattleAloneAfterMaxFailures(t *testing.T) {
	srv := judgetest.NewFakeServer(t)
	prompt := ringside.Prompt{ID: "p1", Messages: []ringside.Message{{Role: "user", Content: "How long do refunds take?"}}}
	f := judgetest.MustFixture(t, prompt,
		[2]string{"GARBAGE one (b1)", "GARBAGE two (b1)"}, // unreadable: a failure each run
		[2]string{"meh (b2)", "GOOD answer (b2)"},
	)
	db := f.Open(t)
	cfg := judge.Config{LLM: fakeLLM(t, srv), Concurrency: 2, GiveUpAfter: 2}
	for i, want := range []struct{ battles, written, failed, givenUp int }{
		{2, 1, 1, 0}, {1, 0, 1, 0},
		// Two failures: the third run leaves b1 alone and pays for nothing.
		{0, 0, 0, 1},
	} {
		rep, plan, _ := judgeOnce(t, db, ringside.JudgeLLM, "gpt", cfg, judge.Observer{})
		if plan.Battles != want.battles || rep.Written != want.written || rep.Failed != want.failed || plan.GivenUp != want.givenUp {
			t.Fatalf("run %d: plan %+v, report %+v; want %+v", i+1, plan, rep, want)
		}
	}
	if n := srv.Calls()["(b1)"]; n != 4 {
		t.Fatalf("the judge model was asked about b1 %d times, want 4 (two runs, two attempts)", n)
	}
	// GiveUpAfter 0 (--retry-failed) asks anyway, and the model has since
	// learnt to answer.
	srv.Fixed.Store(true)
	cfg.GiveUpAfter = 0
	rep, plan, _ := judgeOnce(t, db, ringside.JudgeLLM, "gpt", cfg, judge.Observer{})
	if plan.Battles != 1 || plan.GivenUp != 0 || rep.Written != 1 || rep.Failed != 0 {
		t.Fatalf("retrying: plan %+v, report %+v", plan, rep)
	}
}

// TestRunnerLLMPerDimension judges the same battles with two judges of the
// same model, one asked for dimension verdicts, one not.
func TestRunnerLLMPerDimension(t *testing.T) {
	srv := judgetest.NewFakeServer(t)
	prompt := ringside.Prompt{ID: "p1", Messages: []ringside.Message{{Role: "user", Content: "Refund policy, as JSON?"}}}
	f := judgetest.MustFixture(t, prompt,
		[2]string{"GOOD WIN-format_compliance (b1)", "WIN-factual_accuracy (b1)"},
		[2]string{"meh (b2)", "GOOD WIN-format_compliance (b2)"},
		// Each answer wins format_compliance when shown first: a tie.
		[2]string{"WIN-format_compliance one (b3)", "WIN-format_compliance two (b3)"},
		// No dimension verdicts in the first order: none in the vote.
		[2]string{"NODIMS GOOD (b4)", "WIN-tone (b4)"},
	)
	db := f.Open(t)
	ctx := context.Background()
	dims := fakeLLM(t, srv, "format_compliance", "factual_accuracy", "tone")
	_, _, dimsJudge := judgeOnce(t, db, ringside.JudgeLLM, "gpt-dims", judge.Config{LLM: dims, Concurrency: 2}, judge.Observer{})
	_, _, plain := judgeOnce(t, db, ringside.JudgeLLM, "gpt", judge.Config{LLM: fakeLLM(t, srv), Concurrency: 2}, judge.Observer{})
	// Both orders of each battle, by gpt-dims only.
	if n := srv.DimAsks.Load(); n != 8-1 {
		t.Errorf("%d answers with dimension verdicts, want 7 (b4's first order has none)", n)
	}
	for i, want := range []map[string]ringside.Winner{
		{"format_compliance": "a", "factual_accuracy": "b", "tone": "tie"},
		{"format_compliance": "b", "factual_accuracy": "tie", "tone": "tie"},
		{"format_compliance": "tie", "factual_accuracy": "tie", "tone": "tie"},
		nil,
	} {
		v, err := db.VoteBy(ctx, f.Battles[i].ID, dimsJudge.ID)
		if err != nil || fmt.Sprint(v.Dimensions) != fmt.Sprint(want) {
			t.Errorf("battle %d: gpt-dims vote %+v, %v; want dimensions %v", i+1, v, err, want)
		}
		if v, err := db.VoteBy(ctx, f.Battles[i].ID, plain.ID); err != nil || v.Dimensions != nil {
			t.Errorf("battle %d: gpt vote %+v, %v; want no dimensions", i+1, v, err)
		}
	}
}

// TestRunnerReportsEachBattle counts through the observer what a progress
// display would show.
func TestRunnerReportsEachBattle(t *testing.T) {
	srv := judgetest.NewFakeServer(t)
	db := fiveBattles(t).Open(t)
	var done, failed, votes int
	seen := map[string]bool{}
	rep, plan, _ := judgeOnce(t, db, ringside.JudgeLLM, "gpt", judge.Config{LLM: fakeLLM(t, srv), Concurrency: 3},
		judge.Observer{Judged: func(o judge.Outcome) {
			// Calls are one at a time, so these need no lock; -race checks.
			done++
			seen[o.Battle.ID] = true
			if o.Failed {
				failed++
			}
			if o.Vote != nil {
				votes++
				if o.Failed || o.Skipped || o.Vote.BattleID != o.Battle.ID {
					t.Errorf("outcome %+v", o)
				}
			}
		}})
	if done != plan.Battles || done != 5 || len(seen) != 5 || failed != 1 || failed != rep.Failed || votes != rep.Written {
		t.Fatalf("observed %d of %d battles (%d distinct), %d failed, %d votes; report %+v", done, plan.Battles, len(seen), failed, votes, rep)
	}
}
