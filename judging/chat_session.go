package judging

import (
	"context"
	"encoding/json"
	"math/rand/v2"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/store"
)

// chatPending is a chat battle offered to the judge and not asked yet: the
// question of a voided conversation to try again, and the last suggestion
// ("give me one"), which, asked unchanged, is its prompt set's prompt.
type chatPending struct {
	offered    bool
	draft      string
	suggestion *ringside.Prompt
}

// offerChat asks the judge for a question.
func (s *session) offerChat() {
	o := ChatOffer{Dimensions: s.e.dims, Progress: s.progress(), MaxPromptChars: s.e.chat.cfg.MaxPromptChars,
		MaxTurns: s.e.chat.cfg.MaxTurns, Draft: s.chat.draft}
	s.sendFn(func(c Conn) { c.Chat(o) })
}

// showChat sends a chat battle: its earlier turns in full, then the
// current turn streams like any battle.
func (s *session) showChat(d *deal, resumed bool) {
	cv := d.chat
	b := Battle{ID: d.battle.ID, Messages: []ringside.Message{{Role: "user", Content: cv.questions[cv.turn()-1]}},
		Dimensions: s.e.dims, Progress: s.progress(), Resumed: resumed,
		Chat: &ChatView{Turn: cv.turn(), MaxTurns: cv.maxTurns, Earlier: cv.earlier()}}
	s.sendFn(func(c Conn) { c.Battle(b) })
	s.startPump(d)
}

// Ask starts a chat battle with the judge's question.
func (a *Attachment) Ask(ctx context.Context, text string) { a.s.ask(ctx, a.c, text) }

// FollowUp asks both sides of the chat battle being shown a further
// question.
func (a *Attachment) FollowUp(ctx context.Context, battleID, text string) {
	a.s.followUp(ctx, a.c, battleID, text)
}

// Suggest draws a question from the prompt sets for the judge to ask.
func (a *Attachment) Suggest(ctx context.Context) { a.s.suggest(ctx, a.c) }

// withinBudget refuses a question once the judge's conversations used
// judging.chat.tokens_per_day today.
func (s *session) withinBudget(ctx context.Context) error {
	limit := s.e.chat.cfg.TokensPerDay
	if limit == 0 {
		return nil
	}
	used, err := s.e.db.ChatTokens(ctx, s.judge.ID, store.ChatDay(s.e.now()))
	if err != nil {
		return err
	}
	if used >= limit {
		return ringside.Errorf(CodeRateLimited, "today's budget for your questions is spent; come back tomorrow")
	}
	return nil
}

func (s *session) ask(ctx context.Context, c Conn, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != c {
		return
	}
	if !s.chat.offered || s.cur != nil {
		s.sendFn(func(c Conn) { c.Error(ringside.ECONFLICT, "no chat battle is waiting for a question", "") })
		return
	}
	text, err := s.e.chat.check(text)
	if err == nil {
		err = s.withinBudget(ctx)
	}
	if err == nil && s.dealLimiter != nil && !s.dealLimiter.Allow() {
		err = ringside.Errorf(CodeRateLimited, "too many battles in a short time; wait a little")
	}
	if err != nil {
		s.sendError(err, "")
		return
	}
	b := &ringside.Battle{Source: ringside.SourceLive, Tags: []string{"chat"}}
	harvest := s.e.chat.harvest(text)
	if p := s.chat.suggestion; p != nil && p.Messages[len(p.Messages)-1].Content == text {
		// A drawn prompt asked unchanged is its set's prompt, not the
		// judge's question.
		b.PromptID, b.PromptSet, b.Category, b.Kind, harvest = p.ID, p.Set, p.Category, p.Kind, nil
	} else {
		b.PromptID, b.PromptSet, b.Category, b.Kind = harvest.ID, harvest.Set, harvest.Category, harvest.Kind
	}
	cv, err := s.e.chat.newConv(b, s.judge.ID, text)
	if err == nil {
		err = s.e.writes.StartChat(ctx, b, s.judge.ID, harvest, text)
	}
	if err != nil {
		s.sendError(err, "")
		return
	}
	s.chat = chatPending{}
	d := s.startTurn(cv)
	if d == nil {
		return
	}
	s.cur = d
	s.show(d, false)
}

// startTurn starts the conversation's current turn on both sides and
// returns the deal that shows it; nil when the server is shutting down.
func (s *session) startTurn(cv *chatConv) *deal {
	f := newFeed(s.e.displayPace(), s.e.now())
	d := newDeal(cv.battle, nil, f)
	d.chat = cv
	done := make(chan struct{})
	cv.turnDone = done
	if !s.e.background(func() { s.e.runChatTurn(cv, f, done) }) {
		s.sendError(ringside.Errorf(ringside.EUNAUTHORIZED, "server shutting down"), cv.battle.ID)
		return nil
	}
	return d
}

