package leaderboard

import (
	"github.com/ringside-eval/ringside/battlefile"
	"github.com/ringside-eval/ringside/rank"
)

// RecordBattle is a battle file's record as the statistics take it.
func RecordBattle(r *battlefile.Record) rank.Battle {
	return rank.Battle{
		ModelA: r.ModelA, ModelB: r.ModelB, Winner: r.Winner, Time: r.Tstamp,
		Category: r.Category, Kind: r.Kind, Judge: r.Judge, Tags: r.Tags,
		Dimensions: r.Dimensions, IdentityLeak: r.IdentityLeak,
	}
}

// AddRecordMeasures counts both sides' measurements of a record.
func AddRecordMeasures(pc *rank.PerfCollector, r *battlefile.Record) {
	pc.AddMeasures(rank.Measures{Model: r.ModelA, TTFTMs: r.TTFTMsA, LatencyMs: r.LatencyMsA, Cost: r.CostUSDA,
		TokensOut: r.TokensOutA, Error: r.ErrorA})
	pc.AddMeasures(rank.Measures{Model: r.ModelB, TTFTMs: r.TTFTMsB, LatencyMs: r.LatencyMsB, Cost: r.CostUSDB,
		TokensOut: r.TokensOutB, Error: r.ErrorB})
}
