package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/judge"
	"github.com/ringside-eval/ringside/provider"
	"github.com/ringside-eval/ringside/store"
)

func (m *Main) judgeCmd(ctx context.Context, args []string) error {
	fs := m.newFlagSet("judge", "[--config F] [--run NAME] [--judge NAME] [--db F] [--concurrency C] [--retry-failed] [--stats]", `
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
each with an optional "weight" (default 1) and "dimension".

An llm judge asks its model to compare the two answers twice, once in each
order, for a verdict on A>>B, A>B, A=B, B>A, B>>A with a short rationale.
Verdicts that disagree make a tie; an unreadable verdict is asked again
once, then recorded as a failure (no vote; a rerun tries again, until the
battle has max_failures failures, 3 by default). Every call, its raw answer
and its cost are stored. With per_dimension = true it also asks for a
verdict on each configured dimension, combined over the two orders in the
same way; a dimension not read in both orders is left out of the vote.`)
	cfgPath := fs.String("config", "", "config file (default: $RINGSIDE_CONFIG, else the built-in demo)")
	runName := fs.String("run", "", "judge this run's battles only (default: every stored battle)")
	judgeName := fs.String("judge", ringside.JudgeRules, "the configured judge to apply")
	dbPath := fs.String("db", "", "SQLite database file (default: database.path, ringside.db)")
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
	if jc.Kind == ringside.JudgeRules {
		err = m.judgeRules(ctx, db, jc, j, runID)
	} else {
		giveUpAfter := jc.FailureCap()
		if *retryFailed {
			giveUpAfter = 0
		}
		err = m.judgeLLM(ctx, db, cfg, jc, j, runID, *concurrency, giveUpAfter)
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

// page is how many generations and votes go to the database at once.
const page = 500

// judgeRules checks every generation in scope, stores the results, and
// votes on the battles the judge has not voted on yet.
func (m *Main) judgeRules(ctx context.Context, db *store.DB, jc config.Judge, j *ringside.Judge, runID string) error {
	dcs, err := jc.DefaultChecks()
	if err != nil {
		return err
	}
	defaults, err := judge.CompileDefaults(dcs)
	if err != nil {
		return err
	}
	prompts, err := db.Prompts(ctx)
	if err != nil {
		return err
	}
	rules, err := judge.NewRules(prompts, defaults)
	if err != nil {
		return err
	}
	battles, err := db.BattlesToJudge(ctx, j.ID, runID)
	if err != nil {
		return err
	}
	needed := map[string][]ringside.CheckResult{}
	for _, b := range battles {
		needed[b.GenerationA], needed[b.GenerationB] = nil, nil
	}

	// Every generation is checked, not only those in battles: pass^k needs
	// every sample. Results are replaced, so they follow edited checks.
	var checked, results, passed, unknown int
	for after := ""; ; {
		gens, err := db.GenerationsPage(ctx, runID, after, page)
		if err != nil {
			return err
		} else if len(gens) == 0 {
			break
		}
		ids := make([]string, 0, len(gens))
		var rows []ringside.CheckResult
		for i := range gens {
			g := &gens[i]
			rs, ok := rules.Check(g)
			if !ok {
				unknown++
				continue
			}
			checked++
			ids = append(ids, g.ID)
			if _, want := needed[g.ID]; want {
				needed[g.ID] = rs
			}
			for _, r := range rs {
				rows = append(rows, ringside.CheckResult{GenerationID: g.ID, Source: r.Source, Index: r.Index, Type: r.Type,
					Dimension: r.Dimension, Weight: r.Weight, Pass: r.Pass, Detail: r.Detail})
				if r.Pass {
					passed++
				}
			}
			results += len(rs)
		}
		if err := db.ReplaceCheckResults(ctx, j.ID, ids, rows); err != nil {
			return err
		}
		after = gens[len(gens)-1].ID
	}
	fmt.Fprintf(m.Stdout, "judge %s: checked %d generations: %d of %d checks passed\n", j.Name, checked, passed, results)
	if unknown > 0 {
		fmt.Fprintf(m.Stdout, "judge %s: %d generations of prompts not in the database were skipped\n", j.Name, unknown)
	}

	var votes []*ringside.Vote
	noChecks := 0
	for _, b := range battles {
		w, dims, reason, ok := judge.RuleVote(needed[b.GenerationA], needed[b.GenerationB])
		if !ok {
			noChecks++
			continue
		}
		votes = append(votes, &ringside.Vote{BattleID: b.ID, JudgeID: j.ID, Winner: w, Dimensions: dims, Reason: reason})
	}
	written := 0
	for start := 0; start < len(votes); start += page {
		n, err := db.SaveAutoVotes(ctx, votes[start:min(start+page, len(votes))])
		if err != nil {
			return err
		}
		written += n
	}
	fmt.Fprintf(m.Stdout, "judge %s: %d votes written (%s)", j.Name, written, winnerCounts(votes))
	if noChecks > 0 {
		fmt.Fprintf(m.Stdout, "; %d battles skipped: their prompts have no checks", noChecks)
	}
	fmt.Fprintln(m.Stdout)
	return nil
}

// judgeLLM asks the judge model about every battle it has not voted on,
// concurrency battles at a time, storing each judgment as it completes. It
// leaves alone the battles it already failed on giveUpAfter times (never
// when 0).
func (m *Main) judgeLLM(ctx context.Context, db *store.DB, cfg *config.Config, jc config.Judge, j *ringside.Judge,
	runID string, concurrency, giveUpAfter int) error {
	model, _ := cfg.Model(jc.Model) // config validation checked the name
	streamer, err := provider.New(model, provider.Options{Getenv: m.Getenv})
	if err != nil {
		return err
	}
	llm := &judge.LLM{Model: model, Streamer: streamer, UseReference: jc.UseReference, StrongWeight: jc.StrongWeight}
	if jc.PerDimension {
		llm.Dimensions = cfg.Dimensions
	}
	if jc.PromptFile != "" {
		text, err := os.ReadFile(jc.PromptFile)
		if err != nil {
			return ringside.Errorf(ringside.EINVALID, "judge %s: prompt_file: %v", jc.Name, err)
		}
		if llm.Template, err = judge.ParseTemplate(jc.PromptFile, string(text)); err != nil {
			return err
		}
	}
	prompts, err := db.Prompts(ctx)
	if err != nil {
		return err
	}
	byID := make(map[string]*ringside.Prompt, len(prompts))
	for i := range prompts {
		byID[prompts[i].ID] = &prompts[i]
	}
	battles, err := db.BattlesToJudge(ctx, j.ID, runID)
	if err != nil {
		return err
	}
	// A battle the judge model keeps failing on (too long for it, say)
	// would most likely cost another failure.
	givenUp := 0
	if giveUpAfter > 0 {
		failures, err := db.LLMFailures(ctx, j.ID, runID)
		if err != nil {
			return err
		}
		battles = slices.DeleteFunc(battles, func(b ringside.Battle) bool {
			if failures[b.ID] >= giveUpAfter {
				givenUp++
				return true
			}
			return false
		})
	}

	// A store error stops the work: judging on while nothing can be saved
	// would pay for calls whose answers are lost.
	work, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	var (
		mu                 sync.Mutex
		done, failed, skip int
		votes              []*ringside.Vote
		wg                 sync.WaitGroup
	)
	sem := make(chan struct{}, concurrency)
	for i := range battles {
		b := &battles[i]
		select {
		case sem <- struct{}{}:
		case <-work.Done():
		}
		if work.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			vote, ok, err := judgeBattle(work, db, llm, j.ID, b, byID[b.PromptID])
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil:
				stop(err)
			case !ok:
				skip++
			case vote == nil:
				failed++
			default:
				votes = append(votes, vote)
			}
			if done++; done%100 == 0 {
				fmt.Fprintf(m.Stderr, "judge %s: %d/%d battles\n", j.Name, done, len(battles))
			}
		}()
	}
	wg.Wait()
	if err := context.Cause(work); err != nil {
		return err
	}
	sum, err := db.LLMJudgingSummary(ctx, j.ID, runID)
	if err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "judge %s: %d votes written (%s), %d failed (recorded without a vote; a rerun tries them again)",
		j.Name, len(votes), winnerCounts(votes), failed)
	if skip > 0 {
		fmt.Fprintf(m.Stdout, ", %d skipped", skip)
	}
	if givenUp > 0 {
		fmt.Fprintf(m.Stdout, ", %d left alone after %d failures each (--retry-failed tries them)", givenUp, giveUpAfter)
	}
	fmt.Fprintf(m.Stdout, "\njudge %s: %d calls so far, %d tokens in, %d out, $%.4f (failures included)\n",
		j.Name, sum.Calls, sum.TokensIn, sum.TokensOut, sum.CostUSD)
	return nil
}

