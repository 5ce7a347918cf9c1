package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/server"
	"github.com/ringside-eval/ringside/store"
)

// fakeModel is a scripted candidate: it streams its chunks with a pause
// before each, and fails after failAfter chunks when that is not negative,
// on its first failCalls calls (every call when failCalls is 0).
type fakeModel struct {
	chunks    []string
	pause     time.Duration
	failAfter int
	failCalls int
	failText  string
	// hold, when set, blocks the stream after the first chunk until closed.
	hold chan struct{}
	// bigCalls is how many first calls stream bigChunks instead.
	bigCalls  int
	bigChunks []string
	// called, when set, is sent to (without blocking) at each call.
	called chan struct{}

	mu    sync.Mutex
	calls int
}

func (f *fakeModel) Stream(ctx context.Context, req ringside.Request, emit func(ringside.Delta)) (ringside.Result, error) {
	f.mu.Lock()
	f.calls++
	if f.called != nil {
		select {
		case f.called <- struct{}{}:
		default:
		}
	}
	failAfter := f.failAfter
	if f.failCalls > 0 && f.calls > f.failCalls {
		failAfter = -1
	}
	chunks := f.chunks
	if f.calls <= f.bigCalls {
		chunks = f.bigChunks
	}
	f.mu.Unlock()
	start := time.Now()
	var text strings.Builder
	for i, c := range chunks {
		if failAfter >= 0 && i == failAfter {
			return ringside.Result{Text: text.String()}, &ringside.GenerationError{Kind: ringside.ErrKindServer, Err: errors.New(f.failText)}
		}
		if i == 1 && f.hold != nil {
			select {
			case <-f.hold:
			case <-ctx.Done():
				return ringside.Result{Text: text.String()}, ctx.Err()
			}
		}
		select {
		case <-time.After(f.pause):
		case <-ctx.Done():
			return ringside.Result{Text: text.String()}, ctx.Err()
		}
		text.WriteString(c)
		emit(ringside.Delta{Text: c, Elapsed: time.Since(start)})
	}
	if failAfter >= len(chunks) {
		return ringside.Result{Text: text.String()}, &ringside.GenerationError{Kind: ringside.ErrKindServer, Err: errors.New(f.failText)}
	}
	return ringside.Result{Text: text.String(), TokensIn: 12, TokensOut: len(chunks), TTFT: f.pause, Total: time.Since(start)}, nil
}

func newFake(text string, pause time.Duration) *fakeModel {
	return &fakeModel{chunks: strings.SplitAfter(text, " "), pause: pause, failAfter: -1}
}

// Two models whose names, ids, providers and prices are distinctive, so a
// test can look for them in every frame.
var (
	modelZephyr = ringside.Model{Name: "zephyr-alpha", Provider: "openai", ModelID: "zeta-9000-preview",
		BaseURL: "http://zephyr.invalid/v1", PriceInPerM: 1.25, PriceOutPerM: 9.75}
	modelQuill = ringside.Model{Name: "quill-beta", Provider: "anthropic", ModelID: "quasar-77",
		PriceInPerM: 3.5, PriceOutPerM: 17.5}
)

const (
	zephyrText = "Refunds post within five to seven business days after the return is scanned. "
	quillText  = "Send the jacket back with the prepaid label and the refund follows within a week. "
)

type harness struct {
	t     *testing.T
	db    *store.DB
	srv   *server.Server
	ts    *httptest.Server
	cfg   *config.Config
	fakes map[string]*fakeModel
	// socketEnded is signalled after a judge's websocket ends.
	socketEnded chan struct{}
	// logs is what the server logged.
	logs *syncBuffer
}

// syncBuffer is a bytes.Buffer that the server's goroutines may log to.
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

// newHarness starts a judging server on loopback with the two fake models
// and two prompts; tune adjusts the config first.
func newHarness(t *testing.T, tune func(*config.Config), fakes map[string]*fakeModel) *harness {
	t.Helper()
	if fakes == nil {
		fakes = map[string]*fakeModel{
			modelZephyr.Name: newFake(zephyrText, time.Millisecond),
			modelQuill.Name:  newFake(quillText, time.Millisecond),
		}
	}
	streamers := map[string]ringside.Streamer{}
	for name, f := range fakes {
		streamers[name] = f
	}
	h := newHarnessStreamers(t, tune, streamers)
	h.fakes = fakes
	return h
}

