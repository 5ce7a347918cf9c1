package leaderboard

import (
	"github.com/ringside-eval/ringside/battlefile"
	"github.com/ringside-eval/ringside/rank"
)

// RecordBattle is a battle file's record as the statistics take it, with
// what the record says of its two responses' style (RecordStyle); units
// (nil: none) gives it the unit of its battle_id.
func RecordBattle(r *battlefile.Record, units rank.Units) (rank.Battle, error) {
	st, err := RecordStyle(r)
	if err != nil {
		return rank.Battle{}, err
	}
	var unit int64
	if units != nil {
		unit = units.Of(r.BattleID)
	}
	return rank.Battle{Unit: unit,
		ModelA: r.ModelA, ModelB: r.ModelB, Winner: r.Winner, Time: r.Tstamp,
		Category: r.Category, Kind: r.Kind, Judge: r.Judge, Tags: r.Tags,
		Dimensions: r.Dimensions, IdentityLeak: r.IdentityLeak, Style: st,
	}, nil
}

// RecordStyle gathers what a battle record says about its two responses,
// for controlled boards: conv_metadata's token sums and Markdown counts,
// else ringside's tokens_out_a/b for length; cost_usd_a/b; latency_ms_a/b.
// Nil when it says nothing. A malformed conv_metadata is an error naming
// the field.
func RecordStyle(r *battlefile.Record) (*rank.Style, error) {
	tokens, headers, lists, bold, err := r.StyleCounts()
	if err != nil {
		return nil, err
	}
	var s rank.Style
	for f, c := range [4]battlefile.StyleCount{tokens, headers, lists, bold} {
		if c.Known {
			s.Set(f, c.A, c.B)
		}
	}
	if !s.Has(0) && r.TokensOutA != nil && r.TokensOutB != nil {
		s.Set(0, float64(*r.TokensOutA), float64(*r.TokensOutB))
	}
	if r.CostUSDA != nil && r.CostUSDB != nil {
		s.Set(4, *r.CostUSDA, *r.CostUSDB)
	}
	if r.LatencyMsA != nil && r.LatencyMsB != nil {
		s.Set(5, *r.LatencyMsA, *r.LatencyMsB)
	}
	if s.Known == 0 {
		return nil, nil
	}
	return &s, nil
}

// AddRecordMeasures counts both sides' measurements of a record.
func AddRecordMeasures(pc *rank.PerfCollector, r *battlefile.Record) {
	pc.AddMeasures(rank.Measures{Model: r.ModelA, TTFTMs: r.TTFTMsA, LatencyMs: r.LatencyMsA, Cost: r.CostUSDA,
		TokensOut: r.TokensOutA, Error: r.ErrorA})
	pc.AddMeasures(rank.Measures{Model: r.ModelB, TTFTMs: r.TTFTMsB, LatencyMs: r.LatencyMsB, Cost: r.CostUSDB,
		TokensOut: r.TokensOutB, Error: r.ErrorB})
}
