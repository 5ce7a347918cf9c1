package judging

import (
	"context"

	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/pairing"
	"github.com/ringside-eval/ringside/store"
)

// PlanReport is a plan with the inverse-propensity ratings of the votes so
// far: what uniform dealing would have given (see pairing.WeightedFit),
// beside the plain fit in Plan.Ratings. Weighted is nil when no vote was
// dealt with a stored propensity.
type PlanReport struct {
	*pairing.Plan
	Pairing  string             `json:"pairing"`
	Weighted map[string]float64 `json:"weighted,omitempty"`
}

// Plan says how many more votes the decision needs under cfg's pairing,
// from the votes in db: the pairs dealt among are those dealing would use
// (planPairs), and every pair of the models voted on when none of those
// has votes (imported votes).
func Plan(ctx context.Context, db *store.DB, cfg *config.Config, o pairing.PlanOptions) (*PlanReport, error) {
	tallies, err := db.PairTallies(ctx)
	if err != nil {
		return nil, err
	}
	tr := pairing.NewTracker(nil)
	var weighted []pairing.Tally
	drawn := false
	for _, t := range tallies {
		tr.Add(t.ModelA, t.ModelB, scoreA(t.Winner), float64(t.Count))
		if t.Drawn > 0 {
			drawn = true
			weighted = append(weighted, pairing.Tally{A: t.ModelA, B: t.ModelB, ScoreA: scoreA(t.Winner),
				Count: float64(t.Drawn), Propensity: float64(t.Drawn) / t.InverseSum})
		}
		if undrawn := t.Count - t.Drawn; undrawn > 0 {
			weighted = append(weighted, pairing.Tally{A: t.ModelA, B: t.ModelB, ScoreA: scoreA(t.Winner), Count: float64(undrawn)})
		}
	}
	names, err := planPairs(ctx, db, cfg)
	if err != nil {
		return nil, err
	}
	if !anyVoted(tr, names) {
		// Votes on other models only (an import, with the demo's config):
		// plan for the models voted on.
		names = nil
	}
	for _, p := range names {
		tr.Add(p[0], p[1], 0, 0)
	}
	var pairs []pairing.Pair
	for _, p := range names {
		pairs = append(pairs, pairing.Pair{I: tr.Index(p[0]), J: tr.Index(p[1])})
	}
	if len(pairs) == 0 {
		pairs = pairing.AllPairs(tr.Len())
	}
	if o.BoardRounds == 0 {
		// The simulated board has the real one's bootstrap error; none
		// without a bootstrap.
		o.BoardRounds = cfg.Rank.Bootstrap
		if o.BoardRounds == 0 {
			o.BoardRounds = -1
		}
	}
	rep := &PlanReport{Plan: pairing.MakePlan(tr, PolicyOf(cfg.Judging), pairs, o), Pairing: cfg.Judging.Pairing}
	if drawn {
		models := tr.Models()
		rep.Weighted = map[string]float64{}
		for i, r := range pairing.WeightedFit(models, weighted) {
			rep.Weighted[models[i]] = r
		}
	}
	return rep, nil
}

// anyVoted says whether a model of the pairs has votes (or there are no
// votes at all, so that a plan from the prior uses the configured models).
func anyVoted(tr *pairing.Tracker, pairs [][2]string) bool {
	if tr.Votes() == 0 {
		return true
	}
	for _, p := range pairs {
		for _, m := range p {
			if i := tr.Index(m); i >= 0 && tr.Battles(i) > 0 {
				return true
			}
		}
	}
	return false
}

// planPairs are the pairs judging would deal among: every pair of the
// candidate pool (config.JudgingPool, the models live and chat battles are
// drawn from, not a model configured only to judge) when judging.source or
// judging.sources deals live or chat battles, and the pairs of the stored
// battles when it deals stored ones; both, without repeats, for a mix.
func planPairs(ctx context.Context, db *store.DB, cfg *config.Config) ([][2]string, error) {
	var out [][2]string
	seen := map[[2]string]bool{}
	add := func(a, b string) {
		k := [2]string{min(a, b), max(a, b)}
		if a != b && !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	j := &cfg.Judging
	if j.UsesSource(config.SourceLive) || j.UsesSource(config.SourceChat) {
		var pool []string
		for _, name := range cfg.JudgingPool() {
			if _, ok := cfg.Model(name); ok {
				pool = append(pool, name)
			}
		}
		for i, a := range pool {
			for _, b := range pool[i+1:] {
				add(a, b)
			}
		}
	}
	if j.UsesSource(config.SourceStored) {
		var sp storedPairs
		ps, err := db.StoredPairs(ctx, cfg.Judging.Runs)
		if err != nil {
			return nil, err
		}
		for _, p := range sp.dedupe(ps) {
			add(p[0], p[1])
		}
	}
	return out, nil
}
