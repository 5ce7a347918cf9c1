package leaderboard

import (
	"context"

	"github.com/ringside-eval/ringside/store"
	"github.com/ringside-eval/ringside/trust"
)

// JudgesReport measures the judges of the database (of a run when runID is
// set) with the admins' choices applied: the report behind `ringside
// judges`, the admin page, and the judges a board leaves out.
func JudgesReport(ctx context.Context, db *store.DB, runID string, th trust.Thresholds) (*trust.Report, error) {
	tvs, err := db.TrustVotes(ctx, runID)
	if err != nil {
		return nil, err
	}
	votes := make([]trust.Vote, len(tvs))
	for i, v := range tvs {
		votes[i] = trust.Vote{Battle: v.BattleID, ModelA: v.ModelA, ModelB: v.ModelB, Judge: v.Judge,
			Winner: v.Winner, DurationMs: v.DurationMs, Chars: v.Chars, Gold: v.Gold}
	}
	xs, err := db.JudgeExclusions(ctx)
	if err != nil {
		return nil, err
	}
	overrides := map[string]bool{}
	for label, x := range xs {
		overrides[label] = x.Excluded
	}
	return trust.Analyse(votes, th, overrides)
}
