package judging_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/judging"
	"github.com/ringside-eval/ringside/store"
)

// These tests drive the engine through a recording connection, without
// HTTP; server/ tests the same rules end to end over the websocket.

// event is one call the engine made on a connection.
type event struct {
	kind     string // hello, battle, delta, end, open, voted, done, error, close
	battleID string
	side     string
	text     string
	void     bool
	code     string
	battle   judging.Battle
	voted    judging.Voted
	done     judging.Done
	ending   judging.Ending
	raw      string // every field, for the blinding check
}

// recorder is a judging.Conn that keeps every call, in order.
type recorder struct {
	t      *testing.T
	events chan event

	mu  sync.Mutex
	log []event
}

func newRecorder(t *testing.T) *recorder {
	return &recorder{t: t, events: make(chan event, 4096)}
}

func (r *recorder) add(e event, payload any) bool {
	e.raw = fmt.Sprintf("%s %+v", e.kind, payload)
	r.mu.Lock()
	r.log = append(r.log, e)
	r.mu.Unlock()
	r.events <- e
	return true
}

func (r *recorder) Hello(h judging.Hello) { r.add(event{kind: "hello"}, h) }
func (r *recorder) Battle(b judging.Battle) {
	r.add(event{kind: "battle", battleID: b.ID, battle: b}, b)
}
func (r *recorder) Delta(id, side, text string) bool {
	return r.add(event{kind: "delta", battleID: id, side: side, text: text}, []string{id, side, text})
}
func (r *recorder) End(id, side string, void bool) bool {
	return r.add(event{kind: "end", battleID: id, side: side, void: void}, []any{id, side, void})
}
func (r *recorder) Open(id string) bool { return r.add(event{kind: "open", battleID: id}, id) }
func (r *recorder) Voted(v judging.Voted) {
	r.add(event{kind: "voted", battleID: v.BattleID, voted: v}, v)
}
func (r *recorder) Done(d judging.Done) { r.add(event{kind: "done", done: d}, d) }
func (r *recorder) Error(code, message, id string) {
	r.add(event{kind: "error", code: code, battleID: id, text: message}, []string{code, message, id})
}
func (r *recorder) Close(why judging.Ending) { r.add(event{kind: "close", ending: why}, why) }
func (r *recorder) Chat(o judging.ChatOffer) { r.add(event{kind: "chat"}, o) }
func (r *recorder) Turn(t judging.ChatTurn) bool {
	return r.add(event{kind: "turn", battleID: t.BattleID}, t)
}
func (r *recorder) Suggestion(text string) { r.add(event{kind: "suggestion"}, text) }

// next returns the next call, failing the test after 5 s.
func (r *recorder) next() event {
	r.t.Helper()
	select {
	case e := <-r.events:
		return e
	case <-time.After(5 * time.Second):
		r.t.Fatalf("no call from the engine; so far:\n%s", r.raw())
		return event{}
	}
}

// until returns the next call of kind, skipping others.
func (r *recorder) until(kind string) event {
	r.t.Helper()
	for {
		if e := r.next(); e.kind == kind {
			return e
		}
	}
}

func (r *recorder) raw() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	for _, e := range r.log {
		b.WriteString(e.raw)
		b.WriteByte('\n')
	}
	return b.String()
}

// follow collects battle id's text until both sides ended and voting
// opened.
func (r *recorder) follow(id string) map[string]string {
	r.t.Helper()
	text := map[string]string{}
	ended := map[string]bool{}
	open := false
	for !(ended["a"] && ended["b"] && open) {
		e := r.next()
		if e.battleID != id {
			r.t.Fatalf("call for another battle while following %s: %s", id, e.raw)
		}
		switch e.kind {
		case "delta":
			text[e.side] += e.text
		case "end":
			if e.void {
				r.t.Fatalf("battle void: %s", e.raw)
			}
			ended[e.side] = true
		case "open":
			open = true
		default:
			r.t.Fatalf("unexpected call while following: %s", e.raw)
		}
	}
	return text
}

// script is a candidate model: it streams its words; with hold, it waits
// after the first until hold is closed; with failAfter > 0, it fails after
// that many words on its first call, with failText.
type script struct {
	text      string
	hold      chan struct{}
	failAfter int
	failText  string

	mu    sync.Mutex
	calls int
}

