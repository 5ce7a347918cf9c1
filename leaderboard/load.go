// Package leaderboard is the one place a leaderboard is made: it reads what
// a board is computed from out of the database (every vote as a
// rank.Battle and the per-model measurements; a vote as the battle record
// that export writes is battlefile.FromExportVote), maps the config's [rank] settings to rank options
// (Options), computes (Compute) and, for the server, keeps the votes in
// memory and the boards cached as votes come in (Service). The CLI (rank,
// compare, export) and the server (the leaderboard page, its downloads and
// the API) both use it, so a leaderboard is the same whichever asks.
package leaderboard

import (
	"context"
	"encoding/json"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/battlefile"
	"github.com/ringside-eval/ringside/rank"
	"github.com/ringside-eval/ringside/store"
)

// LoadBattles reads every vote (of a run, when runID is set) into the
// statistics' store, with what opts needs: when each vote was cast for
// online Elo, the control features of both responses for a controlled
// leaderboard, the propensity of each vote's deal for a weighted one.
func LoadBattles(ctx context.Context, db *store.DB, runID string, opts rank.Options) (*rank.Battles, error) {
	bs := rank.NewBattles()
	f := store.RankFilter{RunID: runID, Time: opts.Elo, Style: len(opts.Controls) > 0,
		Propensity: opts.Weighting == rank.WeightingPropensity}
	if _, err := addVotes(ctx, db, bs, f); err != nil {
		return nil, err
	}
	return bs, nil
}

// addVotes adds the votes f selects to bs, each as many times as its
// weight, and returns how many votes it read.
func addVotes(ctx context.Context, db *store.DB, bs *rank.Battles, f store.RankFilter) (int64, error) {
	var n int64
	err := db.EachRankVote(ctx, f, func(v *store.RankVote) error {
		n++
		if v.Gold {
			return nil // gold battles grade judges and never count in a board
		}
		b := rank.Battle{ModelA: v.ModelA, ModelB: v.ModelB, Winner: v.Winner, Time: v.Time,
			Category: v.Category, Kind: v.Kind, Judge: v.Judge, Tags: v.Tags, Dimensions: v.Dimensions,
			IdentityLeak: v.IdentityLeak, Unit: v.Unit, Propensity: v.Propensity}
		if f.Style {
			st, err := voteStyle(v)
			if err != nil {
				return err
			}
			b.Style = st
		}
		// A strong verdict's extra weight counts as battles of their own, as
		// before votes shared a battle's unit.
		for k := 0; k < v.Weight; k++ {
			if err := bs.Add(b); err != nil {
				return err
			}
			b.Unit = 0
		}
		return nil
	})
	return n, err
}

// LoadPerf summarises the stored generations (of a run) and the
// measurements imported battles carried.
func LoadPerf(ctx context.Context, db *store.DB, runID string) (*rank.PerfCollector, error) {
	pc := rank.NewPerfCollector()
	if err := db.EachGenerationStat(ctx, runID, func(g *ringside.Generation) error {
		pc.AddGeneration(g)
		return nil
	}); err != nil {
		return nil, err
	}
	err := db.EachImportedMeasures(ctx, runID, battlefile.MeasuredFields(), func(im *store.ImportedMeasures) error {
		rec, err := battlefile.FromImportedMeasures(im)
		if err != nil {
			return err
		}
		AddRecordMeasures(pc, rec)
		return nil
	})
	return pc, err
}

// voteStyle is what a vote's two responses measure on the control
// features: from their generations, or from what an imported battle's
// record carried (conv_metadata and the measured fields). Nil when nothing.
func voteStyle(v *store.RankVote) (*rank.Style, error) {
	if v.ImportExtra != "" {
		rec, err := battlefile.FromImportedMeasures(&store.ImportedMeasures{ModelA: v.ModelA, ModelB: v.ModelB,
			Extra: json.RawMessage(v.ImportExtra)})
		if err != nil {
			return nil, err
		}
		return RecordStyle(rec)
	}
	if v.StyleKnown == 0 {
		return nil, nil
	}
	return &rank.Style{A: v.StyleA, B: v.StyleB, Known: v.StyleKnown}, nil
}
