package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// A second `ringside run` of a run that another process is running asks no
// model anything: it says who holds the run and exits, and the first run
// completes the work alone, each generation asked for once.
func TestRunSecondProcessOfTheSameRunLeavesIt(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "r.db")
	child, out := startChild(t, dir, "run", "--db", path, "--sim-speed", "20", "--concurrency", "4")
	waitForGenerations(t, path, 8, child, out)

	second := newTestMain()
	code := second.run(t, "run", "--db", path, "--sim-speed", fast)
	if code != exitUsage {
		t.Errorf("second run exited %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitUsage, second.stdout, second.stderr)
	}
	msg := second.stderr.String()
	for _, want := range []string{`run "default"`, fmt.Sprintf("another process (pid %d", child.Process.Pid), "--run"} {
		if !strings.Contains(msg, want) {
			t.Errorf("second run's error does not say %q:\n%s", want, msg)
		}
	}
	if strings.Contains(second.stdout.String(), "stored ") {
		t.Errorf("second run stored work:\n%s", second.stdout)
	}

	if err := child.Wait(); err != nil {
		t.Fatalf("first run: %v\n%s", err, out)
	}
	if want := fmt.Sprintf("stored %d generations", demoGenerations); !strings.Contains(out.String(), want) {
		t.Errorf("the first run did not do all the work alone (%q):\n%s", want, out)
	}
	checkRunComplete(t, path, demoGenerations, demoBattles)

	// The lock is let go at the end: the next run goes ahead.
	third := newTestMain()
	if code := third.run(t, "run", "--db", path, "--sim-speed", fast); code != exitOK {
		t.Fatalf("run after the first finished exited %d: %s", code, third.stderr)
	}
}
