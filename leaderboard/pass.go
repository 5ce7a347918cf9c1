package leaderboard

import (
	"context"

	"github.com/ringside-eval/ringside/judge"
	"github.com/ringside-eval/ringside/store"
)

// LoadPassStats computes each rules judge's pass rate, pass^k and pass@k per
// model over a run's generations (every generation when runID is ""), keyed
// by the judge's label; nil when no rules judge has results.
func LoadPassStats(ctx context.Context, db *store.DB, runID string) (map[string][]judge.PassStats, error) {
	judges, err := db.RulesJudges(ctx)
	if err != nil {
		return nil, err
	}
	var out map[string][]judge.PassStats
	for _, j := range judges {
		rows, err := db.CheckScores(ctx, j.ID, runID)
		if err != nil {
			return nil, err
		}
		if ps := judge.ComputePassStats(rows); len(ps) > 0 {
			if out == nil {
				out = map[string][]judge.PassStats{}
			}
			out[j.Label()] = ps
		}
	}
	return out, nil
}
