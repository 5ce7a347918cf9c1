package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// BenchmarkJudgingLoad drives a server process with many simulated judges
// on loopback, each connected over its own websocket, dealt live battles
// between the demo's simulated models (answering after 2 to 11 ms), and
// voting as soon as voting opens. b.N is the number of votes. It reports
// votes per second, the time from sending a vote to reading its `voted`
// acknowledgement (p50, p99), and the server's memory per idle connection.
//
// It loads the server two ways. rate=max: every judge votes again as soon
// as it can, so the server runs flat out; this is its ceiling in votes/s,
// and the latency of a saturated server, where every request queues. rate=N:
// the judges together offer N votes a second, each on a steady beat of its
// own (a vote every judges/N seconds, staggered), which is the latency a
// server sees at that load. RINGSIDE_BENCH_RATES replaces the default
// "max,2000" with other comma-separated rates.
//
// docs/performance.md has the command and the figures; run it with
// -benchtime=Nx, since every round starts a server and its judges anew.
// RINGSIDE_BENCH_JUDGES sets the number of judges (default 1000).
// RINGSIDE_BENCH_SOURCE=stored deals stored battles instead (100,000 of
// them by default, RINGSIDE_BENCH_BATTLES, between eight models, played
// instantly), and RINGSIDE_BENCH_PAIRING chooses judging.pairing
// (default adaptive).
func BenchmarkJudgingLoad(b *testing.B) {
	judges := 1000
	if n, err := strconv.Atoi(os.Getenv("RINGSIDE_BENCH_JUDGES")); err == nil && n > 0 {
		judges = n
	}
	rates := "max,2000"
	if r := os.Getenv("RINGSIDE_BENCH_RATES"); r != "" {
		rates = r
	}
	for _, r := range strings.Split(rates, ",") {
		rate, err := strconv.ParseFloat(r, 64)
		if r != "max" && (err != nil || rate <= 0) {
			b.Fatalf("RINGSIDE_BENCH_RATES: %q is neither max nor a number of votes a second", r)
		}
		b.Run("rate="+r, func(b *testing.B) { judgingLoad(b, judges, rate) })
	}
}

