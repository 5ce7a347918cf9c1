package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ringside-eval/ringside/rank"
)

// writeStrengthBattles writes battles drawn from known ratings: "cand" is
// 60 points below "base" in category "a" and level with it in "b"; both
// also meet two other models.
func writeStrengthBattles(t *testing.T) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(9, 9))
	rating := map[string]map[string]float64{
		"a": {"base": 1050, "cand": 990, "o1": 1000, "o2": 960},
		"b": {"base": 1020, "cand": 1020, "o1": 1000, "o2": 960},
	}
	models := []string{"base", "cand", "o1", "o2"}
	var b strings.Builder
	for n := 0; n < 6000; n++ {
		cat := "a"
		if n%2 == 1 {
			cat = "b"
		}
		i := rng.IntN(4)
		j := (i + 1 + rng.IntN(3)) % 4
		p := 1 / (1 + math.Pow(10, (rating[cat][models[j]]-rating[cat][models[i]])/400))
		w := "model_b"
		if rng.Float64() < p {
			w = "model_a"
		}
		fmt.Fprintf(&b, `{"model_a": %q, "model_b": %q, "winner": %q, "category": %q, "dimensions": {"factual_accuracy": %q}}`+"\n",
			models[i], models[j], w, cat, w)
	}
	path := filepath.Join(t.TempDir(), "strengths.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCompareExitCodes(t *testing.T) {
	file := writeStrengthBattles(t)
	base := []string{"compare", "--battles", file, "--bootstrap", "100", "--seed", "1"}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"worse", []string{"--baseline", "base", "--candidate", "cand", "--by", "category"}, exitCheck, "category: a"},
		{"better", []string{"--baseline", "cand", "--candidate", "base"}, exitOK, "better"},
		{"within margin", []string{"--baseline", "base", "--candidate", "cand", "--margin", "500"}, exitOK, "within_margin"},
		{"per dimension by default", []string{"--baseline", "base", "--candidate", "cand", "--format", "csv"}, exitCheck, "factual_accuracy"},
		{"several slicings", []string{"--baseline", "base", "--candidate", "cand", "--by", "category,dimension"}, exitCheck, "dimension: factual_accuracy"},
		{"sandwich", []string{"--baseline", "base", "--candidate", "cand", "--interval", "sandwich", "--by", ""}, exitCheck, "sandwich"},
		{"unknown model", []string{"--baseline", "base", "--candidate", "nobody"}, exitUsage, "nobody"},
		{"no interval", []string{"--baseline", "base", "--candidate", "cand", "--interval", "none"}, exitUsage, "interval"},
		{"no baseline", []string{"--candidate", "cand"}, exitUsage, "--baseline"},
		{"same model", []string{"--baseline", "base", "--candidate", "base"}, exitUsage, "candidate"},
		{"bad minimum", []string{"--baseline", "base", "--candidate", "cand", "--min-slice-battles", "-3"}, exitUsage, "--min-slice-battles"},
		{"bad slicing", []string{"--baseline", "base", "--candidate", "cand", "--by", "colour"}, exitUsage, "by"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tm := newTestMain()
			code := tm.run(t, append(append([]string{}, base...), tc.args...)...)
			if code != tc.code {
				t.Fatalf("exited %d, want %d\n%s%s", code, tc.code, tm.stdout, tm.stderr)
			}
			if out := tm.stdout.String() + tm.stderr.String(); !strings.Contains(out, tc.want) {
				t.Errorf("output lacks %q:\n%s", tc.want, out)
			}
		})
	}
}

func TestCompareJSON(t *testing.T) {
	file := writeStrengthBattles(t)
	tm := newTestMain()
	if code := tm.run(t, "compare", "--battles", file, "--baseline", "base", "--candidate", "cand", "--by", "category",
		"--bootstrap", "100", "--format", "json"); code != exitCheck {
		t.Fatalf("exited %d: %s", code, tm.stderr)
	}
	var c rank.Comparison
	if err := json.Unmarshal([]byte(tm.stdout.String()), &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Slices) != 2 || c.Slices[0].Verdict != rank.VerdictWorse || c.Slices[1].Verdict == rank.VerdictWorse ||
		c.Overall.HeadToHead.Battles == 0 || *c.Overall.Difference >= 0 {
		t.Errorf("comparison %+v", c)
	}
}

// compare reads the database like rank does, and agrees with compare of
// the database's export.
func TestCompareFromDatabase(t *testing.T) {
	f := mustArenaFixture(t)
	file := filepath.Join(t.TempDir(), "battles.jsonl")
	mustRun(t, "export", "battles", "--db", f.dbPath, "-o", file)
	args := []string{"--baseline", "m1", "--candidate", "m3", "--by", "judge,dimension", "--bootstrap", "100", "--format", "json"}
	fromDB, fromFile := newTestMain(), newTestMain()
	if code := fromDB.run(t, append([]string{"compare", "--db", f.dbPath}, args...)...); code != exitCheck {
		t.Fatalf("from the database exited %d: %s", code, fromDB.stderr)
	}
	if code := fromFile.run(t, append([]string{"compare", "--battles", file}, args...)...); code != exitCheck {
		t.Fatalf("from the export exited %d: %s", code, fromFile.stderr)
	}
	if fromDB.stdout.String() != fromFile.stdout.String() {
		t.Errorf("compare from the database differs from compare of its export:\n%s\n---\n%s", fromDB.stdout, fromFile.stdout)
	}
	var c rank.Comparison
	if err := json.Unmarshal([]byte(fromDB.stdout.String()), &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Slices) < 4 || !strings.HasPrefix(c.Slices[0].Slice, "judge: ") {
		t.Errorf("slices %+v", c.Slices)
	}
}
