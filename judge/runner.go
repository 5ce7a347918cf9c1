package judge

import (
	"context"
	"slices"

	"github.com/ringside-eval/ringside"
)

// Store is what a Runner needs of the database. SaveJudgment takes this
// package's judgment, so that judge does not depend on store;
// judgestore.New adapts store.DB to it.
type Store interface {
	// Prompts returns every stored prompt.
	Prompts(ctx context.Context, sets ...string) ([]ringside.Prompt, error)
	// BattlesToJudge returns the battles of the run (every battle when
	// runID is "") with both sides generated that the judge has not voted
	// on yet.
	BattlesToJudge(ctx context.Context, judgeID, runID string) ([]ringside.Battle, error)
	// LLMFailures counts the judge's failed judgments by battle id.
	LLMFailures(ctx context.Context, judgeID, runID string) (map[string]int, error)
	// Generation returns one generation with its output, or ENOTFOUND.
	Generation(ctx context.Context, id string) (*ringside.Generation, error)
	// GenerationsPage returns up to limit of the run's generations (every
	// run's when runID is "") with ids after afterID, in id order.
	GenerationsPage(ctx context.Context, runID, afterID string, limit int) ([]ringside.Generation, error)
	// SaveAutoVotes stores votes, skipping any the judge already cast, and
	// returns how many it added.
	SaveAutoVotes(ctx context.Context, votes []*ringside.Vote) (int, error)
	// ReplaceCheckResults replaces, in one transaction, the judge's
	// results for the generations (a generation without results in
	// results is cleared).
	ReplaceCheckResults(ctx context.Context, judgeID string, generationIDs []string, results []ringside.CheckResult) error
	// SaveJudgment stores an LLM judgment of a battle and its vote (nil for
	// a failure) in one transaction. A vote the judge already cast on the
	// battle is ECONFLICT and nothing is stored.
	SaveJudgment(ctx context.Context, judgeID, battleID string, jm *Judgment, vote *ringside.Vote) error
}

// Config is what a Runner judges, and how.
type Config struct {
	JudgeID string
	// RunID limits judging to one run's battles ("": every stored battle).
	RunID string
	Store Store
	// LLM is the judge model; nil makes a rules judge, which runs every
	// prompt's checks and Defaults on every generation.
	LLM      *LLM
	Defaults []Check
	// Graders finds the models of llm_rubric checks (nil: none).
	Graders Graders
	// Concurrency is how many battles an LLM judge works on at once.
	Concurrency int
	// GiveUpAfter leaves alone the battles an LLM judge already failed on
	// that many times (0: never).
	GiveUpAfter int
}

// Runner applies one judge to the stored battles it has not voted on.
type Runner struct {
	cfg Config
}

// New checks cfg and returns its Runner. Errors: EINVALID.
func New(cfg Config) (*Runner, error) {
	switch {
	case cfg.JudgeID == "":
		return nil, ringside.FieldError("judge", "no judge id")
	case cfg.Store == nil:
		return nil, ringside.FieldError("store", "no store")
	case cfg.LLM != nil && cfg.Concurrency < 1:
		return nil, ringside.FieldError("concurrency", "must be at least 1 (is %d)", cfg.Concurrency)
	case cfg.GiveUpAfter < 0:
		return nil, ringside.FieldError("max_failures", "must be at least 0 (is %d)", cfg.GiveUpAfter)
	}
	return &Runner{cfg: cfg}, nil
}

// Plan is the work one Execute does, as Prepare found it.
type Plan struct {
	// Battles is how many battles are to be judged.
	Battles int
	// GivenUp counts the battles an LLM judge leaves alone after
	// GiveUpAfter failures each.
	GivenUp int

	battles []ringside.Battle
	prompts map[promptKey]*ringside.Prompt
	rules   *Rules
}

// Empty reports whether there is no battle to judge. A rules judge still
// checks every generation.
func (p *Plan) Empty() bool { return p.Battles == 0 }

// Prepare reads the prompts and the battles left to judge. Errors: a
// malformed check (EINVALID, naming the prompt and the check); the store's.
func (r *Runner) Prepare(ctx context.Context) (*Plan, error) {
	st := r.cfg.Store
	prompts, err := st.Prompts(ctx)
	if err != nil {
		return nil, err
	}
	plan := &Plan{prompts: make(map[promptKey]*ringside.Prompt, len(prompts))}
	for i := range prompts {
		plan.prompts[promptKey{prompts[i].Set, prompts[i].ID}] = &prompts[i]
	}
	if r.cfg.LLM == nil {
		if plan.rules, err = NewRulesWith(prompts, r.cfg.Defaults, r.cfg.Graders); err != nil {
			return nil, err
		}
	}
	if plan.battles, err = st.BattlesToJudge(ctx, r.cfg.JudgeID, r.cfg.RunID); err != nil {
		return nil, err
	}
	// A battle the judge model keeps failing on (too long for it, say)
	// would most likely cost another failure.
	if r.cfg.LLM != nil && r.cfg.GiveUpAfter > 0 {
		failures, err := st.LLMFailures(ctx, r.cfg.JudgeID, r.cfg.RunID)
		if err != nil {
			return nil, err
		}
		plan.battles = slices.DeleteFunc(plan.battles, func(b ringside.Battle) bool {
			if failures[b.ID] >= r.cfg.GiveUpAfter {
				plan.GivenUp++
				return true
			}
			return false
		})
	}
	plan.Battles = len(plan.battles)
	return plan, nil
}

// Observer hears of an LLM judge's progress. Its functions are called one
// at a time; nil ones are skipped.
type Observer struct {
	// Judged is called as each battle's judging ends.
	Judged func(Outcome)
}

// Outcome is how one battle's judging ended.
type Outcome struct {
	Battle *ringside.Battle
	// Vote is the vote written; nil for a failure or a skip.
	Vote *ringside.Vote
	// Failed is set for a judgment recorded without a vote (a rerun tries
	// again); Skipped for a battle not judged (its prompt is gone, or
	// another process voted first).
	Failed, Skipped bool
}

// Report is what one Execute did.
type Report struct {
	// Votes are the votes made; Written how many of them were stored (a
	// rules judge skips those already cast).
	Votes   []*ringside.Vote
	Written int
	// An LLM judge's battles recorded as failures, and skipped.
	Failed, Skipped int

	// A rules judge's generations checked, their results and how many
	// passed; generations of prompts not stored (not checked); battles
	// whose prompts have no checks (no vote).
	Checked, Results, Passed, Unknown, NoChecks int
}

// Execute judges the plan's battles, storing each judgment as it is made.
// The report counts what was done, also when it stops early. Errors: the
// store's, which stop the work; ctx's.
func (r *Runner) Execute(ctx context.Context, plan *Plan, obs Observer) (Report, error) {
	if r.cfg.LLM == nil {
		return r.executeRules(ctx, plan)
	}
	return r.executeLLM(ctx, plan, obs)
}