// judgingLoad is one run of BenchmarkJudgingLoad; rate 0 is unpaced.
func judgingLoad(b *testing.B, judges int, rate float64) {
	dbPath, tokens := prepareDB(b, judges)
	if os.Getenv("RINGSIDE_BENCH_SOURCE") == "stored" {
		battles := 100_000
		if n, err := strconv.Atoi(os.Getenv("RINGSIDE_BENCH_BATTLES")); err == nil && n > 0 {
			battles = n
		}
		fillStoredBattles(b, dbPath, battles)
		pairing := os.Getenv("RINGSIDE_BENCH_PAIRING")
		if pairing == "" {
			pairing = "adaptive"
		}
		b.Setenv(envServeJudging, "stored,"+pairing)
	}
	srv := startChild(b, dbPath, "sim")
	defer srv.stop(b)

	memBefore, rssBefore := childMem(b, srv), srv.rss(b)
	conns := make([]*websocket.Conn, judges)
	for i, token := range tokens {
		ws, _, err := websocket.DefaultDialer.Dial(srv.wsURL(token), nil)
		if err != nil {
			b.Fatalf("judge %d: %v", i, err)
		}
		if _, ok := readUntil(ws, "hello"); !ok {
			b.Fatalf("judge %d: no hello", i)
		}
		conns[i] = ws
	}
	memAfter, rssAfter := childMem(b, srv), srv.rss(b)

	var (
		remaining atomic.Int64
		mu        sync.Mutex
		latencies = make([]time.Duration, 0, b.N)
		failures  atomic.Int64
		failed    []string // what each failing judge last received, or why not
		frames    atomic.Int64
		wg        sync.WaitGroup
	)
	remaining.Store(int64(b.N))
	if out := os.Getenv("RINGSIDE_BENCH_PROFILE"); out != "" {
		// A CPU profile of the server while the judges vote.
		go func() {
			resp, err := http.Get(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=5", srv.addr))
			if err != nil {
				return
			}
			defer resp.Body.Close()
			f, err := os.Create(out)
			if err == nil {
				io.Copy(f, resp.Body)
				f.Close()
			}
		}()
	}
	b.ResetTimer()
	start := time.Now()
	for i, ws := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer ws.Close()
			winners := []string{"a", "b", "tie", "bothbad"}
			mine := make([]time.Duration, 0, 64)
			defer func() {
				mu.Lock()
				latencies = append(latencies, mine...)
				mu.Unlock()
			}()
			// A paced judge votes on its own beat, staggered across judges.
			var beat time.Duration
			if rate > 0 {
				beat = time.Duration(float64(judges) / rate * float64(time.Second))
			}
			due := start.Add(time.Duration(i) * beat / time.Duration(judges))
			var last []byte
			fail := func(step string, err error) {
				failures.Add(1)
				mu.Lock()
				failed = append(failed, fmt.Sprintf("judge %d after %d votes, %s: %v; last frame %.300s", i, len(mine), step, err, last))
				mu.Unlock()
			}
			for k := i; remaining.Add(-1) >= 0; k++ {
				if beat > 0 {
					time.Sleep(time.Until(due))
					due = due.Add(beat)
				}
				if err := ws.WriteJSON(map[string]string{"type": "next"}); err != nil {
					fail("sending next", err)
					return
				}
				id, err := readCounting(ws, "open", &frames, &last)
				if err != nil {
					fail("waiting for open", err)
					return
				}
				sent := time.Now()
				if err := ws.WriteJSON(map[string]string{"type": "vote", "battle_id": id, "winner": winners[k%4]}); err != nil {
					fail("sending vote", err)
					return
				}
				if _, err := readCounting(ws, "voted", &frames, &last); err != nil {
					fail("waiting for voted", err)
					return
				}
				mine = append(mine, time.Since(sent))
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if f := failures.Load(); f > 0 {
		b.Fatalf("%d judges failed:\n%s\nserver errors: %s", f, strings.Join(failed, "\n"), srv.errs)
	}
	slices.Sort(latencies)
	q := func(p float64) float64 {
		return float64(latencies[int(p*float64(len(latencies)-1))]) / float64(time.Millisecond)
	}
	b.ReportMetric(float64(len(latencies))/elapsed.Seconds(), "votes/s")
	b.ReportMetric(q(0.50), "p50-ack-ms")
	b.ReportMetric(q(0.99), "p99-ack-ms")
	b.ReportMetric(float64(rssAfter-rssBefore)/float64(judges)/1024, "rss-KiB/conn")
	b.ReportMetric(float64(memAfter-memBefore)/float64(judges)/1024, "heap+stack-KiB/conn")
	b.ReportMetric(float64(frames.Load())/float64(len(latencies)), "frames/vote")
	b.ReportMetric(0, "ns/op") // wall time per vote is votes/s's inverse; hide the default
	b.Logf("%d judges, %d votes in %s", judges, len(latencies), elapsed.Round(time.Millisecond))
}

// childMem is the child server's Go heap and stacks in use, after a GC.
func childMem(b *testing.B, c *child) int64 {
	b.Helper()
	resp, err := http.Get(fmt.Sprintf("http://%s/debug/mem", c.addr))
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]uint64
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		b.Fatal(err)
	}
	return int64(m["heap_inuse"] + m["stack_inuse"])
}

// readCounting reads frames until one of type typ, counting them, and
// returns its battle id; last keeps the last frame read, for the report of
// a judge that fails. It reads the type without decoding the frame: the
// server writes "type" first and "battle_id" second, and a cheap judge
// leaves more of the shared machine to the server. An error or done frame
// ends the wait at once: nothing else will come.
func readCounting(ws *websocket.Conn, typ string, n *atomic.Int64, last *[]byte) (string, error) {
	want := []byte(`{"type":"` + typ + `"`)
	for {
		ws.SetReadDeadline(time.Now().Add(30 * time.Second))
		_, data, err := ws.ReadMessage()
		if err != nil {
			return "", err
		}
		n.Add(1)
		*last = data
		if bytes.HasPrefix(data, []byte(`{"type":"error"`)) || bytes.HasPrefix(data, []byte(`{"type":"done"`)) {
			return "", fmt.Errorf("want %s, got %s", typ, data)
		}
		if !bytes.HasPrefix(data, want) {
			continue
		}
		_, rest, ok := bytes.Cut(data, []byte(`"battle_id":"`))
		id, _, ok2 := bytes.Cut(rest, []byte(`"`))
		if !ok || !ok2 {
			return "", nil
		}
		return string(id), nil
	}
}
