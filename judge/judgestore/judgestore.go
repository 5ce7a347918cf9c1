// Package judgestore is the SQLite store as a judge.Runner's: judge may not
// import store, so the runner's two writes take judge's results, and this
// package translates them to store's records.
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

// SaveCheckResults stores a rules judge's results with ReplaceCheckResults.
func (s Store) SaveCheckResults(ctx context.Context, judgeID string, generationIDs []string, results [][]judge.Result) error {
	var rows []store.CheckResult
	for i, rs := range results {
		for _, r := range rs {
			rows = append(rows, store.CheckResult{GenerationID: generationIDs[i], Source: r.Source, Index: r.Index, Type: r.Type,
				Dimension: r.Dimension, Weight: r.Weight, Pass: r.Pass, Detail: r.Detail})
		}
	}
	return s.ReplaceCheckResults(ctx, judgeID, generationIDs, rows)
}

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
