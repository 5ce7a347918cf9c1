package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/battlefile"
	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/server"
	"github.com/ringside-eval/ringside/store"
)

// chatModel is a candidate of chat battles: it answers each turn with a
// text of its own, records the history it was sent, can fail on a turn,
// and can hold a turn's stream after its first words until released.
type chatModel struct {
	voice     string
	failTurn  int
	failText  string
	holdTurn  int
	hold      chan struct{}
	mu        sync.Mutex
	histories [][]ringside.Message
}

func (m *chatModel) Stream(ctx context.Context, req ringside.Request, emit func(ringside.Delta)) (ringside.Result, error) {
	turn := 0
	for _, msg := range req.Messages {
		if msg.Role == "user" {
			turn++
		}
	}
	m.mu.Lock()
	m.histories = append(m.histories, append([]ringside.Message(nil), req.Messages...))
	m.mu.Unlock()
	chunks := []string{m.voice + " ", fmt.Sprintf("answers turn %d ", turn), "in full."}
	var text strings.Builder
	for i, c := range chunks {
		if turn == m.failTurn && i == 1 {
			return ringside.Result{Text: text.String()}, &ringside.GenerationError{Kind: ringside.ErrKindServer, Err: errors.New(m.failText)}
		}
		if turn == m.holdTurn && i == 1 && m.hold != nil {
			select {
			case <-m.hold:
			case <-ctx.Done():
				return ringside.Result{Text: text.String()}, ctx.Err()
			}
		}
		text.WriteString(c)
		emit(ringside.Delta{Text: c})
	}
	return ringside.Result{Text: text.String(), TokensIn: 10, TokensOut: 5}, nil
}

func (m *chatModel) sent() [][]ringside.Message {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([][]ringside.Message(nil), m.histories...)
}

// chatFrame reads the fields of chat frames from a raw frame.
type chatFrame struct {
	Type     string `json:"type"`
	Turn     int    `json:"turn"`
	Question string `json:"question"`
	Draft    string `json:"draft"`
	Chat     *struct {
		Turn    int                               `json:"turn"`
		Earlier []struct{ Question, A, B string } `json:"earlier"`
	} `json:"chat"`
}

