package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/judge"
	"github.com/ringside-eval/ringside/judge/judgestore"
	"github.com/ringside-eval/ringside/provider"
	"github.com/ringside-eval/ringside/store"
)

// judgeHelp is ringside judge -h.
const judgeHelp = `
Applies an automatic judge to stored battles and writes its votes, which
rank like anyone's and carry the judge (rank --by judge). A battle the judge
already voted on is skipped, so a rerun only does what is left; battles with
a failed side are not judged (the failure counts in the error rate).

rules (always available, and configurable with default checks under
[[judges]]) runs every prompt's checks on every generation, stores each
result (pass or fail, and why), and votes for the side with the higher
weighted score: equal scores tie, nothing passed on either side is bothbad,
and each dimension named by checks gets its own verdict. Check types:
  contains icontains not_contains equals starts_with  "value": "text"
  regex  "pattern": "RE2"        is_json        json_schema  "schema": {...}
  min_chars max_chars max_words max_latency_ms max_cost_usd  "value": number
  reference_match  "value": "exact" | "normalized"      refusal  no_refusal
  command  "command": ["program", "arg", ...], "timeout": "10s"
  llm_rubric  "value": "the rubric", "model": "a configured model"
each with an optional "weight" (default 1) and "dimension".

A command check runs your own program, with no shell, on each answer: the
answer on its stdin, the prompt and generation as JSON on file descriptor 3
(RINGSIDE_PROMPT_FD=3; RINGSIDE_PROMPT_ID, RINGSIDE_MODEL and
RINGSIDE_GENERATION_ID are set too).
Exit 0 passes, anything else fails; the first line of its output is the
reason. Past its timeout (default 10s) it is killed and the check fails. A
program that cannot be found stops the judge before anything is stored.
An llm_rubric check asks the model for {"pass": ..., "reason": ...} on one
answer, read strictly (asked again once if unreadable, else failed); its
cost is stored with the result.

An llm judge asks its model to compare the two answers twice, once in each
order, for a verdict on A>>B, A>B, A=B, B>A, B>>A with a short rationale.
Verdicts that disagree make a tie; an unreadable verdict is asked again
once, then recorded as a failure (no vote; a rerun tries again, until the
battle has max_failures failures, 3 by default). Every call, its raw answer
and its cost are stored. With per_dimension = true it also asks for a
verdict on each configured dimension, combined over the two orders in the
same way; a dimension not read in both orders is left out of the vote.`

func (m *Main) judgeCmd(ctx context.Context, args []string) error {
	fs := m.newFlagSet("judge", "[--config F] [--run NAME] [--judge NAME] [--db F] [--concurrency C] [--retry-failed] [--stats]", judgeHelp)
	cfgPath := fs.String("config", "", "config file (default: $RINGSIDE_CONFIG, else the built-in demo)")
	runName := fs.String("run", "", "judge this run's battles only (default: every stored battle)")
	judgeName := fs.String("judge", ringside.JudgeRules, "the configured judge to apply")
	dbPath := fs.String("db", "", dbFlagHelp)
	concurrency := fs.Int("concurrency", 4, "battles an llm judge works on at once")
	retryFailed := fs.Bool("retry-failed", false, "also judge battles an llm judge gave up on (max_failures)")
	stats := fs.Bool("stats", false, "then print pass rates (pass^k, pass@k) and agreement between judges")
	showPrompt := fs.Bool("show-prompt", false, "print the built-in LLM judging prompt (a template to copy into prompt_file) and exit")
	if err := m.parseFlags(fs, args); err != nil {
		return err
	}
	if *showPrompt {
		fmt.Fprint(m.Stdout, judge.DefaultPrompt)
		return nil
	}
	if *concurrency < 1 {
		return ringside.FieldError("--concurrency", "must be at least 1")
	}
	cfg, err := m.loadConfig(*cfgPath)
	if err != nil {
		return err
	}
	jc, err := findJudge(cfg, *judgeName)
	if err != nil {
		return err
	}
	db, err := openSyncedDB(ctx, cfg, *dbPath, m.Stdout)
	if err != nil {
		return err
	}
	defer db.Close()
	runID := ""
	if *runName != "" {
		run, err := db.RunByName(ctx, *runName)
		if err != nil {
			return err
		}
		runID = run.ID
	}
	j, err := db.EnsureJudge(ctx, jc.Kind, jc.Name)
	if err != nil {
		return err
	}
	rc := judge.Config{JudgeID: j.ID, RunID: runID, Store: judgestore.New(db), Concurrency: *concurrency}
	if jc.Kind == ringside.JudgeRules {
		err = m.judgeRules(ctx, cfg, jc, j, rc)
	} else {
		rc.GiveUpAfter = jc.FailureCap()
		if *retryFailed {
			rc.GiveUpAfter = 0
		}
		err = m.judgeLLM(ctx, db, cfg, jc, j, rc)
	}
	if err != nil {
		return err
	}
	if *stats {
		st, err := loadJudgeStats(ctx, db, runID)
		if err != nil {
			return err
		}
		st.write(m.Stdout)
	}
	return db.Close()
}

// findJudge returns the configured judge of that name. "rules" is always
// there: the prompts' own checks need no configuration.
func findJudge(cfg *config.Config, name string) (config.Judge, error) {
	var names []string
	for _, j := range cfg.Judges {
		if j.Name == name {
			return j, nil
		}
		names = append(names, j.Name)
	}
	if name == ringside.JudgeRules {
		return config.Judge{Name: ringside.JudgeRules, Kind: ringside.JudgeRules}, nil
	}
	if len(names) == 0 {
		return config.Judge{}, ringside.FieldError("--judge", "%q is not configured; the config has no [[judges]], so only rules is available", name)
	}
	return config.Judge{}, ringside.FieldError("--judge", "%q is not configured (judges: rules, %s)", name, strings.Join(names, ", "))
}

