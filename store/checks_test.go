package store_test

import (
	"context"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/store"
)

// judgingFixture is a run of two models on two prompts with two samples and
// a battle per prompt and sample, as `ringside run` leaves it.
type judgingFixture struct {
	run     *ringside.Run
	gens    map[string]*ringside.Generation // model/prompt/sample
	battles []*ringside.Battle
}

func mustJudgingFixture(t *testing.T, db *store.DB) *judgingFixture {
	t.Helper()
	ctx := context.Background()
	prompts := []ringside.Prompt{
		{ID: "p1", Messages: []ringside.Message{{Role: "user", Content: "one"}}, Category: "refunds", Kind: "typical", Tags: []string{"billing"}},
		{ID: "p2", Messages: []ringside.Message{{Role: "user", Content: "two"}}, Category: "extraction", Kind: "edge"},
	}
	if _, err := db.UpsertPrompts(ctx, "set", prompts); err != nil {
		t.Fatal(err)
	}
	f := &judgingFixture{run: &ringside.Run{Name: "r1", Models: []string{"m1", "m2"}, PromptSets: []string{"set"}, Samples: 2},
		gens: map[string]*ringside.Generation{}}
	if err := db.CreateRun(ctx, f.run); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"p1", "p2"} {
		for k := 0; k < 2; k++ {
			for _, m := range []string{"m1", "m2"} {
				g := &ringside.Generation{RunID: f.run.ID, PromptID: p, PromptSet: "set", Model: m, Sample: k, Output: m + " says " + p}
				if err := db.CreateGeneration(ctx, g); err != nil {
					t.Fatal(err)
				}
				f.gens[m+"/"+p+"/"+string(rune('0'+k))] = g
			}
			b := &ringside.Battle{RunID: f.run.ID, Source: ringside.SourceRun, PromptID: p, PromptSet: "set", Sample: k, ModelA: "m1", ModelB: "m2",
				GenerationA: f.gens["m1/"+p+"/"+string(rune('0'+k))].ID, GenerationB: f.gens["m2/"+p+"/"+string(rune('0'+k))].ID}
			if err := db.CreateBattle(ctx, b); err != nil {
				t.Fatal(err)
			}
			f.battles = append(f.battles, b)
		}
	}
	return f
}

