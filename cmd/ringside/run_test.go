package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "modernc.org/sqlite"
)

// The demo: 4 simulated models × 61 example prompts × 1 sample, all pairs.
const (
	demoModels      = 4
	demoPrompts     = 61
	demoGenerations = demoModels * demoPrompts
	demoBattles     = demoModels * (demoModels - 1) / 2 * demoPrompts
)

// fast plays simulated models at once.
const fast = "1e9"

// openReadOnly opens a ringside database for the test's own SQL checks,
// read-only, so it can watch a database another process writes.
func openReadOnly(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func count(t *testing.T, db *sql.DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// checkRunComplete asserts, in SQL, that the run holds exactly one
// generation per (prompt, model, sample), one battle per prompt and pair of
// models, and that every battle points at its own two generations.
func checkRunComplete(t *testing.T, path string, gens, battles int) {
	t.Helper()
	db := openReadOnly(t, path)
	if n := count(t, db, "SELECT count(*) FROM generations"); n != gens {
		t.Errorf("%d generations, want %d", n, gens)
	}
	if n := count(t, db, "SELECT count(*) FROM (SELECT DISTINCT run_id, prompt_id, model, sample FROM generations)"); n != gens {
		t.Errorf("%d distinct generations, want %d: some are duplicated", n, gens)
	}
	if n := count(t, db, "SELECT count(*) FROM battles"); n != battles {
		t.Errorf("%d battles, want %d", n, battles)
	}
	if n := count(t, db, `SELECT count(*) FROM battles b
		JOIN generations ga ON ga.id = b.generation_a AND ga.model = b.model_a AND ga.prompt_id = b.prompt_id AND ga.sample = b.sample
		JOIN generations gb ON gb.id = b.generation_b AND gb.model = b.model_b AND gb.prompt_id = b.prompt_id AND gb.sample = b.sample`); n != battles {
		t.Errorf("%d of %d battles point at their own generations", n, battles)
	}
	// Every generation of the run serves at least one battle.
	if n := count(t, db, `SELECT count(*) FROM generations g WHERE NOT EXISTS
		(SELECT 1 FROM battles b WHERE b.generation_a = g.id OR b.generation_b = g.id)`); n != 0 {
		t.Errorf("%d generations serve no battle", n)
	}
}

func TestRunDemoCoversEveryPairThenDoesNothingNew(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir) // the demo must not need anything from the working directory
	path := filepath.Join(dir, "r.db")
	tm := newTestMain()
	if code := tm.run(t, "run", "--db", path, "--sim-speed", fast); code != exitOK {
		t.Fatalf("run exited %d: %s\n%s", code, tm.stderr, tm.stdout)
	}
	checkRunComplete(t, path, demoGenerations, demoBattles)
	db := openReadOnly(t, path)
	// Every pair of the four models met on every prompt.
	if n := count(t, db, `SELECT count(*) FROM (SELECT min(model_a, model_b), max(model_a, model_b), count(*) AS n
		FROM battles GROUP BY 1, 2 HAVING n = $1)`, demoPrompts); n != 6 {
		t.Errorf("%d model pairs met on all %d prompts, want 6", n, demoPrompts)
	}
	// Sides are drawn at random: no model is always on the left.
	if n := count(t, db, "SELECT count(DISTINCT model_a) FROM battles"); n != demoModels {
		t.Errorf("only %d models were ever side a", n)
	}
	// Generations carry timing, tokens and cost; failures their kind.
	if n := count(t, db, `SELECT count(*) FROM generations WHERE error_kind = '' AND
		(ttft_ms <= 0 OR latency_ms < ttft_ms OR tokens_in <= 0 OR tokens_out <= 0 OR cost_usd <= 0 OR output = '')`); n != 0 {
		t.Errorf("%d successful generations lack timing, tokens, cost or output", n)
	}
	if n := count(t, db, "SELECT count(*) FROM runs WHERE name = 'default' AND samples = 1"); n != 1 {
		t.Errorf("run record: %d", n)
	}
	out := tm.stdout.String()
	for _, want := range []string{"ringside demo", "244 generations, 366 battles", "sim-atlas", "TTFT p50", "total p95", "cost"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(tm.stderr.String(), "run default: 244/244 generations (100%)") {
		t.Errorf("no progress lines on a non-terminal:\n%s", tm.stderr)
	}

	again := newTestMain()
	if code := again.run(t, "run", "--db", path, "--sim-speed", fast); code != exitOK {
		t.Fatalf("second run exited %d: %s", code, again.stderr)
	}
	if !strings.Contains(again.stdout.String(), "nothing new to do") {
		t.Errorf("second run did not say it had nothing to do:\n%s", again.stdout)
	}
	if again.stderr.String() != "" {
		t.Errorf("second run showed progress: %s", again.stderr)
	}
	checkRunComplete(t, path, demoGenerations, demoBattles)
}

func TestRunConfiguredSampledPairsAndFailures(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir) // database.path is relative to the working directory
	prompts := `{"id": "q1", "prompt": "What is 2+2?", "reference": "4"}
{"id": "q2", "prompt": "Name a colour."}
{"id": "q3", "prompt": "Say hello in JSON.", "kind": "edge"}
`
	cfg := `[database]
path = "cfg.db"

[[prompt_sets]]
name = "mine"
file = "prompts.jsonl"

[run]
name = "nightly"
samples = 3
concurrency = 2
pairs = "sampled"
pairs_per_prompt = 2
seed = 11

[[models]]
name = "steady"
provider = "sim"
concurrency = 1
options = { ttft_ms = 5, tokens_per_sec = 100000 }

[[models]]
name = "flaky"
provider = "sim"
options = { error_rate = 0.5, error_kinds = ["server_error", "bad_response", "timeout"], ttft_ms = 5 }

[[models]]
name = "third"
provider = "sim"
price_in_per_m = 1.0
price_out_per_m = 2.0
`
	for name, body := range map[string]string{"prompts.jsonl": prompts, "ringside.toml": cfg} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tm := newTestMain()
	// Breaker pauses would only slow this test down: with 50% errors the
	// flaky model may trip it, which is fine, but it must not be benched.
	if code := tm.run(t, "run", "--config", filepath.Join(dir, "ringside.toml"), "--sim-speed", fast); code != exitOK {
		t.Fatalf("run exited %d: %s\n%s", code, tm.stderr, tm.stdout)
	}
	path := filepath.Join(dir, "cfg.db")
	// 3 prompts × 3 samples × 2 sampled pairs of 3 models: each round uses
	// all three models.
	checkRunComplete(t, path, 27, 18)
	db := openReadOnly(t, path)
	failed := count(t, db, "SELECT count(*) FROM generations WHERE model = 'flaky' AND error_kind <> ''")
	if failed == 0 {
		t.Error("the flaky model never failed")
	}
	if n := count(t, db, `SELECT count(*) FROM generations WHERE error_kind <> '' AND
		(model <> 'flaky' OR error_kind NOT IN ('server_error', 'bad_response', 'timeout') OR error = '')`); n != 0 {
		t.Errorf("%d failures with a wrong model, kind or no message", n)
	}
	if n := count(t, db, "SELECT count(*) FROM generations WHERE model = 'third' AND cost_usd <= 0"); n != 0 {
		t.Errorf("%d generations of a priced model have no cost", n)
	}
	if n := count(t, db, "SELECT count(*) FROM runs WHERE name = 'nightly' AND samples = 3"); n != 1 {
		t.Error("no run record for nightly with 3 samples")
	}
	if !strings.Contains(tm.stdout.String(), fmt.Sprintf("%d failed generations are kept", failed)) {
		t.Errorf("summary does not mention the failures:\n%s", tm.stdout)
	}
	// More samples later: only the new samples' work is done.
	more := newTestMain()
	if code := more.run(t, "run", "--config", filepath.Join(dir, "ringside.toml"), "--sim-speed", fast, "--samples", "4"); code != exitOK {
		t.Fatalf("run --samples 4 exited %d: %s", code, more.stderr)
	}
	if !strings.Contains(more.stdout.String(), "already stored: 27 generations, 18 battles") {
		t.Errorf("extended run did not resume:\n%s", more.stdout)
	}
	checkRunComplete(t, path, 36, 24)
}

func TestRunRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--samples", "-1"},
		{"run", "--concurrency", "-2"},
		{"run", "--sim-speed", "-1"},
		{"run", "--no-such-flag"},
	} {
		tm := newTestMain()
		if code := tm.run(t, append(args, "--db", filepath.Join(t.TempDir(), "r.db"))...); code != exitUsage {
			t.Errorf("%v exited %d, want %d: %s", args, code, exitUsage, tm.stderr)
		}
	}
}

