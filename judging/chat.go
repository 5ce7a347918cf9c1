package judging

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/arena"
	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/store"
)

// errChat is a source's answer when the next battle is a chat battle: no
// battle exists until the judge writes the question.
var errChat = errors.New("judging: chat battle; ask the judge")

// chatSource deals chat battles, by asking the judge for a question; with
// fewer than two candidates to answer it, it has nothing to deal, and the
// judge is not asked a question no pair could answer.
type chatSource struct{ candidates int }

func (c chatSource) deal(context.Context, string) (*deal, error) {
	if c.candidates < 2 {
		return nil, ringside.Errorf(ringside.ENOTFOUND, "chat judging needs at least two candidate models")
	}
	return nil, errChat
}

// chatCandidates are the models of the candidate pool (config.JudgingPool)
// that can be streamed: those a chat battle is drawn from.
func chatCandidates(cfg *config.Config, streamers map[string]ringside.Streamer) []ringside.Model {
	var out []ringside.Model
	for _, name := range cfg.JudgingPool() {
		if m, ok := cfg.Model(name); ok && streamers[name] != nil {
			out = append(out, m)
		}
	}
	return out
}

// chatRules is what the engine needs for chat battles: the candidates, the
// guardrails and the category rules.
type chatRules struct {
	cfg       config.ChatJudging
	set       string
	models    map[string]ringside.Model
	streamers map[string]ringside.Streamer
	names     []string
	weights   map[string]float64
	sets      []string
	reject    []*regexp.Regexp
	category  []*regexp.Regexp
	rand      *lockedRand
}

func newChatRules(cfg *config.Config, streamers map[string]ringside.Streamer, r *lockedRand) *chatRules {
	c := &chatRules{cfg: cfg.Judging.Chat, set: cfg.Judging.ChatSet, models: map[string]ringside.Model{},
		streamers: streamers, weights: cfg.JudgingWeights(), rand: r}
	for _, m := range chatCandidates(cfg, streamers) {
		c.models[m.Name] = m
		c.names = append(c.names, m.Name)
	}
	for _, ps := range cfg.PromptSets {
		c.sets = append(c.sets, ps.Name)
	}
	// Validated with the config: the expressions compile.
	for _, rj := range c.cfg.Reject {
		c.reject = append(c.reject, regexp.MustCompile(rj.Pattern))
	}
	for _, cat := range c.cfg.Categories {
		re, _ := cat.Regexp()
		c.category = append(c.category, re)
	}
	return c
}

// check applies the guardrails to a question: its length and the reject
// rules, whose reason the judge is told.
func (c *chatRules) check(text string) (string, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return "", ringside.FieldError("text", "empty: write a question")
	}
	if n := len([]rune(text)); n > c.cfg.MaxPromptChars {
		return "", ringside.FieldError("text", "%d characters; at most %d", n, c.cfg.MaxPromptChars)
	}
	for i, re := range c.reject {
		if re.MatchString(text) {
			return "", ringside.FieldError("text", "%s", c.cfg.Reject[i].Reason)
		}
	}
	return text, nil
}

// categorize is the category of the first rule that matches, or "".
func (c *chatRules) categorize(text string) string {
	for i, re := range c.category {
		if re.MatchString(text) {
			return c.cfg.Categories[i].Name
		}
	}
	return ""
}

// harvest is the prompt a judge's question is stored as: its id comes
// from its text, so the same question asked twice is one prompt.
func (c *chatRules) harvest(text string) *ringside.Prompt {
	sum := sha256.Sum256([]byte(strings.ToLower(strings.Join(strings.Fields(text), " "))))
	return &ringside.Prompt{ID: "q-" + hex.EncodeToString(sum[:8]), Set: c.set, Kind: ringside.KindUser,
		Category: c.categorize(text), Messages: []ringside.Message{{Role: "user", Content: text}}}
}

// chatConv is a chat battle in progress: its two candidates, fixed for the
// whole conversation, and each side's own history. The session reads it
// under its lock; the turn's run writes the answers under mu.
type chatConv struct {
	battle    *ringside.Battle
	judgeID   string
	models    [2]ringside.Model
	maxTurns  int
	questions []string

	// turnDone is closed once the current turn's answers are stored.
	turnDone chan struct{}

	mu      sync.Mutex
	answers [][2]string // one per finished turn
}

func (cv *chatConv) turn() int { return len(cv.questions) }

// earlier returns the finished turns before the current one.
func (cv *chatConv) earlier() []ChatExchange {
	cv.mu.Lock()
	defer cv.mu.Unlock()
	out := make([]ChatExchange, 0, len(cv.answers))
	for i, a := range cv.answers {
		if i < cv.turn()-1 {
			out = append(out, ChatExchange{Question: cv.questions[i], A: a[0], B: a[1]})
		}
	}
	return out
}

