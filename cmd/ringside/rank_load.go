package main

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/leaderboard"
	"github.com/ringside-eval/ringside/rank"
	"github.com/ringside-eval/ringside/store"
)

// recordWeight is how many battles a record counts for.
func recordWeight(rec *ringside.BattleRecord) (int, error) {
	raw, ok := rec.Extra[leaderboard.VoteWeightField]
	if !ok || !strings.HasPrefix(rec.Judge, ringside.JudgeLLM+":") {
		return 1, nil
	}
	n, err := strconv.Atoi(string(raw))
	if err != nil || n < 0 {
		return 0, ringside.FieldError(leaderboard.VoteWeightField, "must be a whole number, 0 or more (is %s)", raw)
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
