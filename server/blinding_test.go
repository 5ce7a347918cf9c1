package server_test

import (
	"context"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"net"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gorilla/websocket"
	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/provider"
	"github.com/ringside-eval/ringside/provider/sim"
	"github.com/ringside-eval/ringside/server"
	"github.com/ringside-eval/ringside/server/servertest"
	"github.com/ringside-eval/ringside/store"
)

// blindBattles is how many battles the timing test watches per source.
const blindBattles = 100

// TestTimingDoesNotNameTheModel plays the demo — its four simulated models
// at their real speeds, the default [judging] settings — to a scripted judge
// over the websocket, and tries to name each side's model from what the
// judge can time: when the side's first words came (since the battle frame)
// and how many characters a second it showed. A nearest-centroid guess must
// do no better than chance plus 10 points, and the side that shows first
// must be the faster model about half the time.
//
// It runs in a synctest bubble, over in-memory connections, so the clock is
// virtual: the models' delays, the replays' and the pacing's ticks take no
// real time, and the judge's timings are exact, whatever the machine's load.
func TestTimingDoesNotNameTheModel(t *testing.T) {
	for _, source := range []string{config.SourceLive, config.SourceStored} {
		t.Run(source, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				sides := watchDemo(t, source, blindBattles)
				checkBlind(t, sides)
			})
		})
	}
}

// seenSide is one side of one battle as the judge timed it, with its true
// model and the time to first token the database keeps.
type seenSide struct {
	model      string
	firstWords time.Duration // first delta, since the battle frame
	perSecond  float64       // characters a second after the first delta
	storedTTFT float64       // the generation's TTFT in the database, ms
	firstAt    time.Time
}