func (s *script) Stream(ctx context.Context, req ringside.Request, emit func(ringside.Delta)) (ringside.Result, error) {
	s.mu.Lock()
	s.calls++
	first := s.calls == 1
	s.mu.Unlock()
	var out strings.Builder
	for i, w := range strings.SplitAfter(s.text, " ") {
		if first && s.failAfter > 0 && i == s.failAfter {
			return ringside.Result{Text: out.String()}, &ringside.GenerationError{Kind: ringside.ErrKindServer, Err: errors.New(s.failText)}
		}
		if i == 1 && s.hold != nil {
			select {
			case <-s.hold:
			case <-ctx.Done():
				return ringside.Result{Text: out.String()}, ctx.Err()
			}
		}
		out.WriteString(w)
		emit(ringside.Delta{Text: w})
	}
	return ringside.Result{Text: out.String(), TokensIn: 10, TokensOut: 20}, nil
}

var (
	modelKite = ringside.Model{Name: "kite-large", Provider: "openai", ModelID: "kestrel-42", PriceInPerM: 2.5, PriceOutPerM: 7.25}
	modelMoss = ringside.Model{Name: "moss-small", Provider: "anthropic", ModelID: "mantle-8", PriceInPerM: 0.5, PriceOutPerM: 1.5}
)

const (
	kiteText = "Refunds post within five to seven business days. "
	mossText = "Send it back with the label and the refund follows within a week. "
)

type fixture struct {
	t      *testing.T
	db     *store.DB
	cfg    *config.Config
	models map[string]ringside.Streamer
	engine *judging.Engine
}

// newFixture opens a database with two prompts and starts an engine on
// live judging with the two models (plain scripts unless given).
func newFixture(t *testing.T, kite, moss *script) *fixture {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "ringside.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	prompts := []ringside.Prompt{
		{ID: "refund-1", Messages: []ringside.Message{{Role: "user", Content: "How long do refunds take?"}}, Kind: "typical", Category: "support"},
		{ID: "refund-2", Messages: []ringside.Message{{Role: "user", Content: "Can I return a worn jacket?"}}, Kind: "edge", Category: "support"},
	}
	if _, err := db.UpsertPrompts(ctx, "support", prompts); err != nil {
		t.Fatal(err)
	}
	cfg := config.Defaults()
	cfg.Models = []ringside.Model{modelKite, modelMoss}
	cfg.PromptSets = []config.PromptSet{{Name: "support", File: "unused.jsonl"}}
	cfg.Dimensions = []string{"factual_accuracy"}
	// Blind pacing has tests of its own; these want the text at once.
	cfg.Judging.DisplayDelay, cfg.Judging.DisplayRate = 0, 1e6
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	if kite == nil {
		kite = &script{text: kiteText}
	}
	if moss == nil {
		moss = &script{text: mossText}
	}
	f := &fixture{t: t, db: db, cfg: cfg, models: map[string]ringside.Streamer{modelKite.Name: kite, modelMoss.Name: moss}}
	f.engine = f.start()
	return f
}

// start starts an engine on the fixture's database, closed at the end.
func (f *fixture) start() *judging.Engine {
	e := judging.New(f.db, f.cfg, judging.Deps{Streamers: f.models, Rand: rand.NewPCG(1, 2)})
	f.t.Cleanup(e.Close)
	return e
}

func (f *fixture) judge(name string, quota int) *ringside.Judge {
	f.t.Helper()
	j := &ringside.Judge{Kind: ringside.JudgeHuman, Name: name, Quota: quota}
	if err := f.db.CreateJudge(context.Background(), j, ringside.HashToken(ringside.NewToken())); err != nil {
		f.t.Fatal(err)
	}
	return j
}

// attach connects a recorder for judge to e and reads its hello.
func (f *fixture) attach(e *judging.Engine, j *ringside.Judge) (*judging.Attachment, *recorder) {
	f.t.Helper()
	r := newRecorder(f.t)
	a, err := e.Attach(context.Background(), j, false, r)
	if err != nil {
		f.t.Fatal(err)
	}
	if h := r.next(); h.kind != "hello" {
		f.t.Fatalf("first call %s, want hello", h.raw)
	}
	return a, r
}

