package server_test

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/store"
)

func TestMalformedFramesGetAnErrorAndTheConnectionStaysUsable(t *testing.T) {
	h := newHarness(t, nil, nil)
	j := h.dial(h.invite("fuzz", 0))
	for _, tc := range []struct {
		name string
		mt   int
		data string
		code string
	}{
		{"not json", websocket.TextMessage, "{not json", "invalid"},
		{"json but not an object", websocket.TextMessage, `[1, 2]`, "invalid"},
		{"wrong field type", websocket.TextMessage, `{"type": 5}`, "invalid"},
		{"no type", websocket.TextMessage, `{"battle_id": "x"}`, "invalid"},
		{"unknown type", websocket.TextMessage, `{"type": "dance"}`, "invalid"},
		{"binary frame", websocket.BinaryMessage, `{"type": "next"}`, "invalid"},
		{"vote without battle", websocket.TextMessage, `{"type": "vote", "winner": "a"}`, "invalid"},
		{"skip of nothing", websocket.TextMessage, `{"type": "skip", "battle_id": "x"}`, "conflict"},
		{"oversized", websocket.TextMessage, `{"type": "vote", "reason": "` + strings.Repeat("x", 20<<10) + `"}`, "too_large"},
	} {
		j.sendRaw(tc.mt, []byte(tc.data))
		if f := j.read(); f.Type != "error" || f.Code != tc.code || f.Message == "" {
			t.Fatalf("%s: got %s, want an error %s", tc.name, f.raw, tc.code)
		}
	}
	// Still usable: a whole battle and a vote.
	w := j.watch()
	if v := j.vote(w.id, "a"); v.Winner != "a" {
		t.Fatalf("vote after bad frames: %s", v.raw)
	}
}

// TestFrameAboveTheHardLimitClosesAndTheJudgeResumes: past 16 times
// max_message_bytes, gorilla closes with 1009 without reading the frame;
// the judge reconnects and gets the same battle back.
func TestFrameAboveTheHardLimitClosesAndTheJudgeResumes(t *testing.T) {
	h := newHarness(t, nil, nil)
	token := h.invite("big", 0)
	j := h.dial(token)
	j.send(map[string]string{"type": "next"})
	b := j.until("battle")

	// The server may close before the client has written it all.
	_ = j.ws.WriteMessage(websocket.TextMessage, []byte(strings.Repeat(" ", 17*h.cfg.Judging.MaxMessageBytes)))
	if code := j.closeCode(); code != websocket.CloseMessageTooBig {
		t.Fatalf("close code %d, want %d", code, websocket.CloseMessageTooBig)
	}
	again := h.dial(token)
	again.send(map[string]string{"type": "next"})
	r := again.until("battle")
	if r.BattleID != b.BattleID || !r.Resumed {
		t.Fatalf("after reconnecting: %s; want battle %s resumed", r.raw, b.BattleID)
	}
	w := again.follow(r.BattleID)
	if v := again.vote(w.id, "b"); v.Winner != "b" {
		t.Fatalf("vote after resume: %s", v.raw)
	}
}

func TestDisconnectInTheMiddleOfAStreamResumesTheSameBattle(t *testing.T) {
	hold := make(chan struct{})
	slow := newFake(quillText, time.Millisecond)
	slow.hold = hold
	h := newHarness(t, nil, map[string]*fakeModel{modelZephyr.Name: newFake(zephyrText, time.Millisecond), modelQuill.Name: slow})
	token := h.invite("flaky", 0)
	j := h.dial(token)
	j.send(map[string]string{"type": "next"})
	b := j.until("battle")
	j.until("delta")
	j.ws.Close() // the network drops while one side is held mid-stream

	// The held side goes on while nobody watches.
	close(hold)
	again := h.dial(token)
	again.send(map[string]string{"type": "next"})
	r := again.until("battle")
	if r.BattleID != b.BattleID || !r.Resumed || len(r.Messages) == 0 {
		t.Fatalf("resumed %s; want battle %s", r.raw, b.BattleID)
	}
	w := again.follow(r.BattleID)
	got := map[string]bool{w.text["a"]: true, w.text["b"]: true}
	if !got[zephyrText] || !got[quillText] {
		t.Fatalf("resumed streams a=%q b=%q; want both outputs whole", w.text["a"], w.text["b"])
	}
	if v := again.vote(w.id, "a"); v.Winner != "a" {
		t.Fatalf("vote after resume: %s", v.raw)
	}
}