// judgeRules checks every generation in scope, stores the results, and
// votes on the battles the judge has not voted on yet.
func (m *Main) judgeRules(ctx context.Context, cfg *config.Config, jc config.Judge, j *ringside.Judge, rc judge.Config) error {
	dcs, err := jc.DefaultChecks()
	if err != nil {
		return err
	}
	if rc.Defaults, err = judge.CompileDefaults(dcs); err != nil {
		return err
	}
	rc.Graders = m.graders(cfg)
	r, err := judge.New(rc)
	if err != nil {
		return err
	}
	plan, err := r.Prepare(ctx)
	if err != nil {
		return err
	}
	rep, err := r.Execute(ctx, plan, judge.Observer{})
	if err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "judge %s: checked %d generations: %d of %d checks passed\n", j.Name, rep.Checked, rep.Passed, rep.Results)
	if rep.Unknown > 0 {
		fmt.Fprintf(m.Stdout, "judge %s: %d generations of prompts not in the database were skipped\n", j.Name, rep.Unknown)
	}
	fmt.Fprintf(m.Stdout, "judge %s: %d votes written (%s)", j.Name, rep.Written, winnerCounts(rep.Votes))
	if rep.NoChecks > 0 {
		fmt.Fprintf(m.Stdout, "; %d battles skipped: their prompts have no checks", rep.NoChecks)
	}
	fmt.Fprintln(m.Stdout)
	return nil
}

// judgeLLM asks the judge model about every battle it has not voted on,
// showing its progress on stderr, and says what it did and what judging
// has cost so far.
func (m *Main) judgeLLM(ctx context.Context, db *store.DB, cfg *config.Config, jc config.Judge, j *ringside.Judge, rc judge.Config) error {
	llm, err := m.llmJudge(cfg, jc)
	if err != nil {
		return err
	}
	rc.LLM = llm
	r, err := judge.New(rc)
	if err != nil {
		return err
	}
	plan, err := r.Prepare(ctx)
	if err != nil {
		return err
	}
	var obs judge.Observer
	var prog progress
	if !plan.Empty() {
		prog = startProgress(m.Stderr, isTerminal(m.Stderr), progressSpec{label: "judge " + j.Name, noun: "battles", total: plan.Battles})
		obs.Judged = func(o judge.Outcome) { prog.add("", o.Failed) }
	}
	rep, err := r.Execute(ctx, plan, obs)
	if prog != nil {
		prog.stop()
	}
	if err != nil {
		return err
	}
	sum, err := db.LLMJudgingSummary(ctx, j.ID, rc.RunID)
	if err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "judge %s: %d votes written (%s), %d failed (recorded without a vote; a rerun tries them again)",
		j.Name, rep.Written, winnerCounts(rep.Votes), rep.Failed)
	if rep.Skipped > 0 {
		fmt.Fprintf(m.Stdout, ", %d skipped", rep.Skipped)
	}
	if plan.GivenUp > 0 {
		fmt.Fprintf(m.Stdout, ", %d left alone after %d failures each (--retry-failed tries them)", plan.GivenUp, rc.GiveUpAfter)
	}
	fmt.Fprintf(m.Stdout, "\njudge %s: %d calls so far, %d tokens in, %d out, $%.4f (failures included)\n",
		j.Name, sum.Calls, sum.TokensIn, sum.TokensOut, sum.CostUSD)
	return nil
}

// llmJudge builds the judge's model client and prompt.
func (m *Main) llmJudge(cfg *config.Config, jc config.Judge) (*judge.LLM, error) {
	model, _ := cfg.Model(jc.Model) // config validation checked the name
	streamer, err := provider.New(model, provider.Options{Getenv: m.Getenv})
	if err != nil {
		return nil, err
	}
	llm := &judge.LLM{Model: model, Streamer: streamer, UseReference: jc.UseReference, StrongWeight: jc.StrongWeight}
	if jc.PerDimension {
		llm.Dimensions = cfg.Dimensions
	}
	if jc.PromptFile != "" {
		text, err := os.ReadFile(jc.PromptFile)
		if err != nil {
			return nil, ringside.Errorf(ringside.EINVALID, "judge %s: prompt_file: %v", jc.Name, err)
		}
		if llm.Template, err = judge.ParseTemplate(jc.PromptFile, string(text)); err != nil {
			return nil, err
		}
	}
	return llm, nil
}

// graders finds the configured models llm_rubric checks name, with their
// clients (a missing API key is an error naming the check).
func (m *Main) graders(cfg *config.Config) judge.Graders {
	return func(name string) (*judge.Grader, error) {
		model, ok := cfg.Model(name)
		if !ok {
			return nil, ringside.Errorf(ringside.EINVALID, "%q is not a configured model", name)
		}
		streamer, err := provider.New(model, provider.Options{Getenv: m.Getenv})
		if err != nil {
			return nil, err
		}
		return &judge.Grader{Model: model, Streamer: streamer}, nil
	}
}

func winnerCounts(votes []*ringside.Vote) string {
	counts := map[ringside.Winner]int{}
	for _, v := range votes {
		counts[v.Winner]++
	}
	var parts []string
	for _, w := range []ringside.Winner{ringside.WinnerA, ringside.WinnerB, ringside.WinnerTie, ringside.WinnerBothBad} {
		parts = append(parts, fmt.Sprintf("%s %d", w, counts[w]))
	}
	return strings.Join(parts, ", ")
}