func TestDealStreamAndVote(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, nil, nil)
	ana := f.judge("ana", 1)
	a, r := f.attach(f.engine, ana)
	a.Next(ctx)
	b := r.until("battle")
	if b.battle.Resumed || len(b.battle.Messages) == 0 || b.battle.Progress != (judging.Progress{Done: 0, Quota: 1}) {
		t.Fatalf("battle %s", b.raw)
	}
	text := r.follow(b.battleID)
	byText := map[string]string{kiteText: modelKite.Name, mossText: modelMoss.Name}
	if byText[text["a"]] == "" || byText[text["b"]] == "" || text["a"] == text["b"] {
		t.Fatalf("streams a=%q b=%q; want the two outputs", text["a"], text["b"])
	}

	a.Vote(ctx, &judging.VoteRequest{BattleID: b.battleID, Winner: "b", Dimensions: map[string]string{"factual_accuracy": "tie"}})
	v := r.until("voted")
	if v.voted.Winner != ringside.WinnerB || v.voted.Duplicate || v.voted.Progress.Done != 1 || v.voted.Reveal == nil {
		t.Fatalf("voted %s", v.raw)
	}
	if v.voted.Reveal.A != byText[text["a"]] || v.voted.Reveal.B != byText[text["b"]] {
		t.Fatalf("reveal %+v does not match the streams", *v.voted.Reveal)
	}
	stored, err := f.db.VoteBy(ctx, b.battleID, ana.ID)
	if err != nil || stored.Winner != ringside.WinnerB || stored.Dimensions["factual_accuracy"] != ringside.WinnerTie {
		t.Fatalf("stored vote %+v, %v", stored, err)
	}

	// Again: the first vote's result, marked duplicate.
	a.Vote(ctx, &judging.VoteRequest{BattleID: b.battleID, Winner: "a"})
	if again := r.until("voted"); !again.voted.Duplicate || again.voted.Winner != ringside.WinnerB {
		t.Fatalf("second vote %s", again.raw)
	}
	// The quota of one is met.
	a.Next(ctx)
	if d := r.until("done"); d.done.Reason != judging.DoneQuota || d.done.Progress.Done != 1 {
		t.Fatalf("after the quota: %s", d.raw)
	}
}

func TestVoteErrors(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, nil, nil)
	a, r := f.attach(f.engine, f.judge("ana", 0))
	bob, rb := f.attach(f.engine, f.judge("bob", 0))
	a.Next(ctx)
	b := r.until("battle")
	r.follow(b.battleID)

	bob.Vote(ctx, &judging.VoteRequest{BattleID: b.battleID, Winner: "a"})
	if e := rb.until("error"); e.code != ringside.EUNAUTHORIZED || e.battleID != b.battleID {
		t.Fatalf("vote on another judge's battle: %s", e.raw)
	}
	for _, bad := range []judging.VoteRequest{
		{BattleID: b.battleID, Winner: "c"},
		{BattleID: b.battleID, Winner: "a", Dimensions: map[string]string{"charm": "a"}},
		{BattleID: b.battleID, Winner: "a", Reason: strings.Repeat("x", f.cfg.Judging.MaxReasonChars+1)},
	} {
		a.Vote(ctx, &bad)
		if e := r.until("error"); e.code != ringside.EINVALID {
			t.Fatalf("vote %+v: %s", bad, e.raw)
		}
	}
}

func TestSkipClosesTheBattleAndDealsAnother(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, nil, nil)
	sam := f.judge("sam", 0)
	a, r := f.attach(f.engine, sam)
	a.Next(ctx)
	first := r.until("battle")
	r.follow(first.battleID)

	a.Skip(ctx, "not-this-one")
	if e := r.until("error"); e.code != ringside.ECONFLICT {
		t.Fatalf("skip of another battle: %s", e.raw)
	}
	a.Skip(ctx, first.battleID)
	second := r.until("battle")
	if second.battleID == first.battleID || second.battle.Resumed {
		t.Fatalf("after skip: %s", second.raw)
	}
	a.Vote(ctx, &judging.VoteRequest{BattleID: first.battleID, Winner: "a"})
	if e := r.until("error"); e.code != ringside.ECONFLICT || e.battleID != first.battleID {
		t.Fatalf("vote on a skipped battle: %s", e.raw)
	}
	d, err := f.db.OpenDeal(ctx, sam.ID)
	if err != nil || d.BattleID != second.battleID || d.State != store.DealOpen {
		t.Fatalf("open deal = %+v, %v", d, err)
	}
}

