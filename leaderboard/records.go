package leaderboard

import (
	"github.com/ringside-eval/ringside/battlefile"
	"github.com/ringside-eval/ringside/rank"
)

// Units numbers the battle_ids of a battle file, so that the votes of
// several judges on one battle share its unit as they do in the database.
type Units map[string]int64

// Of is the unit of a record's battle_id; 0 (a battle of its own) without one.
func (u Units) Of(id string) int64 {
	if id == "" {
		return 0
	}
	n, ok := u[id]
	if !ok {
		n = int64(len(u) + 1)
		u[id] = n
	}
	return n
}

// RecordBattle is a battle file's record as the statistics take it; units
// (nil: none) gives it the unit of its battle_id.
func RecordBattle(r *battlefile.Record, units Units) rank.Battle {
	var unit int64
	if units != nil {
		unit = units.Of(r.BattleID)
	}
	return rank.Battle{Unit: unit,
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
