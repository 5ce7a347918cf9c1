package judge

import (
	"context"
	"sync"

	"github.com/ringside-eval/ringside"
)

// executeLLM asks the judge model about the plan's battles, Concurrency at
// a time, storing each judgment as it completes.
func (r *Runner) executeLLM(ctx context.Context, plan *Plan, obs Observer) (Report, error) {
	// A store error stops the work: judging on while nothing can be saved
	// would pay for calls whose answers are lost.
	work, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	var (
		mu  sync.Mutex
		rep Report
		wg  sync.WaitGroup
	)
	sem := make(chan struct{}, r.cfg.Concurrency)
	for i := range plan.battles {
		b := &plan.battles[i]
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
			vote, ok, err := r.judgeBattle(work, b, plan.prompts[promptKey{b.PromptSet, b.PromptID}])
			mu.Lock()
			defer mu.Unlock()
			out := Outcome{Battle: b, Vote: vote}
			switch {
			case err != nil:
				stop(err)
				return
			case !ok:
				rep.Skipped++
				out.Skipped = true
			case vote == nil:
				rep.Failed++
				out.Failed = true
			default:
				rep.Votes = append(rep.Votes, vote)
			}
			if obs.Judged != nil {
				obs.Judged(out)
			}
		}()
	}
	wg.Wait()
	rep.Written = len(rep.Votes)
	return rep, context.Cause(work)
}

// judgeBattle judges and stores one battle. It returns the vote written,
// nil for a recorded failure, and ok false for a battle skipped (its prompt
// is gone, or another process voted first).
func (r *Runner) judgeBattle(ctx context.Context, b *ringside.Battle, p *ringside.Prompt) (*ringside.Vote, bool, error) {
	if p == nil {
		return nil, false, nil
	}
	st := r.cfg.Store
	ga, err := st.Generation(ctx, b.GenerationA)
	if err != nil {
		return nil, false, err
	}
	gb, err := st.Generation(ctx, b.GenerationB)
	if err != nil {
		return nil, false, err
	}
	jm, err := r.cfg.LLM.Judge(ctx, p, ga, gb)
	if err != nil {
		return nil, false, err
	}
	var vote *ringside.Vote
	if !jm.Failed {
		vote = &ringside.Vote{BattleID: b.ID, JudgeID: r.cfg.JudgeID, Winner: jm.Winner, Dimensions: jm.Dimensions, Reason: jm.Reason}
	}
	// The judgment's own context: a cancel after the calls were paid for
	// should still keep what they said.
	err = st.SaveJudgment(context.WithoutCancel(ctx), r.cfg.JudgeID, b.ID, &jm, vote)
	if ringside.ErrorCode(err) == ringside.ECONFLICT {
		return nil, false, nil
	}
	return vote, true, err
}
