package main

import (
	"context"
	"fmt"

	"github.com/ringside-eval/ringside/store"
)

// importGold reads a gold file: JSONL, one {"battle_id": ..., "expected":
// "a"|"b"|"tie"|"not_a"|"not_b", "note": ...} per line. Every line is
// checked first; a file with a bad line marks nothing.
func (m *Main) importGold(ctx context.Context, file, cfgPath, dbPath string) error {
	cfg, err := m.loadConfig(cfgPath)
	if err != nil {
		return err
	}
	r, err := m.openInput(file)
	if err != nil {
		return err
	}
	defer r.Close()
	golds, err := store.ParseGold(r, file)
	if err != nil {
		return err
	}
	db, err := openExistingDB(ctx, cfg, dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.SetGold(ctx, golds); err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "gold: %d battles marked\n", len(golds))
	return db.Close()
}
