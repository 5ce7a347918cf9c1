package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// rankBattles is a fixed battle file: five models and one that never won,
// three categories, four judges (an LLM judge's strong verdicts weighted
// 3), dimensions, tags, identity leaks and measured latency and cost.
const rankBattles = "testdata/rank_battles.jsonl"

// goldenFile compares got with testdata/name, or rewrites it with -update.
func goldenFile(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./cmd/ringside -run Golden -update creates it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (rerun with -update if the change is meant):\n%s", name, got)
	}
}

func TestRankGolden(t *testing.T) {
	for _, format := range []string{"table", "csv", "md", "json"} {
		t.Run(format, func(t *testing.T) {
			tm := newTestMain()
			code := tm.run(t, "rank", "--battles", rankBattles, "--judges", "all", "--bootstrap", "100", "--seed", "7", "--elo",
				"--by", "category", "--format", format)
			if code != exitOK {
				t.Fatalf("rank exited %d: %s", code, tm.stderr)
			}
			ext := map[string]string{"table": "txt", "csv": "csv", "md": "md", "json": "json"}[format]
			goldenFile(t, "rank."+ext, []byte(tm.stdout.String()))
		})
	}
}

// The intervals are the same whatever the number of cores (each bootstrap
// round draws from a stream seeded by (seed, round) alone), and standard
// input reads like a file.
func TestRankSameOnOneCore(t *testing.T) {
	if *update {
		t.Skip("golden files being rewritten")
	}
	want, err := os.ReadFile("testdata/rank.json")
	if err != nil {
		t.Fatal(err)
	}
	// One core also takes the battle reader's sequential path.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	stdin, err := os.Open(rankBattles)
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	tm := newTestMain()
	tm.Stdin = stdin
	if code := tm.run(t, "rank", "--battles", "-", "--judges", "all", "--bootstrap", "100", "--seed", "7", "--elo", "--by", "category",
		"--format", "json"); code != exitOK {
		t.Fatalf("rank from stdin exited %d: %s", code, tm.stderr)
	}
	if tm.stdout.String() != string(want) {
		t.Errorf("rank from standard input differs from rank of the file")
	}
}

// rankJSON runs rank with --format json and decodes the report.
func rankJSON(t *testing.T, tm *testMain, args ...string) map[string]any {
	t.Helper()
	if code := tm.run(t, append([]string{"rank", "--format", "json"}, args...)...); code != exitOK {
		t.Fatalf("rank %v exited %d: %s", args, code, tm.stderr)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(tm.stdout.String()), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestRankConfigDefaultsAndFlags(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "c.toml")
	cfg := "[rank]\nbootstrap = 20\nseed = 3\nanchor = \"gamma=1200\"\ninclude_identity_leaks = true\n"
	if err := os.WriteFile(conf, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	out := rankJSON(t, newTestMain(), "--battles", rankBattles, "--config", conf)
	method := out["method"].(map[string]any)
	if method["bootstrap_rounds"].(float64) != 20 || method["seed"].(float64) != 3 {
		t.Errorf("config defaults not used: %v", method)
	}
	if a, _ := method["anchor"].(map[string]any); a == nil || a["model"] != "gamma" || a["rating"].(float64) != 1200 {
		t.Errorf("anchor %v", method["anchor"])
	}
	withLeaks := out["battles"].(float64)
	// Flags win over the config.
	out = rankJSON(t, newTestMain(), "--battles", rankBattles, "--config", conf, "--bootstrap", "0",
		"--anchor", "alpha=1500", "--include-leaks=false")
	method = out["method"].(map[string]any)
	if method["bootstrap_rounds"].(float64) != 0 || method["interval"] != "none" {
		t.Errorf("--bootstrap 0: %v", method)
	}
	if a := method["anchor"].(map[string]any); a["model"] != "alpha" {
		t.Errorf("--anchor: %v", a)
	}
	if without := out["battles"].(float64); without >= withLeaks {
		t.Errorf("identity leaks: %v battles without, %v with", without, withLeaks)
	}
	for _, m := range out["models"].([]any) {
		if m := m.(map[string]any); m["model"] == "alpha" && m["rating"].(float64) != 1500 {
			t.Errorf("anchored alpha at %v", m["rating"])
		}
	}
	// The sandwich interval needs no rounds.
	out = rankJSON(t, newTestMain(), "--battles", rankBattles, "--interval", "sandwich", "--bootstrap", "0")
	if m := out["models"].([]any)[0].(map[string]any); m["ci_low"] == nil || out["method"].(map[string]any)["interval"] != "sandwich" {
		t.Errorf("sandwich: %v", m)
	}
}

func TestRankBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte(`{"model_a": "x", "model_b": "y", "winner": "model_a"}
{"model_a": "x", "model_b": "y", "winner": "left"}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--battles", bad}, "bad.jsonl:2: winner: "},
		{[]string{"--battles", rankBattles, "--format", "xml"}, "--format"},
		{[]string{"--battles", rankBattles, "--by", "colour"}, "by: "},
		{[]string{"--battles", rankBattles, "--anchor", "nobody=1000"}, "nobody"},
		{[]string{"--battles", rankBattles, "--anchor", "alpha"}, "anchor: "},
		{[]string{"--battles", rankBattles, "--run", "r1"}, "--run"},
		{[]string{"--battles", filepath.Join(dir, "missing.jsonl")}, "missing.jsonl"},
		{[]string{"--battles", rankBattles, "extra"}, ""},
	} {
		tm := newTestMain()
		if code := tm.run(t, append([]string{"rank"}, tc.args...)...); code != exitUsage {
			t.Errorf("rank %v exited %d, want %d", tc.args, code, exitUsage)
		}
		if !strings.Contains(tm.stderr.String(), tc.want) {
			t.Errorf("rank %v: stderr %q does not name %q", tc.args, tm.stderr, tc.want)
		}
	}
}
