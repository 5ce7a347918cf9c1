package server

// This file reads the database into the statistics' inputs: the small
// equivalent of cmd/ringside's rank_load.go and export.go (loadBattleDB,
// loadPerfDB, exportRecord), which the server cannot import. Keep the two in
// step until they move into one shared place.

import (
	"context"
	"encoding/json"
	"io"
	"strconv"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/judge"
	"github.com/ringside-eval/ringside/rank"
	"github.com/ringside-eval/ringside/store"
)

// loadBattles reads every vote into the statistics' store; a vote counts
// its weight (an LLM judge's strong verdict).
func loadBattles(ctx context.Context, db *store.DB) (*rank.Battles, error) {
	bs := rank.NewBattles()
	err := db.EachRankVote(ctx, store.RankFilter{}, func(v *store.RankVote) error {
		b := rank.Battle{ModelA: v.ModelA, ModelB: v.ModelB, Winner: v.Winner,
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

// loadPerf summarises the stored generations. Measurements that imported
// battles carried are left to the CLI (rank --db), which decodes them.
func loadPerf(ctx context.Context, db *store.DB) (*rank.PerfCollector, error) {
	pc := rank.NewPerfCollector()
	err := db.EachGenerationStat(ctx, "", func(g *ringside.Generation) error {
		pc.AddGeneration(g)
		return nil
	})
	return pc, err
}

// loadPass computes each rules judge's pass rate, pass^k and pass@k per
// model, keyed by the judge's label; nil when no rules judge has results.
func loadPass(ctx context.Context, db *store.DB) (map[string][]judge.PassStats, error) {
	judges, err := db.RulesJudges(ctx)
	if err != nil {
		return nil, err
	}
	var out map[string][]judge.PassStats
	for _, j := range judges {
		rows, err := db.CheckScores(ctx, j.ID, "")
		if err != nil {
			return nil, err
		}
		samples := make([]judge.Sample, len(rows))
		for i, r := range rows {
			samples[i] = judge.Sample(r)
		}
		if ps := judge.ComputePassStats(samples); len(ps) > 0 {
			if out == nil {
				out = map[string][]judge.PassStats{}
			}
			out[j.Label()] = ps
		}
	}
	return out, nil
}

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
	bw := ringside.NewBattleWriter(w)
	err := db.EachExportVote(ctx, "", func(e *store.ExportVote) error {
		return bw.Write(battleRecord(e))
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}

func battleRecord(e *store.ExportVote) *ringside.BattleRecord {
	b, v := &e.Battle, &e.Vote
	rec := &ringside.BattleRecord{ModelA: b.ModelA, ModelB: b.ModelB, Winner: v.Winner, Judge: e.JudgeLabel(),
		QuestionID: b.PromptID, BattleID: b.ID, Category: b.Category, Kind: b.Kind, Tags: b.Tags,
		Dimensions: v.Dimensions, Sample: b.Sample, IdentityLeak: b.IdentityLeak}
	if b.Source != ringside.SourceImport {
		rec.Tstamp = float64(v.CreatedAt.UnixMilli()) / 1e3
	}
	side := func(g *store.Measures, ttft, latency, cost **float64, tokens **int, errText *string) {
		if g == nil {
			return
		}
		if g.TTFTMs > 0 {
			*ttft = &g.TTFTMs
		}
		if g.LatencyMs > 0 {
			*latency = &g.LatencyMs
		}
		*cost, *tokens, *errText = &g.CostUSD, &g.TokensOut, g.ErrorKind
	}
	side(e.GenA, &rec.TTFTMsA, &rec.LatencyMsA, &rec.CostUSDA, &rec.TokensOutA, &rec.ErrorA)
	side(e.GenB, &rec.TTFTMsB, &rec.LatencyMsB, &rec.CostUSDB, &rec.TokensOutB, &rec.ErrorB)
	if len(b.Extra) > 0 {
		// An imported battle keeps the record fields that have no column
		// among its extras; the writer skips those keys, so set them here.
		var x struct {
			Tstamp *float64 `json:"tstamp"`
			Turn   int      `json:"turn"`
			Anony  *bool    `json:"anony"`
		}
		var extra map[string]json.RawMessage
		if json.Unmarshal(b.Extra, &extra) == nil && json.Unmarshal(b.Extra, &x) == nil {
			rec.Extra = extra
			if x.Tstamp != nil {
				rec.Tstamp = *x.Tstamp
			}
			rec.Turn, rec.Anony = x.Turn, x.Anony
			set := func(dst **float64, key string) {
				var f float64
				if raw, ok := extra[key]; ok && json.Unmarshal(raw, &f) == nil {
					*dst = &f
				}
			}
			set(&rec.LatencyMsA, "latency_ms_a")
			set(&rec.LatencyMsB, "latency_ms_b")
			set(&rec.TTFTMsA, "ttft_ms_a")
			set(&rec.TTFTMsB, "ttft_ms_b")
			set(&rec.CostUSDA, "cost_usd_a")
			set(&rec.CostUSDB, "cost_usd_b")
		}
	}
	if e.Weight != 1 {
		if rec.Extra == nil {
			rec.Extra = map[string]json.RawMessage{}
		}
		rec.Extra["vote_weight"] = json.RawMessage(strconv.Itoa(e.Weight))
	}
	return rec
}
