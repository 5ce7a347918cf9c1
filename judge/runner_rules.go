package judge

import (
	"context"

	"github.com/ringside-eval/ringside"
)

// page is how many generations and votes go to the store at once.
const page = 500

// executeRules checks every generation in scope, stores the results, and
// votes on the plan's battles.
func (r *Runner) executeRules(ctx context.Context, plan *Plan) (Report, error) {
	var rep Report
	needed := map[string][]ringside.CheckResult{}
	for _, b := range plan.battles {
		needed[b.GenerationA], needed[b.GenerationB] = nil, nil
	}
	if err := r.checkAll(ctx, plan.rules, needed, &rep); err != nil {
		return rep, err
	}
	for _, b := range plan.battles {
		w, dims, reason, ok := RuleVote(needed[b.GenerationA], needed[b.GenerationB])
		if !ok {
			rep.NoChecks++
			continue
		}
		rep.Votes = append(rep.Votes, &ringside.Vote{BattleID: b.ID, JudgeID: r.cfg.JudgeID, Winner: w, Dimensions: dims, Reason: reason})
	}
	for start := 0; start < len(rep.Votes); start += page {
		n, err := r.cfg.Store.SaveAutoVotes(ctx, rep.Votes[start:min(start+page, len(rep.Votes))])
		if err != nil {
			return rep, err
		}
		rep.Written += n
	}
	return rep, nil
}

// checkAll runs the checks on every generation in scope, not only those in
// battles: pass^k needs every sample. Results are replaced, so they follow
// edited checks. The results of the generations in needed are kept there.
func (r *Runner) checkAll(ctx context.Context, rules *Rules, needed map[string][]ringside.CheckResult, rep *Report) error {
	for after := ""; ; {
		gens, err := r.cfg.Store.GenerationsPage(ctx, r.cfg.RunID, after, page)
		if err != nil || len(gens) == 0 {
			return err
		}
		ids := make([]string, 0, len(gens))
		var results []ringside.CheckResult
		for i := range gens {
			g := &gens[i]
			rs, ok := rules.CheckContext(ctx, g)
			if !ok {
				rep.Unknown++
				continue
			}
			rep.Checked++
			ids = append(ids, g.ID)
			results = append(results, rs...)
			if _, want := needed[g.ID]; want {
				needed[g.ID] = rs
			}
			for _, res := range rs {
				if res.Pass {
					rep.Passed++
				}
			}
			rep.Results += len(rs)
		}
		if err := r.cfg.Store.ReplaceCheckResults(ctx, r.cfg.JudgeID, ids, results); err != nil {
			return err
		}
		after = gens[len(gens)-1].ID
	}
}
