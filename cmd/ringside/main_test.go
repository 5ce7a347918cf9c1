package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ringside-eval/ringside/store"
)

// testMain runs the program in-process with captured output and an
// environment of its own.
type testMain struct {
	Main
	stdout, stderr *syncBuffer
	env            map[string]string
}

func newTestMain() *testMain {
	tm := &testMain{stdout: &syncBuffer{}, stderr: &syncBuffer{}, env: map[string]string{}}
	tm.Main = Main{Stdin: strings.NewReader(""), Stdout: tm.stdout, Stderr: tm.stderr,
		Getenv: func(k string) string { return tm.env[k] }}
	return tm
}

func (tm *testMain) run(t *testing.T, args ...string) int {
	t.Helper()
	return tm.Run(context.Background(), args)
}

// syncBuffer is a bytes.Buffer safe to read while the server writes to it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestUsageForEveryCommand(t *testing.T) {
	tm := newTestMain()
	if code := tm.run(t, "-h"); code != exitOK {
		t.Fatalf("ringside -h exited %d", code)
	}
	for name := range commands() {
		if !strings.Contains(tm.stdout.String(), "  "+name) {
			t.Errorf("ringside -h does not list %s", name)
		}
		sub := newTestMain()
		if code := sub.run(t, name, "-h"); code != exitOK {
			t.Errorf("ringside %s -h exited %d", name, code)
		}
		if !strings.Contains(sub.stdout.String(), "Usage: ringside "+name) {
			t.Errorf("ringside %s -h printed %q", name, sub.stdout.String())
		}
	}
	bad := newTestMain()
	if code := bad.run(t, "frobnicate"); code != exitUsage {
		t.Fatalf("unknown command exited %d, want %d", code, exitUsage)
	}
	if code := bad.run(t, "serve", "--no-such-flag"); code != exitUsage {
		t.Fatalf("unknown flag exited %d, want %d", code, exitUsage)
	}
}

func TestImportExamplePrompts(t *testing.T) {
	db := filepath.Join(t.TempDir(), "r.db")
	file := filepath.Join("..", "..", "examples", "prompts.jsonl")
	tm := newTestMain()
	if code := tm.run(t, "import", "prompts", file, "--db", db); code != exitOK {
		t.Fatalf("import exited %d: %s", code, tm.stderr)
	}
	if !strings.Contains(tm.stdout.String(), "unchanged") || strings.Contains(tm.stdout.String(), " 0 added") {
		t.Fatalf("first import printed %q", tm.stdout)
	}
	again := newTestMain()
	if code := again.run(t, "import", "prompts", file, "--db", db); code != exitOK {
		t.Fatalf("second import exited %d: %s", code, again.stderr)
	}
	if !strings.Contains(again.stdout.String(), " 0 added, 0 updated") {
		t.Fatalf("re-import was not a no-op: %q", again.stdout)
	}
}

func TestImportFileWithOneBadLineWritesNothing(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "r.db")
	file := filepath.Join(dir, "set.jsonl")
	lines := `{"id": "a", "prompt": "one"}
{"id": "b", "prompt": "two"}
{"id": "c", "prompt": "three", "kind": "sideways"}
{"id": "d", "prompt": "four"}
`
	if err := os.WriteFile(file, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	tm := newTestMain()
	if code := tm.run(t, "import", "prompts", file, "--db", db); code != exitUsage {
		t.Fatalf("import exited %d, want %d", code, exitUsage)
	}
	if want := "set.jsonl:3: kind: "; !strings.Contains(tm.stderr.String(), want) {
		t.Fatalf("stderr %q does not name line and field (%q)", tm.stderr, want)
	}
	sdb, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	ps, err := sdb.Prompts(context.Background())
	if err != nil || len(ps) != 0 {
		t.Fatalf("prompts after a failed import = %d (%v), want none", len(ps), err)
	}
}

// startServe runs `ringside serve` in-process on a free port and returns its
// base URL and a stop function that waits for a clean exit.
func startServe(t *testing.T, tm *testMain, args ...string) (string, func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan string, 1)
	tm.Listening = func(addr string) { addrc <- addr }
	done := make(chan int, 1)
	go func() { done <- tm.Run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)) }()
	select {
	case addr := <-addrc:
		return "http://" + addr, func() int { cancel(); return <-done }
	case code := <-done:
		cancel()
		t.Fatalf("serve exited %d before listening: %s", code, tm.stderr)
	case <-time.After(20 * time.Second):
		cancel()
		t.Fatal("serve did not start")
	}
	return "", nil
}

func TestServeDemoAnswersHealthAndPages(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	tm := newTestMain()
	base, stop := startServe(t, tm)
	for _, tc := range []struct{ path, contentType, fragment string }{
		{"/healthz", "application/json", `"status":"ok"`},
		{"/", "text/html; charset=UTF-8", "<title>ringside</title>"},
		{"/judge", "text/html; charset=UTF-8", "<title>ringside · judge</title>"},
		{"/leaderboard", "text/html; charset=UTF-8", "<title>ringside · leaderboard</title>"},
		{"/admin", "text/html; charset=UTF-8", "<title>ringside · admin</title>"},
		{"/assets/style.css", "text/css; charset=utf-8", "font-family"},
	} {
		resp, err := http.Get(base + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || ct != tc.contentType || !strings.Contains(string(body), tc.fragment) {
			t.Errorf("GET %s = %d %s: %.300s; want 200 %s with %s", tc.path, resp.StatusCode, ct, body, tc.contentType, tc.fragment)
		}
	}
	if code := stop(); code != exitOK {
		t.Fatalf("serve exited %d: %s", code, tm.stderr)
	}
	out := tm.stdout.String()
	if !strings.Contains(out, "admin token (shown once") {
		t.Errorf("first start did not print the admin token: %q", out)
	}
	// The demo keeps its data in ./demo.db, apart from a config's own
	// database (ringside.db by default).
	if _, err := os.Stat(filepath.Join(dir, "demo.db")); err != nil {
		t.Fatalf("demo database: %v", err)
	}

	// A second start reuses the token: it is not printed again.
	tm2 := newTestMain()
	_, stop2 := startServe(t, tm2)
	if code := stop2(); code != exitOK {
		t.Fatalf("second serve exited %d: %s", code, tm2.stderr)
	}
	if strings.Contains(tm2.stdout.String(), "admin token") {
		t.Errorf("second start printed a new admin token: %q", tm2.stdout)
	}
}
