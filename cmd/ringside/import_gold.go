package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"

	"github.com/ringside-eval/ringside"
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
	var golds []store.Gold
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var g store.Gold
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			return ringside.Errorf(ringside.EINVALID, "%s:%d: %v", file, line, err)
		}
		if g.BattleID == "" {
			return ringside.Errorf(ringside.EINVALID, "%s:%d: battle_id: required", file, line)
		}
		if !store.ValidGold(g.Expected) {
			return ringside.Errorf(ringside.EINVALID, "%s:%d: expected: %q is not one of a, b, tie, not_a, not_b", file, line, g.Expected)
		}
		golds = append(golds, g)
	}
	if err := sc.Err(); err != nil {
		return ringside.Errorf(ringside.EINVALID, "%s: %v", file, err)
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
