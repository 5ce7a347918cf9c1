package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Importing the same ids into a second set gives that set its own prompts;
// nothing done to them touches the first set.
func TestImportSameIDsIntoAnotherSet(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "r.db")
	orig := `{"id": "refund-001", "prompt": "Can I return shoes?"}
{"id": "refund-002", "prompt": "Where is my refund?"}
`
	edited := strings.Replace(orig, "shoes", "boots", 1)
	dup := orig + `{"id": "refund-001", "prompt": "Again?"}
`
	writeFiles(t, dir, map[string]string{"orig.jsonl": orig, "edited.jsonl": edited, "dup.jsonl": dup})
	steps := []struct{ file, set, want string }{
		{"orig.jsonl", "a", "prompt set a: 2 added, 0 updated, 0 unchanged"},
		{"orig.jsonl", "b", "prompt set b: 2 added, 0 updated, 0 unchanged"},
		{"orig.jsonl", "b", "prompt set b: 0 added, 0 updated, 2 unchanged"},
		{"edited.jsonl", "b", "prompt set b: 0 added, 1 updated, 1 unchanged"},
		{"orig.jsonl", "a", "prompt set a: 0 added, 0 updated, 2 unchanged"},
	}
	for _, s := range steps {
		tm := mustRun(t, "import", "prompts", filepath.Join(dir, s.file), "--set", s.set, "--db", db)
		if got := strings.TrimSpace(tm.stdout.String()); got != s.want {
			t.Fatalf("import %s into %s printed %q, want %q", s.file, s.set, got, s.want)
		}
	}
	rdb := openReadOnly(t, db)
	if n := count(t, rdb, `SELECT count(*) FROM prompts WHERE prompt_set = 'a' AND id = 'refund-001' AND messages LIKE '%shoes%'`); n != 1 {
		t.Error("set a's refund-001 changed")
	}
	if n := count(t, rdb, `SELECT count(*) FROM prompts WHERE prompt_set = 'b' AND id = 'refund-001' AND messages LIKE '%boots%'`); n != 1 {
		t.Error("set b's refund-001 is not the edit")
	}

	tm := newTestMain()
	if code := tm.run(t, "import", "prompts", filepath.Join(dir, "dup.jsonl"), "--set", "c", "--db", db); code != exitUsage {
		t.Fatalf("import of a file with a duplicate id exited %d", code)
	}
	if e := tm.stderr.String(); !strings.Contains(e, "dup.jsonl:3") || !strings.Contains(e, "line 1") {
		t.Fatalf("duplicate id error %q does not name both lines", e)
	}
}

// setsConfig is a configuration of two sim models running the named run
// over the sets, each read from <set>.jsonl.
func setsConfig(run string, sets ...string) string {
	var b strings.Builder
	b.WriteString("[database]\npath = \"sets.db\"\n\n")
	for _, s := range sets {
		fmt.Fprintf(&b, "[[prompt_sets]]\nname = %q\nfile = %q\n\n", s, s+".jsonl")
	}
	fmt.Fprintf(&b, "[run]\nname = %q\n\n", run)
	for _, m := range []string{"m1", "m2"} {
		fmt.Fprintf(&b, "[[models]]\nname = %q\nprovider = \"sim\"\noptions = { ttft_ms = 1, tokens_per_sec = 100000 }\n\n", m)
	}
	return b.String()
}

// A run over two sets that share an id is refused, naming the id and both
// sets, before anything is generated; run separately, each set's battles
// carry their own prompt's set and category.
func TestRunOverSetsSharingAnID(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	writeFiles(t, dir, map[string]string{
		"a.jsonl":       `{"id": "q1", "prompt": "Refund?", "category": "refunds"}` + "\n",
		"b.jsonl":       `{"id": "q1", "prompt": "Shipping?", "category": "shipping"}` + "\n",
		"ringside.toml": setsConfig("both", "a", "b"),
		"a.toml":        setsConfig("only-a", "a"),
		"b.toml":        setsConfig("only-b", "b"),
	})
	tm := newTestMain()
	if code := tm.run(t, "run", "--config", "ringside.toml", "--sim-speed", fast); code != exitUsage {
		t.Fatalf("run over a and b exited %d: %s", code, tm.stderr)
	}
	if e := tm.stderr.String(); !strings.Contains(e, `"q1"`) || !strings.Contains(e, `set "a"`) || !strings.Contains(e, `set "b"`) {
		t.Fatalf("error %q does not name the id and both sets", e)
	}
	db := openReadOnly(t, filepath.Join(dir, "sets.db"))
	if n := count(t, db, "SELECT count(*) FROM generations"); n != 0 {
		t.Fatalf("the refused run stored %d generations", n)
	}
	for _, cfg := range []string{"a.toml", "b.toml"} {
		mustRun(t, "run", "--config", cfg, "--sim-speed", fast)
	}
	for _, w := range []struct{ run, set, category string }{{"only-a", "a", "refunds"}, {"only-b", "b", "shipping"}} {
		if n := count(t, db, `SELECT count(*) FROM battles b JOIN runs r ON r.id = b.run_id
			WHERE r.name = $1 AND b.prompt_set = $2 AND b.category = $3`, w.run, w.set, w.category); n != 1 {
			t.Errorf("run %s: %d battles of set %s in category %s, want 1", w.run, n, w.set, w.category)
		}
		if n := count(t, db, `SELECT count(*) FROM generations g JOIN runs r ON r.id = g.run_id
			WHERE r.name = $1 AND g.prompt_set = $2`, w.run, w.set); n != 2 {
			t.Errorf("run %s: %d generations of set %s, want 2", w.run, n, w.set)
		}
	}
}