func TestASecondConnectionReplacesTheFirst(t *testing.T) {
	h := newHarness(t, nil, nil)
	token := h.invite("twotabs", 0)
	first := h.dial(token)
	second := h.dial(token)
	if f := first.read(); f.Type != "error" || f.Code != "replaced" {
		t.Fatalf("first connection got %s", f.raw)
	}
	if code := first.closeCode(); code != 4002 {
		t.Fatalf("first connection closed with %d, want 4002", code)
	}
	w := second.watch()
	second.vote(w.id, "tie")
}

func TestProviderFailureVoidsTheBattleAndDealsTheNext(t *testing.T) {
	failing := newFake(quillText, time.Millisecond)
	failing.failAfter, failing.failCalls, failing.failText = 3, 1, "quasar-77 exploded"
	h := newHarness(t, nil, map[string]*fakeModel{modelZephyr.Name: newFake(zephyrText, time.Millisecond), modelQuill.Name: failing})
	j := h.dial(h.invite("unlucky", 0))
	j.send(map[string]string{"type": "next"})
	b := j.until("battle")
	var end frame
	for end.Type != "end" || !end.Void {
		end = j.read()
	}
	if end.BattleID != b.BattleID || end.Error == "" || strings.Contains(end.raw, "quasar") {
		t.Fatalf("void end: %s", end.raw)
	}
	next := j.until("battle")
	if next.BattleID == b.BattleID {
		t.Fatal("the void battle was dealt again")
	}
	// A vote on the void battle is refused.
	j.send(map[string]any{"type": "vote", "battle_id": b.BattleID, "winner": "a"})
	for {
		f := j.read()
		if f.Type == "error" {
			if f.Code != ringside.ECONFLICT || f.BattleID != b.BattleID {
				t.Fatalf("vote on a void battle: %s", f.raw)
			}
			break
		}
	}
	w := j.follow(next.BattleID)
	j.vote(w.id, "a")

	ctx := context.Background()
	if _, err := h.db.VoteBy(ctx, b.BattleID, judgeID(t, h, "unlucky")); ringside.ErrorCode(err) != ringside.ENOTFOUND {
		t.Fatalf("vote on the void battle stored: %v", err)
	}
	// The failure is measured: the failed side's generation is stored with
	// its kind. Closing the server waits for the streams to be recorded.
	h.srv.Close()
	battle, err := h.db.Battle(ctx, b.BattleID)
	if err != nil {
		t.Fatal(err)
	}
	id := battle.GenerationA
	if battle.ModelB == modelQuill.Name {
		id = battle.GenerationB
	}
	if id == "" {
		t.Fatal("the failed generation was never stored")
	}
	g, err := h.db.Generation(ctx, id)
	if err != nil || g.ErrorKind != ringside.ErrKindServer {
		t.Fatalf("failed generation %+v, %v", g, err)
	}
}

func TestSlowJudgeIsDroppedAndOthersGoOn(t *testing.T) {
	// The first battle, dealt to the slow judge, is 8 MB; a judge who reads
	// nothing (with a small receive buffer, so the kernel cannot hide it)
	// fills the sockets, then the small send buffer, and is dropped. The
	// next battle, for another judge, is short.
	big := strings.Repeat("word ", 50<<10)
	// The short battle comes in one piece a side, so that it fits the
	// small send buffer however the machine schedules the judges.
	fakes := map[string]*fakeModel{
		modelZephyr.Name: {chunks: []string{zephyrText}, failAfter: -1},
		modelQuill.Name:  {chunks: []string{quillText}, failAfter: -1},
	}
	called := make(chan struct{}, 2)
	for _, f := range fakes {
		f.called = called
		f.bigCalls = 1
		for range 16 {
			f.bigChunks = append(f.bigChunks, big)
		}
	}
	h := newHarness(t, func(c *config.Config) {
		c.Judging.SendBuffer = 8
		c.Judging.WriteTimeout = 300 * time.Millisecond
	}, fakes)
	dialer := websocket.Dialer{NetDialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err == nil {
			err = c.(*net.TCPConn).SetReadBuffer(4096)
		}
		return c, err
	}}
	slow, _, err := dialer.Dial(h.wsURL()+"?token="+h.invite("slow", 0), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	if err := slow.WriteJSON(map[string]string{"type": "next"}); err != nil {
		t.Fatal(err)
	}
	// slow never reads. Once its (big) battle is under way (both models
	// called), the server drops it, and nobody waits for it.
	timeout := time.After(10 * time.Second)
	for range 2 {
		select {
		case <-called:
		case <-timeout:
			t.Fatal("the slow judge's battle never started")
		}
	}
	h.waitNoSockets("the slow judge was never dropped")
	fast := h.dial(h.invite("fast", 0))
	w := fast.watch()
	fast.vote(w.id, "a")
}

func TestSilentConnectionIsClosedAfterThePongTimeout(t *testing.T) {
	h := newHarness(t, func(c *config.Config) {
		c.Judging.PingInterval = 20 * time.Millisecond
		c.Judging.PongTimeout = 100 * time.Millisecond
	}, nil)
	// A client that never reads never answers pings.
	h.dial(h.invite("sleepy", 0))
	h.waitNoSockets("a silent connection was kept past the pong timeout")
}

func TestQuotaEndsTheSession(t *testing.T) {
	h := newHarness(t, nil, nil)
	j := h.dial(h.invite("quota", 1))
	w := j.watch()
	if v := j.vote(w.id, "a"); v.Progress.Done != 1 || v.Progress.Quota != 1 {
		t.Fatalf("voted: %s", v.raw)
	}
	j.send(map[string]string{"type": "next"})
	if d := j.until("done"); d.Reason != "quota" {
		t.Fatalf("after the quota: %s", d.raw)
	}
}

func TestSkipClosesTheBattleAndDealsAnother(t *testing.T) {
	h := newHarness(t, nil, nil)
	j := h.dial(h.invite("skipper", 0))
	w := j.watch()
	j.send(map[string]any{"type": "skip", "battle_id": w.id})
	b := j.until("battle")
	if b.BattleID == w.id {
		t.Fatal("skip dealt the same battle")
	}
	j.send(map[string]any{"type": "vote", "battle_id": w.id, "winner": "a"})
	if f := j.until("error"); f.Code != ringside.ECONFLICT {
		t.Fatalf("vote on a skipped battle: %s", f.raw)
	}
	d, err := h.db.OpenDeal(context.Background(), judgeID(t, h, "skipper"))
	if err != nil || d.BattleID != b.BattleID || d.State != store.DealOpen {
		t.Fatalf("open deal = %+v, %v", d, err)
	}
}

func TestVotingOpensEarlyWhenConfigured(t *testing.T) {
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	long := newFake(strings.Repeat("long answer ", 10), 0)
	long.hold = hold
	other := newFake(strings.Repeat("other answer ", 10), 0)
	other.hold = hold
	h := newHarness(t, func(c *config.Config) {
		c.Judging.VoteOpens = config.VoteOpensPartial
		c.Judging.VoteOpenChars = 5
	}, map[string]*fakeModel{modelZephyr.Name: long, modelQuill.Name: other})
	j := h.dial(h.invite("eager", 0))
	j.send(map[string]string{"type": "next"})
	b := j.until("battle")
	// Both sides stop after their first chunk (12 and 13 characters), which
	// is enough under vote_open_chars = 5.
	o := j.until("open")
	if o.BattleID != b.BattleID {
		t.Fatalf("open: %s", o.raw)
	}
	for _, f := range j.frames {
		if f.Type == "end" {
			t.Fatalf("voting opened only after an end: %s", j.rawLog())
		}
	}
	if v := j.vote(b.BattleID, "b"); v.Winner != "b" {
		t.Fatalf("early vote: %s", v.raw)
	}
}

func TestVoteBeforeVotingOpensIsRefused(t *testing.T) {
	hold := make(chan struct{})
	held := newFake(quillText, 0)
	held.hold = hold
	h := newHarness(t, nil, map[string]*fakeModel{modelZephyr.Name: newFake(zephyrText, 0), modelQuill.Name: held})
	j := h.dial(h.invite("hasty", 0))
	j.send(map[string]string{"type": "next"})
	b := j.until("battle")
	j.send(map[string]any{"type": "vote", "battle_id": b.BattleID, "winner": "a"})
	if f := j.until("error"); f.Code != ringside.EINVALID || !strings.Contains(f.Message, "not open") {
		t.Fatalf("early vote: %s", f.raw)
	}
	close(hold)
	j.until("open")
	j.vote(b.BattleID, "a")
}