// history is each side's conversation up to the current question.
func (cv *chatConv) history() [2][]ringside.Message {
	cv.mu.Lock()
	defer cv.mu.Unlock()
	var h [2][]ringside.Message
	for side := range h {
		for i, q := range cv.questions {
			h[side] = append(h[side], ringside.Message{Role: "user", Content: q})
			if i < len(cv.answers) {
				h[side] = append(h[side], ringside.Message{Role: "assistant", Content: cv.answers[i][side]})
			}
		}
	}
	return h
}

// record keeps a finished turn's answers and returns the conversation as
// the battle's extra fields (Chatbot Arena's conversation_a, conversation_b
// and turn).
func (cv *chatConv) record(texts [2]string) json.RawMessage {
	cv.mu.Lock()
	cv.answers = append(cv.answers, texts)
	cv.mu.Unlock()
	h := cv.history()
	b, _ := json.Marshal(map[string]any{"conversation_a": h[0], "conversation_b": h[1], "turn": cv.turn()})
	return b
}

// sideStreamer gives one side its own history: the two sides of a
// follow-up are asked the same question after different answers.
type sideStreamer struct {
	s        ringside.Streamer
	messages []ringside.Message
}

func (s sideStreamer) Stream(ctx context.Context, req ringside.Request, emit func(ringside.Delta)) (ringside.Result, error) {
	req.Messages = s.messages
	return s.s.Stream(ctx, req, emit)
}

// newConv draws the pair of a new conversation.
func (c *chatRules) newConv(b *ringside.Battle, judgeID, question string) (*chatConv, error) {
	if len(c.names) < 2 {
		return nil, ringside.Errorf(ringside.ENOTFOUND, "chat judging needs at least two candidate models")
	}
	var pair arena.Pair
	c.rand.with(func(r *rand.Rand) {
		pair = arena.SamplePairs(r, c.names, c.weights, 1)[0]
		b.Sample = r.IntN(1 << 30)
	})
	b.ModelA, b.ModelB = pair.A, pair.B
	return &chatConv{battle: b, judgeID: judgeID, models: [2]ringside.Model{c.models[pair.A], c.models[pair.B]},
		maxTurns: c.cfg.MaxTurns, questions: []string{question}}, nil
}

// runChatTurn streams the current turn to both sides into f, each with its
// own history, and stores the answers. Like a live battle it runs under the
// engine's context: a judge who leaves does not cut the measurement short.
func (e *Engine) runChatTurn(cv *chatConv, f *feed, done chan struct{}) {
	defer close(done)
	h := cv.history()
	b := cv.battle
	req := ringside.Request{PromptID: b.PromptID, Sample: b.Sample}
	entry := func(side int) arena.Entry {
		m := cv.models[side]
		return arena.Entry{
			Streamer: sideStreamer{e.chat.streamers[m.Name], h[side]}, Params: m.Params,
			OnDelta: func(d ringside.Delta) { f.append(side, d.Text, e.now()) },
			OnDone:  func(o arena.Outcome) { f.finish(side, o.Err != nil, e.now()) },
		}
	}
	oa, ob := arena.RunPair(e.ctx, e.now, req, entry(0), entry(1))
	outcomes := [2]arena.Outcome{oa, ob}
	r := &store.ChatTurnResult{BattleID: b.ID, JudgeID: cv.judgeID, Turn: cv.turn()}
	var texts [2]string
	gens := [2]**ringside.Generation{&r.GenA, &r.GenB}
	for i, o := range outcomes {
		g := liveGeneration(b, cv.models[i], o)
		*gens[i] = g
		texts[i] = o.Result.Text
		if g != nil {
			r.Tokens += g.TokensIn + g.TokensOut
		}
	}
	r.Conversation = cv.record(texts)
	var questions []ringside.Message
	var outputs []string
	for _, q := range cv.questions {
		questions = append(questions, ringside.Message{Role: "user", Content: q})
	}
	for _, a := range cv.answersCopy() {
		outputs = append(outputs, a[0], a[1])
	}
	r.IdentityLeak = ringside.NamesAModel(questions, outputs, cv.models[:])
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.writes.FinishChatTurn(ctx, r); err != nil {
		e.logger.Error("store chat turn", "battle", b.ID, "turn", r.Turn, "err", err)
	}
}

func (cv *chatConv) answersCopy() [][2]string {
	cv.mu.Lock()
	defer cv.mu.Unlock()
	return append([][2]string(nil), cv.answers...)
}
