package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

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