// TestReconnectResumesTheBattle: a judge whose connection drops in the
// middle of a stream gets the same battle again from the start, with what
// streamed meanwhile.
func TestReconnectResumesTheBattle(t *testing.T) {
	ctx := context.Background()
	hold := make(chan struct{})
	f := newFixture(t, nil, &script{text: mossText, hold: hold})
	lee := f.judge("lee", 0)
	a, r := f.attach(f.engine, lee)
	a.Next(ctx)
	b := r.until("battle")
	r.until("delta")
	a.Detach()
	close(hold) // the held side goes on while nobody watches

	a2, r2 := f.attach(f.engine, lee)
	a.Next(ctx) // the old connection is no longer the judge's: nothing
	a2.Next(ctx)
	again := r2.until("battle")
	if again.battleID != b.battleID || !again.battle.Resumed {
		t.Fatalf("after reconnecting: %s; want battle %s resumed", again.raw, b.battleID)
	}
	text := r2.follow(b.battleID)
	if got := map[string]bool{text["a"]: true, text["b"]: true}; !got[kiteText] || !got[mossText] {
		t.Fatalf("resumed streams %q", text)
	}
	a2.Vote(ctx, &judging.VoteRequest{BattleID: b.battleID, Winner: "tie"})
	r2.until("voted")
}

func TestASecondConnectionReplacesTheFirst(t *testing.T) {
	f := newFixture(t, nil, nil)
	kim := f.judge("kim", 0)
	first, r1 := f.attach(f.engine, kim)
	f.attach(f.engine, kim)
	if c := r1.next(); c.kind != "close" || c.ending != judging.Replaced {
		t.Fatalf("first connection got %s", c.raw)
	}
	first.Next(context.Background())
	first.Finish(context.Background())
	select {
	case e := <-r1.events:
		t.Fatalf("a replaced connection was answered: %s", e.raw)
	default:
	}
}

// TestOpenBattleResumesAfterARestart: a new engine on the same database
// resumes the battle the judge was shown, from the stored outputs.
func TestOpenBattleResumesAfterARestart(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, nil, nil)
	ida := f.judge("ida", 0)
	a, r := f.attach(f.engine, ida)
	a.Next(ctx)
	b := r.until("battle")
	text := r.follow(b.battleID)
	f.engine.Close() // waits for the outputs to be stored
	if c := r.until("close"); c.ending != judging.ShuttingDown {
		t.Fatalf("on close: %s", c.raw)
	}

	a2, r2 := f.attach(f.start(), ida)
	a2.Next(ctx)
	again := r2.until("battle")
	if again.battleID != b.battleID || !again.battle.Resumed {
		t.Fatalf("after the restart: %s; want battle %s resumed", again.raw, b.battleID)
	}
	if got := r2.follow(b.battleID); got["a"] != text["a"] || got["b"] != text["b"] {
		t.Fatalf("resumed %q, want %q", got, text)
	}
}

// TestNothingBeforeTheVoteNamesAModel reads every call the engine makes
// before the vote, over a void battle (whose provider error names the
// model) and a whole one, and looks for anything that identifies a model.
func TestNothingBeforeTheVoteNamesAModel(t *testing.T) {
	ctx := context.Background()
	failing := &script{text: mossText, failAfter: 2, failText: "moss-small at mantle-8: anthropic overloaded, retry later"}
	f := newFixture(t, nil, failing)
	a, r := f.attach(f.engine, f.judge("blind", 0))
	a.Next(ctx)
	for e := r.next(); !(e.kind == "end" && e.void); e = r.next() {
	}
	// The failure dealt the next battle, where the model works.
	b := r.until("battle")
	r.follow(b.battleID)
	before := r.raw()
	a.Vote(ctx, &judging.VoteRequest{BattleID: b.battleID, Winner: "tie"})
	if v := r.until("voted"); v.voted.Reveal == nil {
		t.Fatalf("no reveal after the vote: %s", v.raw)
	}
	low := strings.ToLower(before)
	for _, word := range []string{
		modelKite.Name, modelKite.ModelID, "kite", "kestrel", modelMoss.Name, modelMoss.ModelID, "moss", "mantle",
		"openai", "anthropic", "2.5", "7.25", "overloaded", "retry", "server_error",
	} {
		if strings.Contains(low, strings.ToLower(word)) {
			t.Errorf("a call before the vote contains %q:\n%s", word, before)
		}
	}
}