// judgeBattle judges and stores one battle. It returns the vote written,
// nil for a recorded failure, and ok false for a battle skipped (its prompt
// is gone, or another process voted first).
func judgeBattle(ctx context.Context, db *store.DB, llm *judge.LLM, judgeID string, b *ringside.Battle, p *ringside.Prompt) (*ringside.Vote, bool, error) {
	if p == nil {
		return nil, false, nil
	}
	ga, err := db.Generation(ctx, b.GenerationA)
	if err != nil {
		return nil, false, err
	}
	gb, err := db.Generation(ctx, b.GenerationB)
	if err != nil {
		return nil, false, err
	}
	jm, err := llm.Judge(ctx, p, ga, gb)
	if err != nil {
		return nil, false, err
	}
	rec := &store.LLMJudgment{BattleID: b.ID, JudgeID: judgeID, Weight: jm.Weight, Error: jm.Error,
		TokensIn: jm.TokensIn, TokensOut: jm.TokensOut, CostUSD: jm.CostUSD}
	for _, c := range jm.Calls {
		pos := "ab"
		if c.Swapped {
			pos = "ba"
		}
		rec.Calls = append(rec.Calls, store.LLMCall{Position: pos, Attempt: c.Attempt, Raw: c.Raw, Label: string(c.Label),
			Rationale: c.Rationale, TokensIn: c.TokensIn, TokensOut: c.TokensOut, CostUSD: c.CostUSD, LatencyMs: c.LatencyMs, Error: c.Error})
	}
	var vote *ringside.Vote
	if !jm.Failed {
		vote = &ringside.Vote{BattleID: b.ID, JudgeID: judgeID, Winner: jm.Winner, Dimensions: jm.Dimensions, Reason: jm.Reason}
	}
	// The judgment's own context: a cancel after the calls were paid for
	// should still keep what they said.
	err = db.SaveLLMJudgment(context.WithoutCancel(ctx), rec, vote)
	if ringside.ErrorCode(err) == ringside.ECONFLICT {
		return nil, false, nil
	}
	return vote, true, err
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
