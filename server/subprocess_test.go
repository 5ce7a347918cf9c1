package server_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	_ "net/http/pprof" // the child's profiles, for the load benchmark
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/examples"
	"github.com/ringside-eval/ringside/provider"
	"github.com/ringside-eval/ringside/provider/sim"
	"github.com/ringside-eval/ringside/server"
	"github.com/ringside-eval/ringside/store"
)

// The durability test and the load benchmark run the server in a process of
// its own, so it can be killed (SIGKILL) and its memory measured apart from
// the judges'. The test binary is that process: started with
// RINGSIDE_TEST_SERVE_DB set, TestMain serves instead of testing.

const (
	envServeDB    = "RINGSIDE_TEST_SERVE_DB"
	envServeModel = "RINGSIDE_TEST_SERVE_MODELS" // fake (default) or sim
)

func TestMain(m *testing.M) {
	if db := os.Getenv(envServeDB); db != "" {
		if err := serveChild(db, os.Getenv(envServeModel)); err != nil {
			fmt.Fprintln(os.Stderr, "child server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	code := m.Run()
	sharedBrowser.stop()
	sharedDemo.remove()
	os.Exit(code)
}

// serveChild serves judging on a loopback port until SIGTERM, printing
// "listening ADDR" once ready.
func serveChild(dbPath, models string) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	db, err := store.Open(ctx, dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	cfg := config.Defaults()
	cfg.PromptSets = []config.PromptSet{{Name: "examples", File: "builtin"}}
	cfg.Judging.MessagesPerSecond = 1000
	cfg.Judging.MessageBurst = 1000
	applyServeJudging(&cfg.Judging)
	streamers := map[string]ringside.Streamer{}
	if models == "sim" {
		// The demo's simulated models, answering after a short time to first
		// token. Their answers are composed once per prompt before serving:
		// composing costs more CPU than judging does, and it is the models'
		// cost, not the server's.
		prompts, err := db.Prompts(ctx)
		if err != nil {
			return err
		}
		for i, m := range sim.DemoModels() {
			m.Options["speed"] = 1e9
			m.Options["error_rate"] = 0.0
			s, err := provider.New(m, provider.Options{})
			if err != nil {
				return err
			}
			cfg.Models = append(cfg.Models, m)
			streamers[m.Name], err = recordSim(ctx, s, prompts, time.Duration(2+3*i)*time.Millisecond)
			if err != nil {
				return err
			}
		}
	} else {
		cfg.Models = []ringside.Model{modelZephyr, modelQuill}
		streamers[modelZephyr.Name] = newFake(zephyrText, time.Millisecond)
		streamers[modelQuill.Name] = newFake(quillText, time.Millisecond)
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv := server.New(db, cfg, logger, server.WithStreamers(streamers))
	srv.Echo.GET("/debug/mem", func(c echo.Context) error {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return c.JSON(http.StatusOK, map[string]uint64{
			"heap_inuse": ms.HeapInuse, "stack_inuse": ms.StackInuse, "sys": ms.Sys,
			"goroutines": uint64(runtime.NumGoroutine()),
		})
	})
	// Profiles of the server under load: go tool pprof http://ADDR/debug/pprof/profile
	srv.Echo.GET("/debug/pprof/*", echo.WrapHandler(http.DefaultServeMux))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Printf("listening %s\n", ln.Addr())
	return srv.Serve(ctx, ln)
}

// recordedSim replays one recorded answer per prompt after a fixed time to
// first token, in the pieces the model streamed.
type recordedSim struct {
	ttft    time.Duration
	answers map[string]recordedAnswer
}

type recordedAnswer struct {
	pieces []string
	result ringside.Result
}

func recordSim(ctx context.Context, s ringside.Streamer, prompts []ringside.Prompt, ttft time.Duration) (*recordedSim, error) {
	r := &recordedSim{ttft: ttft, answers: map[string]recordedAnswer{}}
	for _, p := range prompts {
		var a recordedAnswer
		res, err := s.Stream(ctx, ringside.Request{PromptID: p.ID, Messages: p.Messages, Reference: p.Reference},
			func(d ringside.Delta) { a.pieces = append(a.pieces, d.Text) })
		if err != nil {
			return nil, err
		}
		a.result = res
		r.answers[p.ID] = a
	}
	return r, nil
}

func (r *recordedSim) Stream(ctx context.Context, req ringside.Request, emit func(ringside.Delta)) (ringside.Result, error) {
	select {
	case <-time.After(r.ttft):
	case <-ctx.Done():
		return ringside.Result{}, &ringside.GenerationError{Kind: ringside.ErrKindCancelled, Err: ctx.Err()}
	}
	a := r.answers[req.PromptID]
	for _, p := range a.pieces {
		emit(ringside.Delta{Text: p, Elapsed: r.ttft})
	}
	res := a.result
	res.TTFT, res.Total = r.ttft, r.ttft
	return res, nil
}

// prepareDB makes a database with the example prompts and n invited judges,
// and returns its path and the judges' tokens.
func prepareDB(tb testing.TB, n int) (string, []string) {
	tb.Helper()
	ctx := context.Background()
	path := filepath.Join(tb.TempDir(), "ringside.db")
	db, err := store.Open(ctx, path)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	prompts, err := ringside.ReadPrompts(bytes.NewReader(examples.Prompts), "examples")
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := db.UpsertPrompts(ctx, "examples", prompts); err != nil {
		tb.Fatal(err)
	}
	tokens := make([]string, n)
	for i := range tokens {
		inv, err := server.CreateInvite(ctx, db, fmt.Sprintf("judge-%04d", i), 0, "http://x")
		if err != nil {
			tb.Fatal(err)
		}
		tokens[i] = inv.Token
	}
	return path, tokens
}

// child is a server process.
type child struct {
	cmd  *exec.Cmd
	addr string
	errs *bytes.Buffer
}

// startChild starts the test binary as a server on dbPath.
func startChild(tb testing.TB, dbPath, models string) *child {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envServeDB+"="+dbPath, envServeModel+"="+models)
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	c := &child{cmd: cmd, errs: &bytes.Buffer{}}
	cmd.Stderr = c.errs
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	lines := bufio.NewScanner(out)
	ready := make(chan string, 1)
	go func() {
		for lines.Scan() {
			if addr, ok := strings.CutPrefix(lines.Text(), "listening "); ok {
				ready <- addr
			}
		}
		io.Copy(io.Discard, out)
	}()
	select {
	case c.addr = <-ready:
	case <-time.After(30 * time.Second):
		tb.Fatalf("child server did not start: %s", c.errs)
	}
	return c
}

func (c *child) wsURL(token string) string { return "ws://" + c.addr + "/ws/judge?token=" + token }

// kill ends the child with SIGKILL: no shutdown code runs.
func (c *child) kill(tb testing.TB) {
	tb.Helper()
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		tb.Fatal(err)
	}
	c.cmd.Wait()
}

// stop ends the child gracefully and checks it exited cleanly.
func (c *child) stop(tb testing.TB) {
	tb.Helper()
	c.cmd.Process.Signal(syscall.SIGTERM)
	if err := c.cmd.Wait(); err != nil {
		tb.Fatalf("child server: %v: %s", err, c.errs)
	}
}

// rss is the child's resident memory in bytes, from /proc.
func (c *child) rss(tb testing.TB) int64 {
	tb.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.cmd.Process.Pid))
	if err != nil {
		tb.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kb int64
			fmt.Sscanf(strings.TrimSpace(v), "%d", &kb)
			return kb << 10
		}
	}
	tb.Fatal("no VmRSS")
	return 0
}
