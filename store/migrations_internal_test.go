package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"reflect"
	"strings"
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
		"DROP INDEX battles_to_deal", "DROP INDEX battles_pair_to_deal", "ALTER TABLE battles DROP COLUMN dealt", "ALTER TABLE battles DROP COLUMN failed_side",
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

// TestMigration007MarksStoredBattlesByTheOneRule opens a database as it was
// before migration 007, whose battles were marked by the old rules, and
// checks that the migration re-checks them once with ringside.NamesAModel,
// in one transaction.
func TestMigration007MarksStoredBattlesByTheOneRule(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ringside.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	exec := func(db *DB, qs ...string) {
		t.Helper()
		for _, q := range qs {
			if _, err := db.write.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
	}
	// Back to version 6, with what it could hold.
	exec(db, "DELETE FROM schema_migrations WHERE version = 7",
		`INSERT INTO runs (id, name, models, prompt_sets, samples, created_at) VALUES ('r', 'r', '[]', '[]', 1, 'now')`,
		`INSERT INTO prompts (id, prompt_set, messages, content_hash, created_at, updated_at) VALUES
			('p1', 's', '[{"role": "user", "content": "Hello?"}]', 'h1', 'now', 'now'),
			('p2', 's', '[{"role": "user", "content": "What is ChatGPT?"}]', 'h2', 'now', 'now')`,
		`INSERT INTO generations (id, run_id, prompt_id, model, sample, output, created_at) VALUES
			('vendor', 'r', 'p1', 'alpha-1', 0, 'As ChatGPT, I say hello.', 'now'),
			('other', 'r', 'p1', 'beta-2', 0, 'Unlike Alpha-1, I say hi.', 'now'),
			('asked', 'r', 'p2', 'alpha-1', 0, 'ChatGPT is a chatbot.', 'now'),
			('plain1', 'r', 'p1', 'alpha-1', 1, 'Hello.', 'now'),
			('plain2', 'r', 'p1', 'beta-2', 1, 'Hi.', 'now'),
			('plain3', 'r', 'p2', 'beta-2', 0, 'A chatbot.', 'now')`,
		`INSERT INTO battles (id, run_id, source, prompt_id, sample, model_a, model_b, generation_a, generation_b, identity_leak, created_at) VALUES
			('b-vendor', 'r', 'run', 'p1', 0, 'alpha-1', 'beta-2', 'vendor', 'plain2', 0, 'now'),
			('b-other', 'r', 'run', 'p1', 1, 'alpha-1', 'beta-2', 'plain1', 'other', 0, 'now'),
			('b-asked', 'r', 'run', 'p2', 0, 'alpha-1', 'beta-2', 'asked', 'plain3', 0, 'now'),
			('b-plain', NULL, 'live', 'p1', 0, 'alpha-1', 'beta-2', 'plain1', 'plain2', 0, 'now'),
			('b-marked', NULL, 'live', 'p2', 0, 'alpha-1', 'beta-2', 'plain1', 'plain3', 1, 'now'),
			('b-import', NULL, 'import', 'q9', 0, 'alpha-1', 'beta-2', NULL, NULL, 0, 'now')`,
		// A prompt whose messages are not a list fails the step.
		`INSERT INTO prompts (id, prompt_set, messages, content_hash, created_at, updated_at) VALUES
			('bad', 's', '"Hello?"', 'h3', 'now', 'now')`,
		`INSERT INTO battles (id, source, prompt_id, model_a, model_b, generation_a, generation_b, created_at) VALUES
			('b-bad', 'live', 'bad', 'alpha-1', 'beta-2', 'plain1', 'plain2', 'now')`,
	)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	// The failed step leaves the database without 007, marks and all.
	if _, err := Open(ctx, path); err == nil || !strings.Contains(err.Error(), "007_identity_leaks.sql") ||
		!strings.Contains(err.Error(), "b-bad") {
		t.Fatalf("open with a broken prompt: %v, want the migration and battle named", err)
	}
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	// Later migrations stay applied: this test only took 007 back.
	var recorded, marked int
	if err := raw.QueryRowContext(ctx, "SELECT count(*), (SELECT count(*) FROM battles WHERE identity_leak = 1) FROM schema_migrations WHERE version = 7").
		Scan(&recorded, &marked); err != nil {
		t.Fatal(err)
	}
	if recorded != 0 || marked != 1 {
		t.Fatalf("after the failed migration: 007 recorded %d times, %d battles marked; want 0 and 1", recorded, marked)
	}
	if _, err := raw.ExecContext(ctx, "DELETE FROM battles WHERE id = 'b-bad'"); err != nil {
		t.Fatal(err)
	}
	raw.Close()

	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	leaks := func(db *DB) map[string]bool {
		t.Helper()
		rows, err := db.read.QueryContext(ctx, "SELECT id, identity_leak FROM battles")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[string]bool{}
		for rows.Next() {
			var id string
			var leak bool
			if err := rows.Scan(&id, &leak); err != nil {
				t.Fatal(err)
			}
			out[id] = leak
		}
		return out
	}
	want := map[string]bool{"b-vendor": true, "b-other": true, "b-asked": false, "b-plain": false,
		"b-marked": true, "b-import": false}
	if got := leaks(db); !reflect.DeepEqual(got, want) {
		t.Fatalf("marks after migration 007 = %v, want %v", got, want)
	}

	// It runs once: a mark cleared since is not set again.
	exec(db, "UPDATE battles SET identity_leak = 0 WHERE id = 'b-vendor'")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if leaks(db)["b-vendor"] {
		t.Fatal("migration 007 ran again on reopening")
	}
}

// TestMigration011KeysPromptsBySet opens a database as it was before
// migration 011 (prompts keyed by id alone, rows without a set) and checks
// that the prompts are kept, now keyed by (set, id), and that generations
// and battles learn the set of their prompt.
func TestMigration011KeysPromptsBySet(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ringside.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	exec := func(db *DB, qs ...string) {
		t.Helper()
		for _, q := range qs {
			if _, err := db.write.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
	}
	// Back to version 10, with what it could hold.
	exec(db, "DROP TABLE prompts", `CREATE TABLE prompts (
		id TEXT PRIMARY KEY, prompt_set TEXT NOT NULL, messages TEXT NOT NULL CHECK (json_valid(messages)),
		category TEXT NOT NULL DEFAULT '', kind TEXT NOT NULL DEFAULT 'typical' CHECK (kind IN ('typical', 'edge', 'adversarial')),
		tags TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(tags)), reference TEXT NOT NULL DEFAULT '',
		checks TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(checks)), content_hash TEXT NOT NULL,
		created_at TEXT NOT NULL, updated_at TEXT NOT NULL) STRICT`,
		"CREATE INDEX prompts_set ON prompts (prompt_set, id)",
		"ALTER TABLE generations DROP COLUMN prompt_set", "ALTER TABLE battles DROP COLUMN prompt_set",
		"DELETE FROM schema_migrations WHERE version = 11",
		`INSERT INTO runs (id, name, models, prompt_sets, samples, created_at) VALUES ('r', 'r', '[]', '["a", "b"]', 1, 'now')`,
		`INSERT INTO prompts (id, prompt_set, messages, category, kind, tags, reference, checks, content_hash, created_at, updated_at) VALUES
			('p1', 'a', '[{"role": "user", "content": "one"}]', 'refunds', 'edge', '["x"]', 'ref', '[{"type": "is_json"}]', 'h1', 'c1', 'u1'),
			('p2', 'b', '[{"role": "user", "content": "two"}]', '', 'typical', '[]', '', '[]', 'h2', 'c2', 'u2')`,
		`INSERT INTO generations (id, run_id, prompt_id, model, sample, created_at) VALUES
			('g1', 'r', 'p1', 'm1', 0, 'now'), ('g2', 'r', 'p1', 'm2', 0, 'now'),
			('g3', 'r', 'p2', 'm1', 0, 'now'), ('g4', NULL, 'gone', 'm1', 0, 'now')`,
		`INSERT INTO battles (id, run_id, source, prompt_id, model_a, model_b, generation_a, generation_b, created_at) VALUES
			('b1', 'r', 'run', 'p1', 'm1', 'm2', 'g1', 'g2', 'now'),
			('b2', NULL, 'import', 'p2', 'm1', 'm2', NULL, NULL, 'now')`,
	)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	p, err := db.Prompt(ctx, "a", "p1")
	if err != nil {
		t.Fatal(err)
	}
	if p.Category != "refunds" || p.Kind != "edge" || p.Reference != "ref" || len(p.Tags) != 1 || len(p.Checks) != 1 ||
		p.Messages[0].Content != "one" {
		t.Fatalf("p1 after the migration = %+v", p)
	}
	var hash, created, updated string
	if err := db.read.QueryRowContext(ctx, "SELECT content_hash, created_at, updated_at FROM prompts WHERE prompt_set = 'a' AND id = 'p1'").
		Scan(&hash, &created, &updated); err != nil || hash != "h1" || created != "c1" || updated != "u1" {
		t.Fatalf("p1's hash and times = %s %s %s, %v", hash, created, updated, err)
	}
	sets := map[string]string{}
	for _, q := range []string{"SELECT id, prompt_set FROM generations", "SELECT id, prompt_set FROM battles"} {
		rows, err := db.read.QueryContext(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id, set string
			if err := rows.Scan(&id, &set); err != nil {
				t.Fatal(err)
			}
			sets[id] = set
		}
		rows.Close()
	}
	want := map[string]string{"g1": "a", "g2": "a", "g3": "b", "g4": "", "b1": "a", "b2": ""}
	if !reflect.DeepEqual(sets, want) {
		t.Fatalf("sets after the migration = %v, want %v", sets, want)
	}

	// The key is (set, id) now: b may hold its own p1, and still not twice.
	exec(db, `INSERT INTO prompts (id, prompt_set, messages, content_hash, created_at, updated_at)
		VALUES ('p1', 'b', '[]', 'h3', 'now', 'now')`)
	if _, err := db.write.ExecContext(ctx, `INSERT INTO prompts (id, prompt_set, messages, content_hash, created_at, updated_at)
		VALUES ('p1', 'b', '[]', 'h4', 'now', 'now')`); !isUniqueViolation(err) {
		t.Fatalf("a second p1 in b: %v, want a unique violation", err)
	}
	var strict int
	if err := db.read.QueryRowContext(ctx, "SELECT strict FROM pragma_table_list WHERE name = 'prompts'").Scan(&strict); err != nil || strict != 1 {
		t.Fatalf("prompts is strict = %d, %v", strict, err)
	}
}
