package main

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

func TestInitWritesAConfigThatRunsAndJudges(t *testing.T) {
	dir := t.TempDir()
	tm := newTestMain()
	if code := tm.run(t, "init", "--dir", dir); code != exitOK {
		t.Fatalf("init exited %d: %s", code, tm.stderr)
	}
	cfg := filepath.Join(dir, "ringside.toml")
	for _, want := range []string{"ringside run --config " + cfg, "ringside judge --config " + cfg, "ringside serve --config " + cfg} {
		if !strings.Contains(tm.stdout.String(), want) {
			t.Errorf("init printed %q, want the next command %q", tm.stdout, want)
		}
	}
	db := filepath.Join(dir, "project.db")
	run := newTestMain()
	if code := run.run(t, "run", "--config", cfg, "--db", db, "--sim-speed", fast); code != exitOK {
		t.Fatalf("run on the scaffold exited %d: %s", code, run.stderr)
	}
	// 2 simulated models × 3 prompts, one pair each.
	checkRunComplete(t, db, 6, 3)
	jd := newTestMain()
	if code := jd.run(t, "judge", "--config", cfg, "--db", db); code != exitOK {
		t.Fatalf("judge on the scaffold exited %d: %s", code, jd.stderr)
	}
	if !strings.Contains(jd.stdout.String(), "votes written") {
		t.Errorf("judge printed %q", jd.stdout)
	}
	ro := openReadOnly(t, db)
	// Every prompt has checks, so every generation has results.
	if n := count(t, ro, "SELECT count(DISTINCT generation_id) FROM check_results"); n != 6 {
		t.Errorf("%d generations checked, want 6", n)
	}
	if n := count(t, ro, "SELECT count(DISTINCT kind) FROM prompts"); n != 3 {
		t.Errorf("%d prompt kinds, want typical, edge and adversarial", n)
	}
}

func TestInitNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	prompts := filepath.Join(dir, "prompts.jsonl")
	if err := os.WriteFile(prompts, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tm := newTestMain()
	if code := tm.run(t, "init", "--dir", dir); code != exitUsage {
		t.Fatalf("init over an existing file exited %d, want %d", code, exitUsage)
	}
	if !strings.Contains(tm.stderr.String(), prompts+" already exists") {
		t.Errorf("error %q does not name %s", tm.stderr, prompts)
	}
	if _, err := os.Stat(filepath.Join(dir, "ringside.toml")); !os.IsNotExist(err) {
		t.Errorf("ringside.toml was written although init refused: %v", err)
	}
	if b, _ := os.ReadFile(prompts); string(b) != "mine\n" {
		t.Errorf("prompts.jsonl was changed to %q", b)
	}
}

// TestScaffoldKeysAreDocumented keeps the scaffold a short form of
// config.example.toml: every key it sets is one the example documents (a
// provider's options, docs/providers.md).
func TestScaffoldKeysAreDocumented(t *testing.T) {
	example, err := toml.DecodeFile(filepath.Join("..", "..", "config.example.toml"), new(map[string]any))
	if err != nil {
		t.Fatal(err)
	}
	scaffold, err := toml.Decode(string(scaffoldConfig), new(map[string]any))
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for _, k := range example.Keys() {
		documented[k.String()] = true
	}
	providers, err := os.ReadFile(filepath.Join("..", "..", "docs", "providers.md"))
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, k := range scaffold.Keys() {
		// A provider's options are documented with the provider.
		if opt, ok := strings.CutPrefix(k.String(), "models.options."); ok {
			if !strings.Contains(string(providers), "`"+opt+"`") {
				missing = append(missing, k.String())
			}
			continue
		}
		if !documented[k.String()] {
			missing = append(missing, k.String())
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("the scaffold sets keys config.example.toml does not document: %v", missing)
	}
}

// TestJudgeRunsCommandChecks adds a command check to the scaffold's rules
// judge: ringside judge runs it on every answer and stores its verdict; a
// missing program stops the judge before anything is stored.
func TestJudgeRunsCommandChecks(t *testing.T) {
	dir := t.TempDir()
	if code := newTestMain().run(t, "init", "--dir", dir); code != exitOK {
		t.Fatal("init failed")
	}
	cfg, db := filepath.Join(dir, "ringside.toml"), filepath.Join(dir, "p.db")
	if code := newTestMain().run(t, "run", "--config", cfg, "--db", db, "--sim-speed", fast); code != exitOK {
		t.Fatal("run failed")
	}
	base, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	withCheck := func(argv string) {
		extra := "\n[[judges.checks]]\ntype = \"command\"\ncommand = " + argv + "\ntimeout = \"5s\"\n"
		if err := os.WriteFile(cfg, append(append([]byte{}, base...), extra...), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	withCheck(`["./no-such-checker"]`)
	bad := newTestMain()
	if code := bad.run(t, "judge", "--config", cfg, "--db", db); code != exitUsage ||
		!strings.Contains(bad.stderr.String(), `defaults[1] command: command: program "./no-such-checker" not found`) {
		t.Fatalf("missing program: exit %d, %s", code, bad.stderr)
	}
	ro := openReadOnly(t, db)
	if n := count(t, ro, "SELECT count(*) FROM check_results"); n != 0 {
		t.Fatalf("%d check results stored although the judge refused to start", n)
	}
	withCheck(`["sh", "-c", "n=$(wc -c); cat <&3 | grep -q '\"prompt\"' && echo \"$RINGSIDE_PROMPT_ID: $n bytes\""]`)
	jd := newTestMain()
	if code := jd.run(t, "judge", "--config", cfg, "--db", db); code != exitOK {
		t.Fatalf("judge exited %d: %s", code, jd.stderr)
	}
	if n := count(t, ro, `SELECT count(*) FROM check_results c JOIN generations g ON g.id = c.generation_id
		WHERE c.type = 'command' AND c.pass = 1 AND c.detail LIKE g.prompt_id || ': % bytes'`); n != 6 {
		t.Errorf("%d passing command results naming their prompt, want 6", n)
	}
}
