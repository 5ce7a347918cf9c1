package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/rank"
	"github.com/ringside-eval/ringside/store"
)

// voteWeightField is ringside's battle-record field for what an LLM vote
// counts for (a strong verdict given in both orders counts strong_weight
// times, as Arena-Hard repeats its A>>B verdicts). Export writes it when it
// is not 1; rank honours it for llm judges only, so that a third-party
// field of the same name cannot change a human leaderboard.
const voteWeightField = "vote_weight"

// recordWeight is how many battles a record counts for.
func recordWeight(rec *ringside.BattleRecord) (int, error) {
	raw, ok := rec.Extra[voteWeightField]
	if !ok || !strings.HasPrefix(rec.Judge, ringside.JudgeLLM+":") {
		return 1, nil
	}
	n, err := strconv.Atoi(string(raw))
	if err != nil || n < 0 {
		return 0, ringside.FieldError(voteWeightField, "must be a whole number, 0 or more (is %s)", raw)
	}
	return n, nil
}

// measured reports whether a record carries any measured value.
func measured(r *ringside.BattleRecord) bool {
	return r.LatencyMsA != nil || r.LatencyMsB != nil || r.TTFTMsA != nil || r.TTFTMsB != nil ||
		r.CostUSDA != nil || r.CostUSDB != nil || r.TokensOutA != nil || r.TokensOutB != nil ||
		r.ErrorA != "" || r.ErrorB != ""
}

// openExistingDB opens the database for a command that only reads it:
// opening creates a missing file, and a mistyped --db would then rank an
// empty database instead of saying so.
func openExistingDB(ctx context.Context, cfg *config.Config, flagPath string) (*store.DB, error) {
	path := cfg.Database.Path
	if flagPath != "" {
		path = flagPath
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, ringside.Errorf(ringside.EINVALID, "no database at %s (give --db, or import battles or run first)", path)
	}
	return openDB(ctx, cfg, flagPath)
}

// openInput opens a file to read, "-" being standard input.
func (m *Main) openInput(path string) (io.ReadCloser, error) {
	if path == "-" {
		return io.NopCloser(m.Stdin), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, ringside.Errorf(ringside.EINVALID, "%v", err)
	}
	return f, nil
}

// loadBattleFile reads a battle file into the statistics' store, streaming
// (a million lines take tens of megabytes, not the file's size), and
// collects the measured values of records that carry some. perf is nil when
// none does.
func (m *Main) loadBattleFile(path string) (bs *rank.Battles, perf *rank.PerfCollector, err error) {
	r, err := m.openInput(path)
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	name := path
	if path == "-" {
		name = "stdin"
	}
	bs = rank.NewBattles()
	err = ringside.ReadBattleRecords(r, name, func(_ int, rec *ringside.BattleRecord) error {
		n, err := recordWeight(rec)
		if err != nil {
			return err
		}
		for k := 0; k < n; k++ {
			if err := bs.AddRecord(rec); err != nil {
				return err
			}
		}
		if measured(rec) {
			if perf == nil {
				perf = rank.NewPerfCollector()
			}
			perf.AddRecord(rec)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return bs, perf, nil
}

// loadBattleDB reads every vote (of a run, when runID is set) into the
// statistics' store. withTime reads when each vote was cast, which only
// online Elo needs.
func loadBattleDB(ctx context.Context, db *store.DB, runID string, withTime bool) (*rank.Battles, error) {
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

// loadPerfDB summarises the stored generations (of a run) and the
// measurements imported battles carried.
func loadPerfDB(ctx context.Context, db *store.DB, runID string) (*rank.PerfCollector, error) {
	pc := rank.NewPerfCollector()
	if err := db.EachGenerationStat(ctx, runID, func(g *ringside.Generation) error {
		pc.AddGeneration(g)
		return nil
	}); err != nil {
		return nil, err
	}
	err := db.EachImportedMeasures(ctx, runID, func(im *store.ImportedMeasures) error {
		rec := ringside.BattleRecord{ModelA: im.ModelA, ModelB: im.ModelB}
		if err := decodeMeasures(im.Extra, &rec); err != nil {
			return err
		}
		pc.AddRecord(&rec)
		return nil
	})
	return pc, err
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

// decodeMeasures reads an imported battle's measured fields into rec.
func decodeMeasures(extra json.RawMessage, rec *ringside.BattleRecord) error {
	var x recordMeasures
	if err := json.Unmarshal(extra, &x); err != nil {
		return ringside.Errorf(ringside.EINTERNAL, "battle extra fields: %v", err)
	}
	rec.LatencyMsA, rec.LatencyMsB, rec.TTFTMsA, rec.TTFTMsB = x.LatencyMsA, x.LatencyMsB, x.TTFTMsA, x.TTFTMsB
	rec.CostUSDA, rec.CostUSDB, rec.TokensOutA, rec.TokensOutB = x.CostUSDA, x.CostUSDB, x.TokensOutA, x.TokensOutB
	rec.ErrorA, rec.ErrorB = x.ErrorA, x.ErrorB
	return nil
}
