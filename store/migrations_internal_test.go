package store

import (
	"context"
	"path/filepath"
	"testing"
)

// TestMigration006CountsDealsAlreadyStored opens a database as it was
// before migration 006 (battles without deal counts), with deals and a
// failed generation stored, and checks that the migration fills the counts
// and the failed sides in.
func TestMigration006CountsDealsAlreadyStored(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ringside.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	// Back to version 5.
	for _, q := range []string{
		"DROP TRIGGER deals_counted_insert", "DROP TRIGGER deals_counted_update", "DROP TRIGGER deals_counted_delete",
		"DROP TRIGGER battles_failed_side_insert", "DROP TRIGGER battles_failed_side_update",
		"DROP INDEX battles_to_deal", "ALTER TABLE battles DROP COLUMN dealt", "ALTER TABLE battles DROP COLUMN failed_side",
		"DELETE FROM schema_migrations WHERE version = 6",
		// What version 5 could hold: three battles of a run, one with a
		// failed side, and deals in every state.
		`INSERT INTO runs (id, name, models, prompt_sets, samples, created_at) VALUES ('r', 'r', '[]', '[]', 1, 'now')`,
		`INSERT INTO judges (id, kind, name, created_at) VALUES ('j1', 'human', 'j1', 'now'), ('j2', 'human', 'j2', 'now'),
			('j3', 'human', 'j3', 'now')`,
		`INSERT INTO generations (id, run_id, prompt_id, model, sample, error_kind, created_at) VALUES
			('g1', 'r', 'p1', 'm1', 0, '', 'now'), ('g2', 'r', 'p1', 'm2', 0, '', 'now'),
			('g3', 'r', 'p2', 'm2', 0, 'timeout', 'now')`,
		`INSERT INTO battles (id, run_id, source, prompt_id, model_a, model_b, generation_a, generation_b, created_at) VALUES
			('b1', 'r', 'run', 'p1', 'm1', 'm2', 'g1', 'g2', 'now'), ('b2', 'r', 'run', 'p3', 'm2', 'm1', 'g2', 'g1', 'now'),
			('b3', 'r', 'run', 'p2', 'm1', 'm2', 'g1', 'g3', 'now')`,
		`INSERT INTO deals (battle_id, judge_id, state, dealt_at) VALUES
			('b1', 'j1', 'voted', 'now'), ('b1', 'j2', 'open', 'now'), ('b1', 'j3', 'skipped', 'now'),
			('b2', 'j1', 'void', 'now')`,
	} {
		if _, err := db.write.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	want := map[string][2]int{"b1": {2, 0}, "b2": {0, 0}, "b3": {0, 1}}
	for id, w := range want {
		var dealt, failed int
		if err := db.read.QueryRowContext(ctx, "SELECT dealt, failed_side FROM battles WHERE id = $1", id).Scan(&dealt, &failed); err != nil {
			t.Fatal(err)
		}
		if dealt != w[0] || failed != w[1] {
			t.Errorf("battle %s: dealt %d, failed_side %d; want %d, %d", id, dealt, failed, w[0], w[1])
		}
	}
	cands, err := db.StoredCandidates(ctx, "j3", nil, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(cands) != 1 || cands[0].BattleID != "b2" {
		t.Fatalf("candidates for j3 = %+v, want only b2 (b1 was dealt to j3, b3 failed)", cands)
	}
}