func decodeChat(t *testing.T, f frame) chatFrame {
	t.Helper()
	var c chatFrame
	if err := json.Unmarshal([]byte(f.raw), &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// forbiddenBeforeVote are what no frame before a vote may hold: the
// models' names, ids, endpoints, providers, prices, and the failure text.
var forbiddenBeforeVote = []string{
	modelZephyr.Name, modelZephyr.ModelID, modelZephyr.BaseURL, "zephyr",
	modelQuill.Name, modelQuill.ModelID, "quill", "quasar",
	"openai", "anthropic", "provider", "model",
	"price", "cost", "token", "ttft", "latency", "1.25", "9.75", "17.5",
	"overloaded", "retry", "server_error",
}

func assertBlind(t *testing.T, log string) {
	t.Helper()
	low := strings.ToLower(log)
	for _, word := range forbiddenBeforeVote {
		if strings.Contains(low, strings.ToLower(word)) {
			t.Errorf("a frame before the vote contains %q:\n%s", word, log)
		}
	}
}

// chatModels builds the harness with two chat candidates.
func chatModels(t *testing.T, tune func(*config.Config), z, q *chatModel) *harness {
	t.Helper()
	h := newHarnessStreamers(t, func(c *config.Config) {
		c.Judging.Source = config.SourceChat
		if tune != nil {
			tune(c)
		}
	}, map[string]ringside.Streamer{modelZephyr.Name: z, modelQuill.Name: q})
	return h
}

// A judge asks, follows up, votes at turn two and sees the reveal; each
// side got its own history; nothing before the vote names a model; the
// conversation is stored turn by turn and exports with every turn.
func TestChatBattleAskFollowUpVote(t *testing.T) {
	z, q := &chatModel{voice: "Kestrel"}, &chatModel{voice: "Osprey"}
	h := chatModels(t, nil, z, q)
	j := h.dial(h.invite("ana", 0))

	j.send(map[string]string{"type": "next"})
	if f := j.read(); f.Type != "chat" {
		t.Fatalf("answer to next = %s, want a chat offer", f.raw)
	}
	j.send(map[string]string{"type": "ask", "text": "How do I reset my router?"})
	b := j.until("battle")
	if c := decodeChat(t, b); c.Chat == nil || c.Chat.Turn != 1 || len(b.Messages) != 1 || b.Messages[0].Content != "How do I reset my router?" {
		t.Fatalf("battle = %s", b.raw)
	}
	w1 := j.follow(b.BattleID)
	// A vote at turn one is possible; the judge follows up instead.
	j.send(map[string]string{"type": "follow_up", "battle_id": b.BattleID, "text": "And if that fails?"})
	turn := j.until("turn")
	if c := decodeChat(t, turn); c.Turn != 2 || c.Question != "And if that fails?" || turn.BattleID != b.BattleID {
		t.Fatalf("turn = %s", turn.raw)
	}
	w2 := j.follow(b.BattleID)
	for side, want := range map[string]string{"a": "turn 2", "b": "turn 2"} {
		if !strings.Contains(w2.text[side], want) || !strings.Contains(w1.text[side], "turn 1") {
			t.Fatalf("side %s: turn 1 %q, turn 2 %q", side, w1.text[side], w2.text[side])
		}
	}
	assertBlind(t, j.rawLog())

	v := j.vote(b.BattleID, "a")
	var voted struct {
		Turn   int `json:"turn"`
		Reveal struct{ A, B string }
	}
	json.Unmarshal([]byte(v.raw), &voted)
	if voted.Turn != 2 || voted.Reveal.A == "" || voted.Reveal.B == "" {
		t.Fatalf("voted = %s, want turn 2 and the reveal", v.raw)
	}

	// Each side was sent its own answers as history.
	for _, m := range []*chatModel{z, q} {
		sent := m.sent()
		if len(sent) != 2 || len(sent[1]) != 3 || sent[1][1].Role != "assistant" ||
			!strings.HasPrefix(sent[1][1].Content, m.voice) || sent[1][2].Content != "And if that fails?" {
			t.Fatalf("%s was sent %+v", m.voice, sent)
		}
	}

	// Stored: both turns, the harvested question, the export with turns.
	ctx := context.Background()
	turns, err := h.db.ChatTurns(ctx, b.BattleID)
	if err != nil || len(turns) != 2 {
		t.Fatalf("turns = %+v, %v", turns, err)
	}
	stored := h.stored(b.BattleID)
	p, err := h.db.Prompt(ctx, "arena", stored.PromptID)
	if err != nil || p.Kind != ringside.KindUser || p.Messages[0].Content != "How do I reset my router?" {
		t.Fatalf("harvested prompt = %+v, %v", p, err)
	}
	var rec *battlefile.Record
	err = h.db.EachExportVote(ctx, "", func(e *store.ExportVote) error {
		rec, err = battlefile.FromExportVote(e)
		return err
	})
	if err != nil || rec == nil {
		t.Fatal(err)
	}
	var convA []ringside.Message
	json.Unmarshal(rec.Extra["conversation_a"], &convA)
	if rec.Turn != 2 || len(convA) != 4 || convA[2].Content != "And if that fails?" || rec.Extra["conversation_b"] == nil {
		t.Fatalf("exported record: turn %d, conversation_a %s", rec.Turn, rec.Extra["conversation_a"])
	}
}

// A judge who reconnects in the middle of the second turn gets the
// conversation back: the first turn in full, the second streaming on.
func TestChatResumesMidConversation(t *testing.T) {
	z, q := &chatModel{voice: "Kestrel", holdTurn: 2, hold: make(chan struct{})}, &chatModel{voice: "Osprey"}
	h := chatModels(t, nil, z, q)
	token := h.invite("bo", 0)
	j := h.dial(token)
	j.send(map[string]string{"type": "next"})
	j.until("chat")
	j.send(map[string]string{"type": "ask", "text": "What is a VLAN?"})
	b := j.until("battle")
	j.follow(b.BattleID)
	j.send(map[string]string{"type": "follow_up", "battle_id": b.BattleID, "text": "Give an example."})
	j.until("turn")
	j.ws.Close()
	h.waitNoSockets("the first connection never ended")

	j2 := h.dial(token)
	j2.send(map[string]string{"type": "next"})
	again := j2.until("battle")
	c := decodeChat(t, again)
	if again.BattleID != b.BattleID || !again.Resumed || c.Chat == nil || c.Chat.Turn != 2 || len(c.Chat.Earlier) != 1 ||
		c.Chat.Earlier[0].Question != "What is a VLAN?" || !strings.Contains(c.Chat.Earlier[0].A+c.Chat.Earlier[0].B, "turn 1") ||
		again.Messages[0].Content != "Give an example." {
		t.Fatalf("resumed battle = %s", again.raw)
	}
	close(z.hold)
	w := j2.follow(b.BattleID)
	if !strings.Contains(w.text["a"]+w.text["b"], "turn 2") {
		t.Fatalf("second turn after resuming: %+v", w.text)
	}
	assertBlind(t, j.rawLog()+j2.rawLog())
	if v := j2.vote(b.BattleID, "tie"); !strings.Contains(v.raw, `"turn":2`) {
		t.Fatalf("voted = %s", v.raw)
	}
}

// A side failing on the second turn voids the conversation with a message
// that names no model, and the judge is offered the question back.
func TestChatFailingSideVoids(t *testing.T) {
	z := &chatModel{voice: "Kestrel"}
	q := &chatModel{voice: "Osprey", failTurn: 2, failText: "quill-beta at quasar-77: anthropic overloaded, retry later"}
	h := chatModels(t, nil, z, q)
	j := h.dial(h.invite("cy", 0))
	j.send(map[string]string{"type": "next"})
	j.until("chat")
	j.send(map[string]string{"type": "ask", "text": "Summarise our refund policy."})
	b := j.until("battle")
	j.follow(b.BattleID)
	j.send(map[string]string{"type": "follow_up", "battle_id": b.BattleID, "text": "Shorter, please."})
	var void frame
	for void.Type == "" {
		if f := j.read(); f.Type == "end" && f.Void {
			void = f
		}
	}
	offer := j.until("chat")
	if c := decodeChat(t, offer); c.Draft != "Shorter, please." {
		t.Fatalf("offer after the void = %s, want the question back", offer.raw)
	}
	assertBlind(t, j.rawLog())
	j.send(map[string]any{"type": "vote", "battle_id": b.BattleID, "winner": "a"})
	if e := j.until("error"); e.Code != ringside.ECONFLICT {
		t.Fatalf("vote on the void conversation: %s", e.raw)
	}
}

// The guardrails: the longest question, the reject rules with their
// reason, the most turns, the day's budget; each refusal keeps the offer.
func TestChatGuardrails(t *testing.T) {
	z, q := &chatModel{voice: "Kestrel"}, &chatModel{voice: "Osprey"}
	h := chatModels(t, func(c *config.Config) {
		c.Judging.Chat.MaxPromptChars = 40
		c.Judging.Chat.MaxTurns = 1
		c.Judging.Chat.TokensPerDay = 30 // one turn: 2 x (10 + 5)
		c.Judging.Chat.Reject = []config.ChatReject{{Pattern: `(?i)password`, Reason: "please do not paste credentials"}}
	}, z, q)
	j := h.dial(h.invite("di", 0))
	j.send(map[string]string{"type": "next"})
	j.until("chat")
	for text, want := range map[string]string{
		strings.Repeat("x", 41):  "at most 40",
		"my Password is hunter2": "please do not paste credentials",
	} {
		j.send(map[string]string{"type": "ask", "text": text})
		if e := j.until("error"); !strings.Contains(e.Message, want) {
			t.Fatalf("%q: %s, want %q", text, e.raw, want)
		}
	}
	j.send(map[string]string{"type": "ask", "text": "Hello there"})
	b := j.until("battle")
	j.follow(b.BattleID)
	j.send(map[string]string{"type": "follow_up", "battle_id": b.BattleID, "text": "More?"})
	if e := j.until("error"); !strings.Contains(e.Message, "1 turns") {
		t.Fatalf("a turn past max_turns: %s", e.raw)
	}
	h.stored(b.BattleID)
	j.vote(b.BattleID, "b")
	j.send(map[string]string{"type": "next"})
	j.until("chat")
	j.send(map[string]string{"type": "ask", "text": "Hello again"})
	if e := j.until("error"); e.Code != "rate_limited" || !strings.Contains(e.Message, "budget") {
		t.Fatalf("past the budget: %s", e.raw)
	}
}

// An identity question is allowed; an answer naming its model marks the
// conversation by the rule every battle follows. The question gets its
// category from the rules and is harvested.
func TestChatIdentityLeakAndCategory(t *testing.T) {
	z, q := &chatModel{voice: "I am " + modelZephyr.Name + "."}, &chatModel{voice: "Osprey"}
	h := chatModels(t, func(c *config.Config) {
		c.Judging.Chat.Categories = []config.ChatCategory{{Name: "identity", Keywords: []string{"who"}}}
	}, z, q)
	j := h.dial(h.invite("eve", 0))
	j.send(map[string]string{"type": "next"})
	j.until("chat")
	j.send(map[string]string{"type": "ask", "text": "Who are you, really?"})
	b := j.until("battle")
	j.follow(b.BattleID)
	stored := h.stored(b.BattleID)
	if !stored.IdentityLeak || stored.Category != "identity" || stored.Kind != ringside.KindUser {
		t.Fatalf("battle %+v: want identity_leak, category identity, kind user", stored)
	}
	p, err := h.db.Prompt(context.Background(), "arena", stored.PromptID)
	if err != nil || p.Category != "identity" {
		t.Fatalf("harvested %+v, %v", p, err)
	}
}

// Mixed sources: a deal draws chat or live by weight, and a source with
// nothing to deal gives way to the others.
func TestChatMixedWithOtherSources(t *testing.T) {
	z, q := &chatModel{voice: "Kestrel"}, &chatModel{voice: "Osprey"}
	h := chatModels(t, func(c *config.Config) {
		c.Judging.Sources = map[string]float64{config.SourceLive: 1, config.SourceChat: 1}
	}, z, q)
	j := h.dial(h.invite("fay", 0))
	seen := map[string]int{}
	for i := 0; i < 20 && (seen["chat"] == 0 || seen["battle"] == 0); i++ {
		j.send(map[string]string{"type": "next"})
		f := j.read()
		seen[f.Type]++
		if f.Type == "chat" {
			j.send(map[string]string{"type": "ask", "text": fmt.Sprintf("Question %d?", i)})
			f = j.until("battle")
		}
		j.follow(f.BattleID)
		j.vote(f.BattleID, "tie")
	}
	if seen["chat"] == 0 || seen["battle"] == 0 {
		t.Fatalf("deals seen: %v, want both chat and live", seen)
	}

	h2 := chatModels(t, func(c *config.Config) {
		c.Judging.Sources = map[string]float64{config.SourceStored: 100, config.SourceChat: 1}
	}, z, q)
	j2 := h2.dial(h2.invite("gus", 0))
	j2.send(map[string]string{"type": "next"})
	if f := j2.read(); f.Type != "chat" {
		t.Fatalf("no stored battles: %s, want the chat offer", f.raw)
	}
}

// After a restart, a conversation whose last turn was answered resumes
// from the database with every turn: nothing acknowledged is lost.
func TestChatResumesAfterRestart(t *testing.T) {
	z, q := &chatModel{voice: "Kestrel"}, &chatModel{voice: "Osprey"}
	h := chatModels(t, nil, z, q)
	token := h.invite("hal", 0)
	j := h.dial(token)
	j.send(map[string]string{"type": "next"})
	j.until("chat")
	j.send(map[string]string{"type": "ask", "text": "What is BGP?"})
	b := j.until("battle")
	j.follow(b.BattleID)
	j.send(map[string]string{"type": "follow_up", "battle_id": b.BattleID, "text": "Why does it flap?"})
	j.until("turn")
	if turns, err := h.db.ChatTurns(context.Background(), b.BattleID); err != nil || len(turns) != 2 {
		t.Fatalf("the follow-up was acknowledged but not stored: %+v, %v", turns, err)
	}
	j.follow(b.BattleID)
	// The second turn's answers are stored beside the judge's view (as
	// h.stored waits for a live battle's).
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		stored, err := h.db.Battle(context.Background(), b.BattleID)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(stored.Extra), `"turn":2`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the second turn's answers were never stored")
		}
	}
	j.ws.Close()

	h2 := restartHarness(t, h, map[string]ringside.Streamer{modelZephyr.Name: z, modelQuill.Name: q})
	j2 := h2.dial(token)
	j2.send(map[string]string{"type": "next"})
	again := j2.until("battle")
	c := decodeChat(t, again)
	if again.BattleID != b.BattleID || c.Chat == nil || c.Chat.Turn != 2 || len(c.Chat.Earlier) != 1 ||
		c.Chat.Earlier[0].Question != "What is BGP?" || again.Messages[0].Content != "Why does it flap?" {
		t.Fatalf("after the restart: %s", again.raw)
	}
	w := j2.follow(b.BattleID)
	if !strings.Contains(w.text["a"], "turn 2") || !strings.Contains(w.text["b"], "turn 2") {
		t.Fatalf("second turn after the restart: %+v", w.text)
	}
	if v := j2.vote(b.BattleID, "b"); !strings.Contains(v.raw, `"turn":2`) {
		t.Fatalf("voted = %s", v.raw)
	}
}

