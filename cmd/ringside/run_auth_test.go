package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// A model whose key the server rejects stops the run's calls to it at
// once: the run says which variable and endpoint were used, stores nothing
// against the model's error rate, finishes the other models' work, and
// exits non-zero.
func TestRunStopsOnARejectedKey(t *testing.T) {
	for _, status := range []int{http.StatusUnauthorized, http.StatusForbidden} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			var calls atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(status)
				_, _ = w.Write([]byte(`{"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}}`))
			}))
			defer srv.Close()

			dir := t.TempDir()
			t.Chdir(dir)
			prompts := "{\"id\": \"q1\", \"prompt\": \"One?\"}\n{\"id\": \"q2\", \"prompt\": \"Two?\"}\n{\"id\": \"q3\", \"prompt\": \"Three?\"}\n"
			cfg := `[database]
path = "auth.db"

[[prompt_sets]]
name = "mine"
file = "prompts.jsonl"

[run]
concurrency = 1

[[models]]
name = "remote"
provider = "openai"
model = "gpt-test"
base_url = "` + srv.URL + `/v1"
api_key_env = "REMOTE_KEY"

[[models]]
name = "local-a"
provider = "sim"

[[models]]
name = "local-b"
provider = "sim"
`
			for name, body := range map[string]string{"prompts.jsonl": prompts, "ringside.toml": cfg} {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			tm := newTestMain()
			tm.env["REMOTE_KEY"] = "sk-wrong"
			code := tm.run(t, "run", "--config", filepath.Join(dir, "ringside.toml"), "--sim-speed", fast)
			if code != exitUsage {
				t.Fatalf("run exited %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitUsage, tm.stdout, tm.stderr)
			}
			if n := calls.Load(); n != 1 {
				t.Errorf("the server was called %d times, want once", n)
			}
			stderr := tm.stderr.String()
			for _, want := range []string{"model remote", "API key was rejected", "$REMOTE_KEY", srv.URL, "left for the next run"} {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr does not say %q:\n%s", want, stderr)
				}
			}
			if strings.Contains(stderr+tm.stdout.String(), "sk-wrong") {
				t.Error("the key itself was printed")
			}
			db := openReadOnly(t, filepath.Join(dir, "auth.db"))
			if n := count(t, db, "SELECT count(*) FROM generations WHERE model = 'remote'"); n != 0 {
				t.Errorf("%d generations of the rejected model were stored, want none", n)
			}
			if n := count(t, db, "SELECT count(*) FROM generations WHERE model IN ('local-a', 'local-b') AND error_kind = ''"); n != 6 {
				t.Errorf("the other models stored %d generations, want 6", n)
			}
			if n := count(t, db, "SELECT count(*) FROM battles"); n != 3 {
				t.Errorf("%d battles stored, want the 3 between the two usable models", n)
			}
		})
	}
}

// Every missing API key is reported at once, each on its config line,
// before anything runs: a user sets them all before the next try.
func TestRunReportsEveryMissingKeyAtOnce(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	cfg := `[database]
path = "keys.db"

[[prompt_sets]]
name = "mine"
file = "prompts.jsonl"

[[models]]
name = "first"
provider = "openai"
model = "gpt-test"
base_url = "http://127.0.0.1:1/v1"
api_key_env = "FIRST_KEY"

[[models]]
name = "second"
provider = "anthropic"
model = "claude-test"
api_key_env = "SECOND_KEY"

[[models]]
name = "local"
provider = "sim"
`
	for name, body := range map[string]string{"prompts.jsonl": "{\"id\": \"q1\", \"prompt\": \"One?\"}\n", "ringside.toml": cfg} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"run"}, {"serve", "--addr", "127.0.0.1:0"}} {
		cmd := args[0]
		tm := newTestMain()
		code := tm.run(t, append(args, "--config", filepath.Join(dir, "ringside.toml"))...)
		if code != exitUsage {
			t.Fatalf("%s exited %d, want %d\nstderr:\n%s", cmd, code, exitUsage, tm.stderr)
		}
		stderr := tm.stderr.String()
		for _, want := range []string{"2 API keys are not set", "FIRST_KEY", "SECOND_KEY", "ringside.toml:13: models[0].api_key_env", "ringside.toml:19: models[1].api_key_env"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("%s: stderr does not say %q:\n%s", cmd, want, stderr)
			}
		}
	}
}
