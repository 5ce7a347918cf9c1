// Package leaderboard reads what a leaderboard is computed from out of the
// database: every vote as a rank.Battle and the per-model measurements (a
// vote as a battle record is battlefile.FromExportVote). The CLI (rank, compare,
// export) and the server (the leaderboard page and its downloads) both use
// it, so a leaderboard is the same whichever asks.
package leaderboard

import (
	"context"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/battlefile"
	"github.com/ringside-eval/ringside/rank"
	"github.com/ringside-eval/ringside/store"
)

// LoadBattles reads every vote (of a run, when runID is set) into the
// statistics' store. withTime reads when each vote was cast, which only
// online Elo needs.
func LoadBattles(ctx context.Context, db *store.DB, runID string, withTime bool) (*rank.Battles, error) {
	bs := rank.NewBattles()
	err := db.EachRankVote(ctx, store.RankFilter{RunID: runID, Time: withTime}, func(v *store.RankVote) error {
		b := rank.Battle{ModelA: v.ModelA, ModelB: v.ModelB, Winner: v.Winner, Time: v.Time,
			Category: v.Category, Kind: v.Kind, Judge: v.Judge, Tags: v.Tags, Dimensions: v.Dimensions,
			IdentityLeak: v.IdentityLeak}
		for k := 0; k < v.Weight; k++ {
			if err := bs.Add(b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return bs, nil
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
	err := db.EachImportedMeasures(ctx, runID, func(im *store.ImportedMeasures) error {
		rec, err := battlefile.FromImportedMeasures(im)
		if err != nil {
			return err
		}
		pc.AddRecord(rec)
		return nil
	})
	return pc, err
}