// TestRunChildProcess is not a test: it is `ringside` itself when the
// tests re-execute their own binary as a child process to kill it, with
// the arguments in RINGSIDE_RUN_CHILD. It behaves as main does.
func TestRunChildProcess(t *testing.T) {
	argsJSON := os.Getenv("RINGSIDE_RUN_CHILD")
	if argsJSON == "" {
		t.Skip("only runs as a child process of the kill tests")
	}
	var args []string
	if err := json.Unmarshal([]byte(argsJSON), &args); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(99)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	m := &Main{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
	os.Exit(m.Run(ctx, args))
}

// startChild starts `ringside args...` as a child process.
func startChild(t *testing.T, dir string, args ...string) (*exec.Cmd, *syncBuffer) {
	t.Helper()
	argsJSON, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0], "-test.run=^TestRunChildProcess$")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "RINGSIDE_RUN_CHILD="+string(argsJSON))
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, out
}

// waitForGenerations polls the database until it holds at least n
// generations, and returns how many it saw.
func waitForGenerations(t *testing.T, path string, n int, child *exec.Cmd, out *syncBuffer) int {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(path); err == nil {
			db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(10000)")
			if err == nil {
				var got int
				err = db.QueryRow("SELECT count(*) FROM generations").Scan(&got)
				db.Close()
				if err == nil && got >= n {
					return got
				}
			}
		}
		if child.ProcessState != nil {
			t.Fatalf("child exited early: %s", out)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no %d generations within a minute: %s", n, out)
	return 0
}

func TestRunResumesAfterSIGINTAndSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "r.db")
	// Slow enough (several seconds for the whole demo at this speed) to be
	// stopped well before the end.
	slow := []string{"run", "--db", path, "--sim-speed", "20", "--concurrency", "4"}

	// Ctrl-C: the run stops gracefully, says how to resume, and keeps no
	// generation it cut short.
	child, out := startChild(t, dir, slow...)
	waitForGenerations(t, path, 12, child, out)
	if err := child.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := child.Wait()
	if code := child.ProcessState.ExitCode(); code != exitInternal {
		t.Fatalf("interrupted run exited %d (%v), want %d:\n%s", code, err, exitInternal, out)
	}
	if !strings.Contains(out.String(), "interrupted after storing") || !strings.Contains(out.String(), "run the same command again") {
		t.Errorf("interrupted run did not say how to resume:\n%s", out)
	}
	db := openReadOnly(t, path)
	if n := count(t, db, "SELECT count(*) FROM generations WHERE error_kind = 'cancelled'"); n != 0 {
		t.Errorf("%d cancelled generations were stored", n)
	}
	interruptedAt := count(t, db, "SELECT count(*) FROM generations")
	db.Close()

	// kill -9 of the resumed run: no cleanup of any kind.
	child, out = startChild(t, dir, slow...)
	seen := waitForGenerations(t, path, interruptedAt+20, child, out)
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	if !strings.Contains(out.String(), fmt.Sprintf("already stored: %d generations", interruptedAt)) {
		t.Errorf("second run did not resume after the interrupt:\n%s", out)
	}
	db = openReadOnly(t, path)
	killedAt := count(t, db, "SELECT count(*) FROM generations")
	if killedAt < seen || killedAt >= demoGenerations {
		t.Fatalf("%d generations stored when killed (saw %d), want part of %d", killedAt, seen, demoGenerations)
	}
	db.Close()
	t.Logf("interrupted after %d, killed after %d of %d generations", interruptedAt, killedAt, demoGenerations)

	// Restart: it resumes, does only what is missing, and completes.
	again, out2 := startChild(t, dir, "run", "--db", path, "--sim-speed", fast)
	if err := again.Wait(); err != nil {
		t.Fatalf("restarted run: %v\n%s", err, out2)
	}
	if want := fmt.Sprintf("already stored: %d generations", killedAt); !strings.Contains(out2.String(), want) {
		t.Errorf("restart did not resume from the stored work (%q):\n%s", want, out2)
	}
	if want := fmt.Sprintf("stored %d generations", demoGenerations-killedAt); !strings.Contains(out2.String(), want) {
		t.Errorf("restart did not produce exactly the missing generations (%q):\n%s", want, out2)
	}
	checkRunComplete(t, path, demoGenerations, demoBattles)
}
