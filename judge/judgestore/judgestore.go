// Package judgestore is the SQLite store as a judge.Runner's: judge may not
// import store, so the runner's LLM judgments are judge's own type, which
// this package translates to store's record.
package judgestore

import (
	"context"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/judge"
	"github.com/ringside-eval/ringside/store"
)

// Store is db as a judge.Runner's store.
type Store struct{ *store.DB }

// New returns db as a judge.Runner's store.
func New(db *store.DB) judge.Store { return Store{db} }

// SaveJudgment stores an LLM judgment with SaveLLMJudgment: each call's
// order is "ab" (side a shown first) or "ba".
func (s Store) SaveJudgment(ctx context.Context, judgeID, battleID string, jm *judge.Judgment, vote *ringside.Vote) error {
	rec := &store.LLMJudgment{BattleID: battleID, JudgeID: judgeID, Weight: jm.Weight, Error: jm.Error,
		TokensIn: jm.TokensIn, TokensOut: jm.TokensOut, CostUSD: jm.CostUSD}
	for _, c := range jm.Calls {
		pos := "ab"
		if c.Swapped {
			pos = "ba"
		}
		rec.Calls = append(rec.Calls, store.LLMCall{Position: pos, Attempt: c.Attempt, Raw: c.Raw, Label: string(c.Label),
			Rationale: c.Rationale, TokensIn: c.TokensIn, TokensOut: c.TokensOut, CostUSD: c.CostUSD, LatencyMs: c.LatencyMs, Error: c.Error})
	}
	return s.SaveLLMJudgment(ctx, rec, vote)
}