func TestCheckResultsReplaceAndSum(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	f := mustJudgingFixture(t, db)
	rules, err := db.EnsureJudge(ctx, ringside.JudgeRules, "rules")
	if err != nil {
		t.Fatal(err)
	}
	g := f.gens["m1/p1/0"]
	first := []ringside.CheckResult{
		{GenerationID: g.ID, Source: "prompt", Index: 0, Type: "contains", Dimension: "factual_accuracy", Weight: 2, Pass: true, Detail: "found"},
		{GenerationID: g.ID, Source: "prompt", Index: 1, Type: "max_words", Dimension: "instruction_following", Weight: 1, Pass: false, Detail: "212 words > 200"},
		{GenerationID: g.ID, Source: "default", Index: 0, Type: "no_refusal", Weight: 1, Pass: true, Detail: "not a refusal"},
	}
	if err := db.ReplaceCheckResults(ctx, rules.ID, []string{g.ID}, first); err != nil {
		t.Fatal(err)
	}
	// A rerun replaces, never duplicates.
	if err := db.ReplaceCheckResults(ctx, rules.ID, []string{g.ID}, first); err != nil {
		t.Fatal(err)
	}
	got, err := db.CheckResults(ctx, store.CheckFilter{GenerationID: g.ID})
	if err != nil || len(got) != 3 {
		t.Fatalf("results = %+v, %v", got, err)
	}
	if got[0].Type != "contains" || got[2].Source != "default" || got[1].Detail != "212 words > 200" || got[1].Pass {
		t.Fatalf("results in order = %+v", got)
	}
	failed, _ := db.CheckResults(ctx, store.CheckFilter{RunID: f.run.ID, JudgeID: rules.ID, FailedOnly: true})
	if len(failed) != 1 || failed[0].Type != "max_words" {
		t.Fatalf("failed = %+v", failed)
	}

	other := f.gens["m1/p1/1"]
	if err := db.ReplaceCheckResults(ctx, rules.ID, []string{other.ID}, []ringside.CheckResult{
		{GenerationID: other.ID, Source: "prompt", Index: 0, Type: "contains", Dimension: "factual_accuracy", Weight: 2, Pass: true},
	}); err != nil {
		t.Fatal(err)
	}
	scores, err := db.CheckScores(ctx, rules.ID, f.run.ID)
	if err != nil {
		t.Fatal(err)
	}
	// Generation 1: overall + 2 dimensions; generation 2: overall + 1.
	if len(scores) != 5 {
		t.Fatalf("scores = %+v", scores)
	}
	overall := scores[0]
	if overall.Dimension != "" || overall.Model != "m1" || overall.Sample != 0 || overall.Checks != 3 || overall.Passed != 2 ||
		overall.Weight != 4 || overall.WeightPassed != 3 || overall.Category != "refunds" || overall.Tags[0] != "billing" {
		t.Fatalf("overall = %+v", overall)
	}
	if d := scores[1]; d.Dimension != "factual_accuracy" || d.Checks != 1 || d.WeightPassed != 2 {
		t.Fatalf("dimension row = %+v", d)
	}
	if none, _ := db.CheckScores(ctx, rules.ID, "other-run"); len(none) != 0 {
		t.Fatalf("another run's scores = %+v", none)
	}
	// Clearing: a generation listed with no results loses its rows.
	if err := db.ReplaceCheckResults(ctx, rules.ID, []string{g.ID}, nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.CheckResults(ctx, store.CheckFilter{GenerationID: g.ID}); len(got) != 0 {
		t.Fatalf("after clearing = %+v", got)
	}
}

func TestBattlesToJudgeSkipsVoted(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	f := mustJudgingFixture(t, db)
	// A live battle without generations has nothing to judge, nor has one
	// with a failed side.
	mustBattle(t, db, "m1", "m2")
	okGen := &ringside.Generation{PromptID: "p1", Model: "m1", Output: "fine"}
	failedGen := &ringside.Generation{PromptID: "p1", Model: "m2", ErrorKind: ringside.ErrKindTimeout}
	for _, g := range []*ringside.Generation{okGen, failedGen} {
		if err := db.CreateGeneration(ctx, g); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.CreateBattle(ctx, &ringside.Battle{Source: ringside.SourceLive, PromptID: "p1", ModelA: "m1", ModelB: "m2",
		GenerationA: okGen.ID, GenerationB: failedGen.ID}); err != nil {
		t.Fatal(err)
	}
	rules, _ := db.EnsureJudge(ctx, ringside.JudgeRules, "rules")
	todo, err := db.BattlesToJudge(ctx, rules.ID, f.run.ID)
	if err != nil || len(todo) != 4 {
		t.Fatalf("to judge = %d, %v", len(todo), err)
	}
	if _, err := db.CreateVote(ctx, &ringside.Vote{BattleID: todo[0].ID, JudgeID: rules.ID, Winner: ringside.WinnerA}); err != nil {
		t.Fatal(err)
	}
	if todo, _ := db.BattlesToJudge(ctx, rules.ID, ""); len(todo) != 3 {
		t.Fatalf("after one vote = %d", len(todo))
	}
	var votes []*ringside.Vote
	for _, b := range f.battles {
		votes = append(votes, &ringside.Vote{BattleID: b.ID, JudgeID: rules.ID, Winner: ringside.WinnerTie,
			Dimensions: map[string]ringside.Winner{"format_compliance": ringside.WinnerBothBad}})
	}
	if n, err := db.SaveAutoVotes(ctx, votes); err != nil || n != 3 {
		t.Fatalf("SaveAutoVotes = %d, %v; want the 3 not yet voted", n, err)
	}
	if n, err := db.SaveAutoVotes(ctx, votes); err != nil || n != 0 {
		t.Fatalf("SaveAutoVotes again = %d, %v", n, err)
	}
	if v, err := db.VoteBy(ctx, f.battles[3].ID, rules.ID); err != nil || v.Dimensions["format_compliance"] != ringside.WinnerBothBad {
		t.Fatalf("stored vote = %+v, %v", v, err)
	}
	page, err := db.GenerationsPage(ctx, f.run.ID, "", 3)
	if err != nil || len(page) != 3 {
		t.Fatalf("page = %d, %v", len(page), err)
	}
	rest, _ := db.GenerationsPage(ctx, f.run.ID, page[2].ID, 100)
	if len(rest) != 5 {
		t.Fatalf("rest = %d", len(rest))
	}
}

func TestSaveLLMJudgment(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	f := mustJudgingFixture(t, db)
	llm, _ := db.EnsureJudge(ctx, ringside.JudgeLLM, "gpt-judge")
	b := f.battles[0]

	failed := &store.LLMJudgment{BattleID: b.ID, JudgeID: llm.ID, Error: "unreadable verdict, twice", CostUSD: 0.002,
		Calls: []store.LLMCall{{Position: "ab", Attempt: 1, Raw: "hmm"}, {Position: "ab", Attempt: 2, Raw: "hmm again"}}}
	if err := db.SaveLLMJudgment(ctx, failed, nil); err != nil {
		t.Fatal(err)
	}
	if todo, _ := db.BattlesToJudge(ctx, llm.ID, f.run.ID); len(todo) != 4 {
		t.Fatalf("a failed battle is not retried: %d to judge", len(todo))
	}

	vote := &ringside.Vote{BattleID: b.ID, JudgeID: llm.ID, Winner: ringside.WinnerA, Reason: "a shown first: A>>B"}
	ok := &store.LLMJudgment{BattleID: b.ID, JudgeID: llm.ID, Weight: 3, TokensIn: 2000, TokensOut: 100, CostUSD: 0.004,
		Calls: []store.LLMCall{
			{Position: "ab", Attempt: 1, Raw: "Verdict: [[A>>B]]", Label: "A>>B", Rationale: "r1", CostUSD: 0.002},
			{Position: "ba", Attempt: 1, Raw: "Verdict: [[B>>A]]", Label: "B>>A", Rationale: "r2", CostUSD: 0.002},
		}}
	if err := db.SaveLLMJudgment(ctx, ok, vote); err != nil {
		t.Fatal(err)
	}
	got, err := db.LLMJudgments(ctx, b.ID, llm.ID)
	if err != nil || len(got) != 2 {
		t.Fatalf("judgments = %+v, %v", got, err)
	}
	if got[0].Status != store.JudgmentFailed || got[0].VoteID != "" || len(got[0].Calls) != 2 || got[0].Calls[1].Raw != "hmm again" {
		t.Fatalf("failure = %+v", got[0])
	}
	if got[1].Status != store.JudgmentOK || got[1].VoteID != vote.ID || got[1].Winner != ringside.WinnerA || got[1].Calls[1].Label != "B>>A" {
		t.Fatalf("success = %+v", got[1])
	}
	weights, _ := db.VoteWeights(ctx)
	if len(weights) != 1 || weights[vote.ID] != 3 {
		t.Fatalf("weights = %v", weights)
	}
	labels, err := db.LLMOrderLabels(ctx, llm.ID, f.run.ID)
	if err != nil || len(labels) != 1 || labels[0].First != "A>>B" || labels[0].Swapped != "B>>A" {
		t.Fatalf("order labels = %+v, %v", labels, err)
	}
	sum, err := db.LLMJudgingSummary(ctx, llm.ID, "")
	if err != nil || sum.OK != 1 || sum.Failed != 1 || sum.Calls != 4 || sum.CostUSD < 0.0059 {
		t.Fatalf("summary = %+v, %v", sum, err)
	}

	// A second vote on the battle stores nothing at all.
	again := &store.LLMJudgment{BattleID: b.ID, JudgeID: llm.ID, Calls: []store.LLMCall{{Position: "ab", Attempt: 1}}}
	err = db.SaveLLMJudgment(ctx, again, &ringside.Vote{BattleID: b.ID, JudgeID: llm.ID, Winner: ringside.WinnerB})
	if ringside.ErrorCode(err) != ringside.ECONFLICT {
		t.Fatalf("second vote: %v", err)
	}
	if got, _ := db.LLMJudgments(ctx, b.ID, llm.ID); len(got) != 2 {
		t.Fatalf("the conflicting judgment was stored: %d", len(got))
	}
}

func TestJudgedVotesCarryJudgeAndLengths(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	f := mustJudgingFixture(t, db)
	rules, _ := db.EnsureJudge(ctx, ringside.JudgeRules, "rules")
	live := mustBattle(t, db, "m1", "m2")
	for _, b := range []*ringside.Battle{f.battles[0], live} {
		if _, err := db.CreateVote(ctx, &ringside.Vote{BattleID: b.ID, JudgeID: rules.ID, Winner: ringside.WinnerTie}); err != nil {
			t.Fatal(err)
		}
	}
	all, err := db.JudgedVotes(ctx, "")
	if err != nil || len(all) != 2 {
		t.Fatalf("votes = %+v, %v", all, err)
	}
	v := all[0]
	if v.JudgeLabel() != "rules:rules" || v.LenA != len("m1 says p1") || v.LenB != len("m2 says p1") {
		t.Fatalf("vote = %+v", v)
	}
	if all[1].LenA != -1 {
		t.Fatalf("a battle without generations = %+v", all[1])
	}
	if inRun, _ := db.JudgedVotes(ctx, f.run.ID); len(inRun) != 1 {
		t.Fatalf("run votes = %d", len(inRun))
	}
}
