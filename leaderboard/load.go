// Package leaderboard is the one place a leaderboard is made: it reads what
// a board is computed from out of the database (every vote as a
// rank.Battle, the per-model measurements, a vote as the battle record
// that export writes), maps the config's [rank] settings to rank options
// (Options), computes (Compute) and, for the server, keeps the votes in
// memory and the boards cached as votes come in (Service). The CLI (rank,
// compare, export) and the server (the leaderboard page, its downloads and
// the API) both use it, so a leaderboard is the same whichever asks.
package leaderboard

import (
	"context"
	"encoding/json"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/rank"
	"github.com/ringside-eval/ringside/store"
)

// LoadBattles reads every vote (of a run, when runID is set) into the
// statistics' store. withTime reads when each vote was cast, which only
// online Elo needs; withStyle the control features of both responses,
// which only a controlled leaderboard needs.
func LoadBattles(ctx context.Context, db *store.DB, runID string, withTime, withStyle bool) (*rank.Battles, error) {
	bs := rank.NewBattles()
	if _, err := addVotes(ctx, db, bs, store.RankFilter{RunID: runID, Time: withTime, Style: withStyle}); err != nil {
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
		b := rank.Battle{ModelA: v.ModelA, ModelB: v.ModelB, Winner: v.Winner, Time: v.Time,
			Category: v.Category, Kind: v.Kind, Judge: v.Judge, Tags: v.Tags, Dimensions: v.Dimensions,
			IdentityLeak: v.IdentityLeak}
		if f.Style {
			st, err := voteStyle(v)
			if err != nil {
				return err
			}
			b.Style = st
		}
		for k := 0; k < v.Weight; k++ {
			if err := bs.Add(b); err != nil {
				return err
			}
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
	err := db.EachImportedMeasures(ctx, runID, func(im *store.ImportedMeasures) error {
		rec := ringside.BattleRecord{ModelA: im.ModelA, ModelB: im.ModelB}
		if err := setColumnless(&rec, im.Extra); err != nil {
			return ringside.Errorf(ringside.EINTERNAL, "battle extra fields: %v", err)
		}
		pc.AddRecord(&rec)
		return nil
	})
	return pc, err
}

// voteStyle is what a vote's two responses measure on the control
// features: from their generations, or from what an imported battle's
// record carried (conv_metadata and the measured fields). Nil when nothing.
func voteStyle(v *store.RankVote) (*rank.Style, error) {
	if v.ImportExtra != "" {
		var rec ringside.BattleRecord
		extra := json.RawMessage(v.ImportExtra)
		if err := setColumnless(&rec, extra); err != nil {
			return nil, ringside.Errorf(ringside.EINTERNAL, "battle extra fields: %v", err)
		}
		var cm struct {
			ConvMetadata json.RawMessage `json:"conv_metadata"`
		}
		if err := json.Unmarshal(extra, &cm); err != nil {
			return nil, ringside.Errorf(ringside.EINTERNAL, "battle extra fields: %v", err)
		}
		if len(cm.ConvMetadata) > 0 {
			rec.Extra = map[string]json.RawMessage{"conv_metadata": cm.ConvMetadata}
		}
		return rank.StyleOfRecord(&rec)
	}
	if v.StyleKnown == 0 {
		return nil, nil
	}
	return &rank.Style{A: v.StyleA, B: v.StyleB, Known: v.StyleKnown}, nil
}

// recordMeasures are the measured fields of a battle record as an imported
// battle keeps them in its extra fields.
type recordMeasures struct {
	LatencyMsA *float64 `json:"latency_ms_a"`
	LatencyMsB *float64 `json:"latency_ms_b"`
	TTFTMsA    *float64 `json:"ttft_ms_a"`
	TTFTMsB    *float64 `json:"ttft_ms_b"`
	CostUSDA   *float64 `json:"cost_usd_a"`
	CostUSDB   *float64 `json:"cost_usd_b"`
	TokensOutA *int     `json:"tokens_out_a"`
	TokensOutB *int     `json:"tokens_out_b"`
	ErrorA     string   `json:"error_a"`
	ErrorB     string   `json:"error_b"`
}

// VoteWeightField is ringside's battle-record field for what an LLM vote
// counts for (a strong verdict given in both orders counts strong_weight
// times, as Arena-Hard repeats its A>>B verdicts). Export writes it when it
// is not 1; rank honours it for llm judges only, so that a third-party
// field of the same name cannot change a human leaderboard.
const VoteWeightField = "vote_weight"