// newHarnessStreamers is newHarness with any streamers for the models.
func newHarnessStreamers(t *testing.T, tune func(*config.Config), streamers map[string]ringside.Streamer) *harness {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "ringside.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	prompts := []ringside.Prompt{
		{ID: "refund-1", Messages: []ringside.Message{{Role: "system", Content: "You are Sam, a support agent."}, {Role: "user", Content: "How long do refunds take?"}}, Kind: "typical", Category: "support"},
		{ID: "refund-2", Messages: []ringside.Message{{Role: "user", Content: "Can I return a worn jacket?"}}, Kind: "edge", Category: "support"},
	}
	if _, err := db.UpsertPrompts(ctx, "support", prompts); err != nil {
		t.Fatal(err)
	}
	cfg := config.Defaults()
	cfg.Models = []ringside.Model{modelZephyr, modelQuill}
	cfg.PromptSets = []config.PromptSet{{Name: "support", File: "unused.jsonl"}}
	cfg.Dimensions = []string{"instruction_following", "factual_accuracy"}
	// Blind pacing has tests of its own (pacing_test.go); these want the
	// text at once.
	cfg.Judging.DisplayDelay, cfg.Judging.DisplayRate = 0, 1e6
	if tune != nil {
		tune(cfg)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, nil))
	srv := server.New(db, cfg, logger, server.WithStreamers(streamers), server.WithRandSource(rand.NewPCG(1, 2)))
	ended := make(chan struct{}, 1)
	server.OnJudgeSocketEnd(srv, func() {
		select {
		case ended <- struct{}{}:
		default:
		}
	})
	ts := httptest.NewServer(srv.Echo)
	t.Cleanup(func() {
		srv.Close()
		ts.Close()
	})
	return &harness{t: t, db: db, srv: srv, ts: ts, cfg: cfg, socketEnded: ended, logs: logs}
}

// waitNoSockets waits until no judge's websocket is open, failing the test
// after 10 s.
func (h *harness) waitNoSockets(why string) {
	h.t.Helper()
	timeout := time.After(10 * time.Second)
	for server.JudgeSockets(h.srv) != 0 {
		select {
		case <-h.socketEnded:
		case <-timeout:
			h.t.Fatal(why)
		}
	}
}

// invite creates a judge and returns its token.
func (h *harness) invite(name string, quota int) string {
	h.t.Helper()
	inv, err := server.CreateInvite(context.Background(), h.db, name, quota, h.ts.URL)
	if err != nil {
		h.t.Fatal(err)
	}
	return inv.Token
}

func (h *harness) wsURL() string { return "ws" + strings.TrimPrefix(h.ts.URL, "http") + "/ws/judge" }

// judge is a test client of the websocket that keeps every frame it read.
type judge struct {
	t      *testing.T
	ws     *websocket.Conn
	frames []frame
}

// frame is one decoded server frame with its raw bytes.
type frame struct {
	Type       string                     `json:"type"`
	BattleID   string                     `json:"battle_id"`
	Side       string                     `json:"side"`
	Text       string                     `json:"text"`
	Error      string                     `json:"error"`
	Void       bool                       `json:"void"`
	Code       string                     `json:"code"`
	Message    string                     `json:"message"`
	Winner     string                     `json:"winner"`
	Duplicate  bool                       `json:"duplicate"`
	Resumed    bool                       `json:"resumed"`
	Reason     string                     `json:"reason"`
	Reveal     *struct{ A, B string }     `json:"reveal"`
	Reveals    []map[string]string        `json:"reveals"`
	Progress   struct{ Done, Quota int }  `json:"progress"`
	Messages   []ringside.Message         `json:"messages"`
	Dimensions json.RawMessage            `json:"dimensions"`
	Anonymous  bool                       `json:"anonymous"`
	Extra      map[string]json.RawMessage `json:"-"`
	raw        string
}

func (h *harness) dial(token string) *judge {
	h.t.Helper()
	j, resp, err := h.tryDial(token, nil)
	if err != nil {
		h.t.Fatalf("dial: %v (%v)", err, resp)
	}
	if hello := j.read(); hello.Type != "hello" {
		h.t.Fatalf("first frame %s, want hello", hello.raw)
	}
	return j
}

func (h *harness) tryDial(token string, header http.Header) (*judge, *http.Response, error) {
	u := h.wsURL()
	if token != "" {
		u += "?token=" + token
	}
	ws, resp, err := websocket.DefaultDialer.Dial(u, header)
	if err != nil {
		return nil, resp, err
	}
	j := &judge{t: h.t, ws: ws}
	h.t.Cleanup(func() { ws.Close() })
	return j, resp, nil
}

func (j *judge) send(v any) {
	j.t.Helper()
	if err := j.ws.WriteJSON(v); err != nil {
		j.t.Fatalf("send: %v", err)
	}
}

func (j *judge) sendRaw(mt int, data []byte) {
	j.t.Helper()
	if err := j.ws.WriteMessage(mt, data); err != nil {
		j.t.Fatalf("send: %v", err)
	}
}

// read returns the next frame, failing the test after 5 s.
func (j *judge) read() frame {
	j.t.Helper()
	f, err := j.tryRead(5 * time.Second)
	if err != nil {
		j.t.Fatalf("read: %v (frames so far: %s)", err, j.shortLog())
	}
	return f
}

func (j *judge) tryRead(wait time.Duration) (frame, error) {
	j.ws.SetReadDeadline(time.Now().Add(wait))
	_, data, err := j.ws.ReadMessage()
	if err != nil {
		return frame{}, err
	}
	var f frame
	if err := json.Unmarshal(data, &f); err != nil {
		j.t.Fatalf("frame %q: %v", data, err)
	}
	f.raw = string(data)
	j.frames = append(j.frames, f)
	return f, nil
}

// until reads frames up to and including the first of type typ.
func (j *judge) until(typ string) frame {
	j.t.Helper()
	for {
		if f := j.read(); f.Type == typ {
			return f
		}
	}
}

func (j *judge) rawLog() string {
	var b strings.Builder
	for _, f := range j.frames {
		b.WriteString(f.raw)
		b.WriteByte('\n')
	}
	return b.String()
}

// shortLog is rawLog with each frame cut to 300 bytes, for failure messages.
func (j *judge) shortLog() string {
	var b strings.Builder
	for _, f := range j.frames {
		raw := f.raw
		if len(raw) > 300 {
			raw = raw[:300] + "..."
		}
		b.WriteString(raw)
		b.WriteByte('\n')
	}
	return b.String()
}

// stored waits for a live battle's generations to be stored (they are
// written once both streams end, beside the judge's view) and returns it.
func (h *harness) stored(id string) *ringside.Battle {
	h.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, err := h.db.Battle(context.Background(), id)
		if err != nil {
			h.t.Fatal(err)
		}
		if b.GenerationA != "" && b.GenerationB != "" {
			return b
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("battle %s: generations never stored", id)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// watched is one battle as the judge saw it.
type watched struct {
	id    string
	text  map[string]string
	ended map[string]bool
	open  bool
}

// watch sends next and reads the battle until voting opens and both sides
// ended.
func (j *judge) watch() watched {
	j.t.Helper()
	j.send(map[string]string{"type": "next"})
	b := j.until("battle")
	return j.follow(b.BattleID)
}

// follow reads the frames of battle id until both sides ended and voting
// opened.
func (j *judge) follow(id string) watched {
	j.t.Helper()
	w := watched{id: id, text: map[string]string{}, ended: map[string]bool{}}
	for !(w.ended["a"] && w.ended["b"] && w.open) {
		f := j.read()
		if f.BattleID != id {
			j.t.Fatalf("frame for another battle while following %s: %s", id, f.raw)
		}
		switch f.Type {
		case "delta":
			if w.ended[f.Side] {
				j.t.Fatalf("delta after end: %s", f.raw)
			}
			w.text[f.Side] += f.Text
		case "end":
			if f.Void {
				j.t.Fatalf("battle void: %s", f.raw)
			}
			w.ended[f.Side] = true
		case "open":
			w.open = true
		default:
			j.t.Fatalf("unexpected frame while following: %s", f.raw)
		}
	}
	return w
}

func (j *judge) vote(id, winner string) frame {
	j.t.Helper()
	j.send(map[string]any{"type": "vote", "battle_id": id, "winner": winner})
	return j.until("voted")
}

// closeCode reads until the connection ends and returns its close code.
func (j *judge) closeCode() int {
	j.t.Helper()
	for {
		_, err := j.tryRead(5 * time.Second)
		var ce *websocket.CloseError
		if errors.As(err, &ce) {
			return ce.Code
		}
		if err != nil {
			return -1
		}
	}
}