// watchDemo serves the demo with judging from source and has one judge
// watch and vote on n battles. It returns both sides of each battle that
// was not void.
func watchDemo(t *testing.T, source string, n int) [][2]seenSide {
	ctx := context.Background()
	db, cfg, ws := serveDemo(t, source)
	j := &judge{t: t, ws: ws}
	if hello := j.read(); hello.Type != "hello" {
		t.Fatalf("first frame %s", hello.raw)
	}
	var (
		seen [][2]seenSide
		ids  []string
	)
	j.send(map[string]string{"type": "next"})
	b := j.until("battle")
	for len(seen) < n {
		sides, next := timeBattle(j, b)
		if next != nil { // void: a model failed, and the next battle came
			b = *next
			continue
		}
		for i := range sides {
			if sides[i].firstWords < cfg.Judging.DisplayDelay {
				t.Fatalf("battle %s: first words after %s, before display_delay", b.BattleID, sides[i].firstWords)
			}
		}
		j.vote(b.BattleID, "tie")
		seen, ids = append(seen, sides), append(ids, b.BattleID)
		j.send(map[string]string{"type": "next"})
		b = j.until("battle")
	}
	// A live battle's generations are stored when both streams end, which
	// may come after the judge voted; the judge leaving does not cut them
	// short. Every model's timeout passing on the virtual clock leaves none
	// running.
	ws.Close()
	time.Sleep(3 * time.Minute)
	for k, id := range ids {
		stored, err := db.Battle(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		for i, g := range []string{stored.GenerationA, stored.GenerationB} {
			gen, err := db.Generation(ctx, g)
			if err != nil {
				t.Fatalf("battle %s side %d: %v", id, i, err)
			}
			seen[k][i].model, seen[k][i].storedTTFT = gen.Model, gen.TTFTMs
		}
	}
	return seen
}

// serveDemo fills a database with the demo and serves it, with the demo's
// models at their real speed (the clock is virtual) and the default
// [judging] settings but for source. It returns a judge's websocket.
func serveDemo(t *testing.T, source string) (*store.DB, *config.Config, *websocket.Conn) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "ringside.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := servertest.Fill(ctx, db, servertest.Options{Humans: 1, HumanVotes: 1}); err != nil {
		t.Fatal(err)
	}
	cfg := config.Defaults()
	cfg.Models = sim.DemoModels()
	cfg.PromptSets = []config.PromptSet{{Name: servertest.PromptSet, File: "unused.jsonl"}}
	cfg.Judging.Source = source
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	streamers := map[string]ringside.Streamer{}
	for _, m := range cfg.Models {
		if streamers[m.Name], err = provider.New(m, provider.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	srv := server.New(db, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)),
		server.WithStreamers(streamers), server.WithRandSource(rand.NewPCG(3, 4)))
	ln := newPipeListener()
	ts := httptest.NewUnstartedServer(srv.Echo)
	ts.Listener = ln
	ts.Start()
	t.Cleanup(func() {
		srv.Close()
		ts.Close()
	})
	inv, err := server.CreateInvite(ctx, db, "timer", 0, ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	dialer := websocket.Dialer{NetDialContext: ln.dial}
	ws, _, err := dialer.Dial("ws://pipe/ws/judge?token="+inv.Token, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return db, cfg, ws
}

// timeBattle times both sides of battle b until voting opens. For a void
// battle it returns the battle dealt after it instead.
func timeBattle(j *judge, b frame) ([2]seenSide, *frame) {
	j.t.Helper()
	start := time.Now()
	var (
		sides           [2]seenSide
		firstLen, total [2]int
		prevTotal       [2]int       // through the last delta but one
		prevAt, lastAt  [2]time.Time // of the last delta but one, the last
		ended           [2]bool
		open            bool
		index           = map[string]int{"a": 0, "b": 1}
	)
	for !(ended[0] && ended[1] && open) {
		// Virtual time: a generous wait costs nothing, and a model busy
		// with its earlier battles' streams (which run to their end) may
		// take a while to start the next one.
		f, err := j.tryRead(2 * time.Minute)
		if err != nil {
			j.t.Fatalf("read: %v (frames so far: %s)", err, j.shortLog())
		}
		if f.BattleID != b.BattleID {
			j.t.Fatalf("frame for another battle: %s", f.raw)
		}
		i := index[f.Side]
		switch f.Type {
		case "delta":
			now := time.Now()
			if total[i] == 0 {
				sides[i].firstWords, sides[i].firstAt, firstLen[i] = now.Sub(start), now, len(f.Text)
			}
			prevTotal[i], prevAt[i], lastAt[i] = total[i], lastAt[i], now
			total[i] += len(f.Text)
		case "end":
			if f.Void {
				next := j.until("battle")
				return sides, &next
			}
			ended[i] = true
		case "open":
			open = true
		}
	}
	for i := range sides {
		// The rate from the first delta to the last but one: the last holds
		// what was left, less than a tick's worth.
		sides[i].perSecond = math.NaN()
		if d := prevAt[i].Sub(sides[i].firstAt); d > 0 {
			sides[i].perSecond = float64(prevTotal[i]-firstLen[i]) / d.Seconds()
		}
	}
	return sides, nil
}

// checkBlind tries to name the models from the judge's timings.
func checkBlind(t *testing.T, battles [][2]seenSide) {
	t.Helper()
	var (
		points [][2]float64
		models []string
		ties   int
		faster float64
	)
	for _, b := range battles {
		for _, s := range b {
			if !math.IsNaN(s.perSecond) {
				points = append(points, [2]float64{s.firstWords.Seconds(), s.perSecond})
				models = append(models, s.model)
			}
		}
		// Which side showed first, against which model is faster to its
		// first token (by the stored, real timings).
		switch a, bb := b[0].firstAt, b[1].firstAt; {
		case a.Equal(bb):
			ties++
			faster += 0.5
		case a.Before(bb) == (b[0].storedTTFT < b[1].storedTTFT):
			faster++
		}
	}
	names := slices.Compact(slices.Sorted(slices.Values(models)))
	chance := 1 / float64(len(names))
	acc := nearestCentroidAccuracy(points, models)
	rate := faster / float64(len(battles))
	t.Logf("%d battles, %d sides timed, %d models: nearest centroid names %.0f%% (chance %.0f%%); the first side to show is the faster model in %.0f%% (%d at the same instant)",
		len(battles), len(points), len(names), 100*acc, 100*chance, 100*rate, ties)
	if len(names) != 4 || len(battles) < 60 || len(points) < 120 {
		t.Fatalf("timed %d sides of %d models", len(points), len(names))
	}
	if acc > chance+0.10 {
		t.Errorf("timing names the model in %.0f%% of sides, chance is %.0f%%", 100*acc, 100*chance)
	}
	if math.Abs(rate-0.5) > 0.15 {
		t.Errorf("the side that shows first is the faster model in %.0f%% of battles, want about half", 100*rate)
	}
	checkLatencyStillMeasured(t, battles)
}

// resolution is the least difference of (first words in seconds,
// characters a second) counted: below it, the spread of a feature is not
// stretched to unit size, lest rounding noise (1e-14 characters a second)
// pass for a signal no judge could see.
var resolution = [2]float64{0.01, 1}

// nearestCentroidAccuracy guesses each point's label as the label whose
// centroid (of the other points, features scaled to unit spread) is
// nearest, and returns the share guessed right.
func nearestCentroidAccuracy(points [][2]float64, labels []string) float64 {
	var scale [2]float64
	for k := range scale {
		var sum, sq float64
		for _, p := range points {
			sum += p[k]
		}
		mean := sum / float64(len(points))
		for _, p := range points {
			sq += (p[k] - mean) * (p[k] - mean)
		}
		scale[k] = max(math.Sqrt(sq/float64(len(points))), resolution[k])
	}
	sums, counts := map[string][2]float64{}, map[string]int{}
	for i, p := range points {
		s := sums[labels[i]]
		sums[labels[i]] = [2]float64{s[0] + p[0]/scale[0], s[1] + p[1]/scale[1]}
		counts[labels[i]]++
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range counts {
			if !yield(n) {
				return
			}
		}
	})
	right := 0
	for i, p := range points {
		best, bestD := "", math.Inf(1)
		for _, n := range names {
			s, c := sums[n], float64(counts[n])
			if n == labels[i] { // leave this point out
				s, c = [2]float64{s[0] - p[0]/scale[0], s[1] - p[1]/scale[1]}, c-1
			}
			if c == 0 {
				continue
			}
			d := math.Hypot(p[0]/scale[0]-s[0]/c, p[1]/scale[1]-s[1]/c)
			if d < bestD {
				best, bestD = n, d
			}
		}
		if best == labels[i] {
			right++
		}
	}
	return float64(right) / float64(len(points))
}

