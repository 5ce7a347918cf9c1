package server

// This file reads the judges' statistics and the battles download; the
// votes and measurements themselves come from package leaderboard, shared
// with the CLI.

import (
	"context"
	"io"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/battlefile"
	"github.com/ringside-eval/ringside/judge"
	"github.com/ringside-eval/ringside/store"
)

// loadAgreement compares every two judges on the battles both voted on;
// people are pooled as "human", as `ringside rank --by judge` does.
func loadAgreement(ctx context.Context, db *store.DB) ([]judge.Agreement, error) {
	rows, err := db.JudgedVotes(ctx, "")
	if err != nil {
		return nil, err
	}
	votes := make([]judge.JudgeVote, len(rows))
	for i := range rows {
		name := rows[i].JudgeLabel()
		if rows[i].JudgeKind == ringside.JudgeHuman {
			name = ringside.JudgeHuman
		}
		votes[i] = judge.JudgeVote{BattleID: rows[i].BattleID, Judge: name, Winner: rows[i].Winner}
	}
	return judge.Agreements(votes), nil
}

// writeBattles writes one battle record per vote, in the order votes were
// stored. Unlike `ringside export battles`, an imported battle's tokens
// and errors are not put back, and a numeric question_id is written as text.
func writeBattles(ctx context.Context, db *store.DB, w io.Writer) error {
	bw := battlefile.NewWriter(w)
	err := db.EachExportVote(ctx, "", func(e *store.ExportVote) error {
		rec, err := battlefile.FromExportVote(e)
		if err != nil {
			return err
		}
		return bw.Write(rec)
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}
