package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ringside-eval/ringside/judge"
	"github.com/ringside-eval/ringside/store"
)

// rank before there is anything to rank says what to do next: run (or
// import) on an empty database, judge or serve once battles wait for votes;
// and a model with generations but no rated battle is still listed.
func TestRankSaysWhatToDoNext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.db")
	db, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	tm := newTestMain()
	if code := tm.run(t, "rank", "--db", path); code != exitOK {
		t.Fatalf("rank exited %d: %s", code, tm.stderr)
	}
	if e := tm.stderr.String(); !strings.Contains(e, "no battles") || !strings.Contains(e, "ringside run") || !strings.Contains(e, "import battles") {
		t.Fatalf("rank on an empty database says:\n%s", e)
	}

	if code := tm.run(t, "run", "--db", path, "--sim-speed", fast); code != exitOK {
		t.Fatalf("run exited %d: %s", code, tm.stderr)
	}
	after := newTestMain()
	if code := after.run(t, "rank", "--db", path); code != exitOK {
		t.Fatalf("rank exited %d: %s", code, after.stderr)
	}
	if e := after.stderr.String(); !strings.Contains(e, "no votes yet") || !strings.Contains(e, "judge --judge rules") || !strings.Contains(e, "ringside serve") {
		t.Fatalf("rank before any vote says:\n%s", e)
	}
	if out := after.stdout.String(); !strings.Contains(out, "sim-dune") || !strings.Contains(out, "no_battles") {
		t.Fatalf("the models with generations are not listed:\n%s", out)
	}
}

func TestVersionFlags(t *testing.T) {
	for _, arg := range []string{"--version", "-v", "version"} {
		tm := newTestMain()
		if code := tm.run(t, arg); code != exitOK || !strings.HasPrefix(tm.stdout.String(), "ringside ") {
			t.Errorf("ringside %s: exit %d, %q %q", arg, code, tm.stdout, tm.stderr)
		}
	}
}

// The --stats tables say what their marks mean and head each column once.
func TestJudgeStatsTablesExplainThemselves(t *testing.T) {
	st := &judgeStats{
		Pass:      map[string][]judge.PassStats{"rules": {{Model: "m1", Prompts: 3, K: 3, UnevenK: true}, {Model: "m2", Prompts: 3, K: 3}}},
		Agreement: []judge.Agreement{{JudgeA: "human", JudgeB: "rules:rules", Battles: 10, Rate: 0.7, Decisive: 6, DecisiveRate: 0.8}},
	}
	var b strings.Builder
	st.write(&b)
	out := b.String()
	if !strings.Contains(out, "3*") || !strings.Contains(out, "* some prompts have fewer than k samples") {
		t.Errorf("the * mark is not explained:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "judge ") && strings.Count(line, "agreement") > 1 && !strings.Contains(line, "decisive agreement") {
			t.Errorf("two columns headed agreement: %q", line)
		}
	}
	if !strings.Contains(out, "decisive agreement") {
		t.Errorf("no decisive agreement column:\n%s", out)
	}
}

// A plain run after `run --samples 2` covers one sample while the table
// under it covers the two stored: the output says so instead of showing
// two totals that disagree.
func TestRunAfterMoreSamplesExplainsTheTable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db")
	if code := newTestMain().run(t, "run", "--db", path, "--sim-speed", fast, "--samples", "2"); code != exitOK {
		t.Fatal("run --samples 2 failed")
	}
	tm := newTestMain()
	if code := tm.run(t, "run", "--db", path, "--sim-speed", fast); code != exitOK {
		t.Fatalf("run exited %d: %s", code, tm.stderr)
	}
	out := tm.stdout.String()
	if !strings.Contains(out, "244 generations") || !strings.Contains(out, "holds 488 generations in all") {
		t.Fatalf("plain run after --samples 2:\n%s", out)
	}
}

// A second file holding judgments an earlier file imported counts them as
// already stored; its new judgments (another verdict, another time, other
// conversations) are added, and so is a line with no question id.
func TestImportSameJudgmentsFromASecondFile(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "dup.db")
	conv := func(s string) string {
		return `"conversation_a":[{"role":"user","content":"Hi"},{"role":"assistant","content":"` + s + ` a"}],"conversation_b":[{"role":"user","content":"Hi"},{"role":"assistant","content":"` + s + ` b"}]`
	}
	first := `{"model_a":"m1","model_b":"m2","winner":"model_a","judge":"ana","question_id":"q1","tstamp":1700000000.5}
{"model_a":"m1","model_b":"m2","winner":"model_b","judge":"bo","question_id":"q2"}
{"model_a":"m2","model_b":"m3","winner":"tie","judge":"ana","question_id":"q3",` + conv("one") + `}
{"model_a":"m1","model_b":"m3","winner":"tie","judge":"cy"}
`
	second := first + `{"model_a":"m1","model_b":"m2","winner":"model_b","judge":"ana","question_id":"q1","tstamp":1700000000.5}
{"model_a":"m1","model_b":"m2","winner":"model_a","judge":"ana","question_id":"q1","tstamp":1700000999}
{"model_a":"m2","model_b":"m3","winner":"tie","judge":"ana","question_id":"q3",` + conv("two") + `}
`
	for name, body := range map[string]string{"a.jsonl": first, "b.jsonl": second} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mustRun(t, "import", "battles", filepath.Join(dir, "a.jsonl"), "--db", db)
	tm := mustRun(t, "import", "battles", filepath.Join(dir, "b.jsonl"), "--db", db)
	// Without a question id nothing tells two judgments apart: that line
	// is added again.
	if n := countVotes(t, db); n != 8 {
		t.Fatalf("%d votes after importing the same judgments twice, want 4 + 3 new + 1 without a question\n%s", n, tm.stdout)
	}
	if !strings.Contains(tm.stdout.String(), "3 already stored") {
		t.Errorf("the second import does not count the 3 it already had:\n%s", tm.stdout)
	}
}