// restartHarness closes h's server and starts another on the same
// database and config, as a restarted process would.
func restartHarness(t *testing.T, h *harness, streamers map[string]ringside.Streamer) *harness {
	t.Helper()
	h.srv.Close()
	h.ts.Close()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv := server.New(h.db, h.cfg, logger, server.WithStreamers(streamers), server.WithRandSource(rand.NewPCG(3, 4)))
	ts := httptest.NewServer(srv.Echo)
	t.Cleanup(func() {
		srv.Close()
		ts.Close()
	})
	return &harness{t: t, db: h.db, srv: srv, ts: ts, cfg: h.cfg, socketEnded: make(chan struct{}, 1)}
}

// With one candidate able to answer, no judge is asked a question: chat
// alone has nothing to deal, and in a mix the other sources deal.
func TestChatWithoutAPair(t *testing.T) {
	z := &chatModel{voice: "Kestrel"}
	h := newHarnessStreamers(t, func(c *config.Config) { c.Judging.Source = config.SourceChat },
		map[string]ringside.Streamer{modelZephyr.Name: z})
	j := h.dial(h.invite("hal", 0))
	j.send(map[string]string{"type": "next"})
	if f := j.read(); f.Type != "done" {
		t.Fatalf("chat with one candidate: %s, want done", f.raw)
	}
}
