package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"strconv"
	"time"

	"github.com/ringside-eval/ringside/store"
)

var llmJudgmentCSVHead = []string{"id", "battle_id", "judge", "model_a", "model_b", "question_id", "status", "winner",
	"weight", "error", "calls", "unreadable_calls", "tokens_in", "tokens_out", "cost_usd", "created_at", "vote_id", "run_id"}

// exportLLMJudgments writes every LLM judging, failures included: JSONL
// with each call's raw answer, or CSV with one row per judging and the
// number of its calls whose verdict could not be read.
func exportLLMJudgments(ctx context.Context, db *store.DB, runID, format string, w io.Writer, rows *int) error {
	if format != "csv" {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		return db.EachExportLLMJudgment(ctx, runID, func(e *store.ExportLLMJudgment) error {
			*rows++
			return enc.Encode(e)
		})
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(llmJudgmentCSVHead); err != nil {
		return err
	}
	err := db.EachExportLLMJudgment(ctx, runID, func(e *store.ExportLLMJudgment) error {
		*rows++
		unreadable := 0
		for _, c := range e.Calls {
			if c.Label == "" {
				unreadable++
			}
		}
		return cw.Write([]string{e.ID, e.BattleID, e.Judge, e.ModelA, e.ModelB, e.PromptID, e.Status, string(e.Winner),
			strconv.Itoa(e.Weight), e.Error, strconv.Itoa(len(e.Calls)), strconv.Itoa(unreadable),
			strconv.Itoa(e.TokensIn), strconv.Itoa(e.TokensOut), strconv.FormatFloat(e.CostUSD, 'f', -1, 64),
			e.CreatedAt.UTC().Format(time.RFC3339Nano), e.VoteID, e.RunID})
	})
	if err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}