func (s *session) followUp(ctx context.Context, c Conn, battleID, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != c {
		return
	}
	cur := s.cur
	if cur == nil || cur.chat == nil || cur.battle.ID != battleID {
		s.sendError(ringside.Errorf(ringside.ECONFLICT, "that battle is not the chat being shown"), battleID)
		return
	}
	cv := cur.chat
	if !cur.isOpen() {
		s.sendError(ringside.Errorf(ringside.ECONFLICT, "wait for both answers before following up"), battleID)
		return
	}
	if cv.turn() >= cv.maxTurns {
		s.sendError(ringside.Errorf(ringside.ECONFLICT, "this conversation has had its %d turns; vote on it", cv.maxTurns), battleID)
		return
	}
	text, err := s.e.chat.check(text)
	if err == nil {
		err = s.withinBudget(ctx)
	}
	if err == nil {
		// Both answers must be in the history before the next question.
		select {
		case <-cv.turnDone:
		case <-ctx.Done():
			err = ringside.Errorf(ringside.ECONFLICT, "the answers are still being stored; try again")
		}
	}
	if err == nil {
		err = s.e.writes.AskChat(ctx, battleID, cv.turn()+1, text)
	}
	if err != nil {
		s.sendError(err, battleID)
		return
	}
	s.stopPump()
	cv.questions = append(cv.questions, text)
	d := s.startTurn(cv)
	if d == nil {
		return
	}
	s.cur = d
	turn := ChatTurn{BattleID: battleID, Turn: cv.turn(), Question: text}
	s.sendFn(func(c Conn) { c.Turn(turn) })
	s.startPump(d)
}

func (s *session) suggest(ctx context.Context, c Conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != c {
		return
	}
	prompts, err := s.e.db.Prompts(ctx, s.e.chat.sets...)
	if err != nil {
		s.sendError(err, "")
		return
	}
	// A question stands alone: one user message, perhaps after a system one.
	var single []ringside.Prompt
	for _, p := range prompts {
		if n := len(p.Messages); n == 1 || (n == 2 && p.Messages[0].Role == "system") {
			single = append(single, p)
		}
	}
	if len(single) == 0 {
		s.sendError(ringside.Errorf(ringside.ENOTFOUND, "no prompts to suggest"), "")
		return
	}
	var p ringside.Prompt
	s.e.chat.rand.with(func(r *rand.Rand) { p = single[r.IntN(len(single))] })
	s.chat.suggestion = &p
	text := p.Messages[len(p.Messages)-1].Content
	s.sendFn(func(c Conn) { c.Suggestion(text) })
}

// resumeBattle rebuilds an open deal after a restart: a chat battle from
// its stored conversation, any other as Engine.resume does.
func (s *session) resumeBattle(ctx context.Context, b *ringside.Battle) (*deal, error) {
	turns, err := s.e.db.ChatTurns(ctx, b.ID)
	if err != nil || len(turns) == 0 {
		if err != nil {
			return nil, err
		}
		return s.e.resume(ctx, b)
	}
	var conv struct {
		A    []ringside.Message `json:"conversation_a"`
		B    []ringside.Message `json:"conversation_b"`
		Turn int                `json:"turn"`
	}
	if len(b.Extra) > 0 {
		if err := json.Unmarshal(b.Extra, &conv); err != nil {
			return nil, ringside.Errorf(ringside.EINTERNAL, "battle %s: conversation: %v", b.ID, err)
		}
	}
	ma, oka := s.e.chat.models[b.ModelA]
	mb, okb := s.e.chat.models[b.ModelB]
	if conv.Turn != len(turns) || !oka || !okb {
		// The last question's answers were cut short: nothing to show.
		return nil, ringside.Errorf(ringside.ENOTFOUND, "chat battle %s: turn %d was not answered", b.ID, len(turns))
	}
	cv := &chatConv{battle: b, judgeID: s.judge.ID, models: [2]ringside.Model{ma, mb}, maxTurns: s.e.chat.cfg.MaxTurns,
		turnDone: make(chan struct{})}
	close(cv.turnDone)
	for _, t := range turns {
		cv.questions = append(cv.questions, t.Question)
	}
	for i := 1; i < len(conv.A) && i < len(conv.B); i += 2 {
		cv.answers = append(cv.answers, [2]string{conv.A[i].Content, conv.B[i].Content})
	}
	if len(cv.answers) == 0 {
		return nil, ringside.Errorf(ringside.ENOTFOUND, "chat battle %s has no answers stored", b.ID)
	}
	f := newFeed(feedPace{}, s.e.now())
	last := cv.answers[len(cv.answers)-1]
	for i, text := range last {
		f.append(i, text, s.e.now())
		f.finish(i, false, s.e.now())
	}
	d := newDeal(b, nil, f)
	d.chat = cv
	return d, nil
}
