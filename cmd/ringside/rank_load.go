package main

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/battlefile"
	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/leaderboard"
	"github.com/ringside-eval/ringside/rank"
	"github.com/ringside-eval/ringside/store"
)

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
	units := rank.Units{}
	err = battlefile.ReadStyled(r, name, func(_ int, rec *battlefile.Record) error {
		n, err := rec.Weight()
		if err != nil {
			return err
		}
		b, err := leaderboard.RecordBattle(rec, units)
		if err != nil {
			return err
		}
		for k := 0; k < n; k++ {
			if err := bs.Add(b); err != nil {
				return err
			}
			b.Unit = 0 // extra weight: battles of their own, as from the database
		}
		if rec.Measured() {
			if perf == nil {
				perf = rank.NewPerfCollector()
			}
			leaderboard.AddRecordMeasures(perf, rec)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return bs, perf, nil
}