// checkLatencyStillMeasured checks that the database keeps each model's
// own time to first token, whatever the judge was shown: ranked by it, the
// models come in the order of their profiles.
func checkLatencyStillMeasured(t *testing.T, battles [][2]seenSide) {
	t.Helper()
	sum, n := map[string]float64{}, map[string]float64{}
	for _, b := range battles {
		for _, s := range b {
			sum[s.model] += s.storedTTFT
			n[s.model]++
		}
	}
	order := []string{"sim-breeze", "sim-dune", "sim-cascade", "sim-atlas"} // ttft_ms 200, 450, 600, 1200
	for i := 1; i < len(order); i++ {
		lo, hi := sum[order[i-1]]/n[order[i-1]], sum[order[i]]/n[order[i]]
		if !(lo < hi) {
			t.Errorf("stored TTFT: %s %.0f ms, %s %.0f ms; want the profiles' order", order[i-1], lo, order[i], hi)
		}
	}
	if ttft := sum["sim-breeze"] / n["sim-breeze"]; ttft > 400 {
		t.Errorf("sim-breeze's stored TTFT is %.0f ms: the pacing leaked into the measurement", ttft)
	}
}

// pipeListener serves HTTP over in-memory connections, so that a synctest
// bubble's clock can move while the server waits for the judge.
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return pipeAddr{} }

func (l *pipeListener) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, srv := net.Pipe()
	select {
	case l.conns <- srv:
		return client, nil
	case <-l.done:
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }
