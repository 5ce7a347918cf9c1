package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ringside-eval/ringside/config"
)

// writeBadConfig writes a config whose every line but one is valid, and
// returns its path and the database path it names.
func writeBadConfig(t *testing.T, options, promptFile string) (cfgPath, dbPath string) {
	t.Helper()
	dir := t.TempDir()
	dbPath = filepath.Join(dir, "arena.db")
	if promptFile == "" {
		abs, err := filepath.Abs(filepath.Join("..", "..", "examples", "prompts.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		promptFile = abs
	}
	src := "[database]\npath = " + quote(dbPath) + "\n\n" +
		"[[models]]\nname = \"a\"\nprovider = \"sim\"\n\n" +
		"[[models]]\nname = \"b\"\nprovider = \"sim\"\noptions = " + options + "\n\n" +
		"[[prompt_sets]]\nname = \"p\"\nfile = " + quote(promptFile) + "\n"
	cfgPath = filepath.Join(dir, "c.toml")
	if err := os.WriteFile(cfgPath, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return cfgPath, dbPath
}

func quote(s string) string { return "'" + s + "'" }

// A bad config is reported with its line before anything is written: no
// database file appears, so no half-imported prompt set is left behind.
func TestBadConfigCreatesNoDatabase(t *testing.T) {
	for _, tc := range []struct {
		name, options, promptFile, want string
	}{
		{"bad sim option", "{ speed = -3 }", "", "c.toml:11: models[1].options.speed: "},
		{"unknown sim option", "{ sped = 2 }", "", "c.toml:11: models[1].options.sped: "},
		{"missing prompt file", "{}", "/no/such/prompts.jsonl", "c.toml:15: prompt_sets[0].file: open /no/such/prompts.jsonl"},
	} {
		for _, cmd := range [][]string{{"run"}, {"serve", "--addr", "127.0.0.1:0"}, {"judge"}} {
			t.Run(tc.name+"/"+cmd[0], func(t *testing.T) {
				cfgPath, dbPath := writeBadConfig(t, tc.options, tc.promptFile)
				tm := newTestMain()
				if code := tm.run(t, append(cmd, "--config", cfgPath)...); code == exitOK {
					t.Fatalf("exit %d, want an error", code)
				}
				if !strings.Contains(tm.stderr.String(), tc.want) {
					t.Fatalf("stderr = %q, want it to contain %q", tm.stderr.String(), tc.want)
				}
				if _, err := os.Stat(dbPath); !os.IsNotExist(err) {
					t.Fatalf("the database was created (stat: %v)", err)
				}
			})
		}
	}
}

func TestPromptFileBadRegexNamesLineAndPrompt(t *testing.T) {
	file := filepath.Join(t.TempDir(), "p.jsonl")
	src := `{"id": "ok", "prompt": "a"}` + "\n" + `{"id": "rx", "prompt": "a", "checks": [{"type": "regex", "pattern": "(x"}]}` + "\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := readPromptFile(file)
	if want := file + ":2: prompt rx: checks[0] (regex): "; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want it to contain %q", err, want)
	}
}

// The README's `serve --config config.example.toml` must not open the
// demo's database: the demo's simulated models would show up in "your own"
// leaderboard.
func TestExampleConfigAndDemoKeepSeparateDatabases(t *testing.T) {
	tm := newTestMain()
	demo, err := tm.loadConfig("")
	if err != nil {
		t.Fatal(err)
	}
	example, err := tm.loadConfig("../../config.example.toml")
	if err != nil {
		t.Fatal(err)
	}
	if demo.Database.Path == example.Database.Path {
		t.Fatalf("demo and config.example.toml share the database %s", demo.Database.Path)
	}
	if plain := config.Defaults(); plain.Database.Path == demo.Database.Path {
		t.Fatalf("a config without [database] shares the demo's %s", demo.Database.Path)
	}
}
