package judging

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/store"
	"golang.org/x/time/rate"
)

// session is one judge as the server knows them in memory: the connection
// (at most one), the battle being shown, and the progress. Its methods run
// under mu, one at a time per judge; a slow database only slows that judge.
// Lock order: Engine.mu before session.mu.
type session struct {
	e           *Engine
	judge       ringside.Judge
	anonymous   bool
	dealLimiter *rate.Limiter // anonymous judges only

	mu     sync.Mutex
	loaded bool
	conn   Conn
	cur    *deal
	pump   *pumpHandle
	votes  int
	// changeable is the battle whose vote the judge may still correct:
	// their last vote, until they take another battle or end the session.
	changeable string
	expire     *time.Timer
	dropped    bool
	// chat is a chat battle offered and not yet asked (chat_session.go).
	chat chatPending
}

// load reads the judge's progress and open battle the first time the
// session is used; after a restart, the open battle is resumed from the
// database.
func (s *session) load(ctx context.Context) error {
	if s.loaded {
		return nil
	}
	n, err := s.e.db.CountJudgeVotes(ctx, s.judge.ID)
	if err != nil {
		return err
	}
	s.votes = n
	open, err := s.e.db.OpenDeal(ctx, s.judge.ID)
	switch ringside.ErrorCode(err) {
	case "":
		s.cur = s.resumeFromDB(ctx, open)
	case ringside.ENOTFOUND:
	default:
		return err
	}
	s.loaded = true
	return nil
}

// resumeFromDB rebuilds an open deal left by an earlier process. A battle
// whose outputs cannot be shown in full any more is void.
func (s *session) resumeFromDB(ctx context.Context, open *store.Deal) *deal {
	b, err := s.e.db.Battle(ctx, open.BattleID)
	var d *deal
	if err == nil {
		d, err = s.resumeBattle(ctx, b)
	}
	if err != nil {
		if ringside.ErrorCode(err) == ringside.EINTERNAL {
			s.e.logger.Error("resume battle", "battle", open.BattleID, "err", err)
		}
		if cerr := s.e.writes.CloseDeal(ctx, open.BattleID, s.judge.ID, store.DealVoid); cerr != nil && ringside.ErrorCode(cerr) != ringside.ECONFLICT {
			s.e.logger.Error("void unresumable battle", "battle", open.BattleID, "err", cerr)
		}
		return nil
	}
	return d
}

// errSessionDropped is attach's answer for a session that left memory
// between lookup and attach; the caller looks it up again.
var errSessionDropped = errors.New("session dropped")

// attach makes c the judge's connection, replacing (and closing) an older
// one, and greets the judge.
func (s *session) attach(ctx context.Context, c Conn) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dropped {
		return errSessionDropped
	}
	if err := s.load(ctx); err != nil {
		return err
	}
	if s.expire != nil {
		s.expire.Stop()
		s.expire = nil
	}
	s.stopPump()
	if old := s.conn; old != nil {
		old.Close(Replaced)
	}
	s.conn = c
	c.Hello(Hello{Judge: s.judge.Name, Anonymous: s.anonymous,
		Progress: s.progress(), Dimensions: s.e.dims, Reveal: s.e.cfg.Reveal})
	return nil
}

// detach forgets c when it is still the judge's connection, and keeps the
// battle for the resume window.
func (s *session) detach(c Conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != c {
		return
	}
	s.stopPump()
	s.conn = nil
	if s.dropped {
		return
	}
	s.expire = time.AfterFunc(s.e.cfg.ResumeWindow, func() { s.e.forget(s) })
}

// idle reports whether nobody is connected (for forget).
func (s *session) idle() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conn == nil
}

// drop ends the session's in-memory life: the open deal stays open in the
// database and resumes from there.
func (s *session) drop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropped = true
	if s.cur != nil {
		s.cur.stop()
		s.cur = nil
	}
}

// shutdown closes the connection for why and drops the session.
func (s *session) shutdown(why Ending) {
	s.mu.Lock()
	c := s.conn
	s.stopPump()
	if s.expire != nil {
		s.expire.Stop()
	}
	s.mu.Unlock()
	if c != nil {
		c.Close(why)
	}
	s.drop()
}

func (s *session) progress() Progress {
	return Progress{Done: s.votes, Quota: s.judge.Quota}
}

// sendFn runs fn on the connection, if there is one.
func (s *session) sendFn(fn func(Conn)) {
	if s.conn != nil {
		fn(s.conn)
	}
}

// sendError reports err to the judge; internal details are logged only.
func (s *session) sendError(err error, battleID string) {
	code := ringside.ErrorCode(err)
	if code == ringside.EINTERNAL {
		s.e.logger.Error("judging", "judge", s.judge.ID, "err", err)
	}
	s.sendFn(func(c Conn) { c.Error(code, ringside.ErrorMessage(err), battleID) })
}

func (s *session) startPump(d *deal) {
	s.stopPump()
	if s.conn == nil {
		return
	}
	ctx, cancel := context.WithCancel(s.e.ctx)
	h := &pumpHandle{cancel: cancel, done: make(chan struct{})}
	c := s.conn
	s.pump = h
	if !s.e.background(func() { s.e.pump(ctx, s, c, d, h.done) }) {
		close(h.done) // shutting down: nothing to stream to
	}
}

func (s *session) stopPump() {
	if s.pump != nil {
		s.pump.stop()
		s.pump = nil
	}
}

// show sends the deal's battle and starts streaming it.
func (s *session) show(d *deal, resumed bool) {
	if d.chat != nil {
		s.showChat(d, resumed)
		return
	}
	b := Battle{ID: d.battle.ID, Messages: d.messages, Dimensions: s.e.dims,
		Progress: s.progress(), Resumed: resumed}
	s.sendFn(func(c Conn) { c.Battle(b) })
	s.startPump(d)
}

// next answers the judge's Next: the battle being shown (resumed from the
// start), or a new one, or `done` when the quota is met or nothing is left.
func (s *session) next(ctx context.Context, c Conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != c {
		return
	}
	s.dealNext(ctx)
}

func (s *session) dealNext(ctx context.Context) {
	s.changeable = ""
	if s.cur != nil {
		s.show(s.cur, true)
		return
	}
	if q := s.judge.Quota; q > 0 && s.votes >= q {
		s.sendDone(ctx, DoneQuota)
		return
	}
	if s.chat.offered {
		s.offerChat() // the offer stands until the judge asks
		return
	}
	if s.dealLimiter != nil && !s.dealLimiter.Allow() {
		s.sendFn(func(c Conn) { c.Error(CodeRateLimited, "too many battles in a short time; wait a little", "") })
		return
	}
	d, err := s.e.source.deal(ctx, s.judge.ID)
	if errors.Is(err, errChat) {
		s.chat.offered = true
		s.offerChat()
		return
	}
	if ringside.ErrorCode(err) == ringside.ENOTFOUND {
		s.sendDone(ctx, DoneEmpty)
		return
	} else if err != nil {
		s.sendError(err, "")
		return
	}
	s.cur = d
	s.show(d, false)
}

// sendDone ends a session; with reveal after_session it names the models
// of the battles the judge voted on.
func (s *session) sendDone(ctx context.Context, reason string) {
	s.changeable = ""
	msg := Done{Reason: reason, Progress: s.progress()}
	if s.e.cfg.Reveal == config.RevealAfterSession {
		voted, err := s.e.db.JudgeVotedBattles(ctx, s.judge.ID, 500)
		if err != nil {
			s.sendError(err, "")
			return
		}
		for _, r := range voted {
			msg.Reveals = append(msg.Reveals, Revealed{BattleID: r.BattleID, A: r.ModelA, B: r.ModelB, Winner: r.Winner})
		}
	}
	s.sendFn(func(c Conn) { c.Done(msg) })
}

// finish answers the judge's Finish: the judge ends the session.
func (s *session) finish(ctx context.Context, c Conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != c {
		return
	}
	s.sendDone(ctx, DoneFinished)
}

// skip answers the judge's Skip: the battle is closed unvoted and the next
// one dealt.
func (s *session) skip(ctx context.Context, c Conn, battleID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != c {
		return
	}
	if s.cur == nil || s.cur.battle.ID != battleID {
		s.sendFn(func(c Conn) { c.Error(ringside.ECONFLICT, "that battle is not the one being shown", battleID) })
		return
	}
	if err := s.e.writes.CloseDeal(ctx, battleID, s.judge.ID, store.DealSkipped); err != nil && ringside.ErrorCode(err) != ringside.ECONFLICT {
		s.sendError(err, battleID)
		return
	}
	s.endCurrent()
	s.dealNext(ctx)
}

// voidDeal ends d as void after a side failed, and deals the next battle.
func (s *session) voidDeal(d *deal) {
	ctx, cancel := context.WithTimeout(s.e.ctx, 30*time.Second)
	defer cancel()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur != d {
		return
	}
	if err := s.e.writes.CloseDeal(ctx, d.battle.ID, s.judge.ID, store.DealVoid); err != nil && ringside.ErrorCode(err) != ringside.ECONFLICT {
		s.sendError(err, d.battle.ID)
	}
	if d.chat != nil {
		// The judge keeps the question to try again, with a new pair.
		s.chat = chatPending{offered: true, draft: d.chat.questions[len(d.chat.questions)-1]}
	}
	s.endCurrent()
	if s.conn != nil && !s.dropped {
		s.dealNext(ctx)
	}
}

// endCurrent forgets the battle being shown.
func (s *session) endCurrent() {
	s.stopPump()
	if s.cur != nil {
		s.cur.stop()
		s.cur = nil
	}
}

// vote answers the judge's Vote. The acknowledgement (Voted) is sent only
// once the vote is committed; a repeated vote gets the first one's result.
func (s *session) vote(ctx context.Context, c Conn, in *VoteRequest) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != c {
		return
	}
	if in.Correction {
		s.correct(ctx, in)
		return
	}
	v, err := s.parseVote(in)
	if err != nil {
		s.sendError(err, in.BattleID)
		return
	}
	cur := s.cur
	isCur := cur != nil && cur.battle.ID == v.BattleID
	canOpen := isCur && cur.isOpen()
	if canOpen {
		v.DurationMs = cur.voteDuration(s.e.now())
	}
	first, err := s.e.writes.CastVote(ctx, v, canOpen)
	duplicate := first != nil && err != nil
	if err != nil && !duplicate {
		s.sendError(err, v.BattleID)
		return
	}
	if !duplicate {
		s.votes++
		if isCur {
			s.e.pairer.observe(cur.battle, v.Winner)
		}
		s.e.onVote()
	}
	var battle *ringside.Battle
	if isCur {
		battle = cur.battle
		s.endCurrent()
	}
	msg := Voted{BattleID: first.BattleID, Winner: first.Winner,
		Dimensions: first.Dimensions, Duplicate: duplicate, Progress: s.progress()}
	if s.correctable() && (isCur || s.changeable == first.BattleID) {
		s.changeable = first.BattleID
		msg.Changeable = true
	}
	if isCur && cur.chat != nil {
		msg.Turn = cur.chat.turn()
	}
	if s.e.cfg.Reveal == config.RevealAfterVote {
		if battle == nil {
			if battle, err = s.e.db.Battle(ctx, first.BattleID); err != nil {
				s.sendError(err, first.BattleID)
				return
			}
		}
		msg.Reveal = &Reveal{A: battle.ModelA, B: battle.ModelB}
	}
	s.sendFn(func(c Conn) { c.Voted(msg) })
}

// parseVote checks a vote against the configured dimensions.
func (s *session) parseVote(in *VoteRequest) (*ringside.Vote, error) {
	v := &ringside.Vote{BattleID: in.BattleID, JudgeID: s.judge.ID, Winner: ringside.Winner(in.Winner), Reason: in.Reason}
	if len([]rune(in.Reason)) > s.e.cfg.MaxReasonChars {
		return nil, ringside.FieldError("reason", "longer than %d characters", s.e.cfg.MaxReasonChars)
	}
	if len(in.Dimensions) > 0 {
		v.Dimensions = make(map[string]ringside.Winner, len(in.Dimensions))
		for dim, w := range in.Dimensions {
			if !slices.Contains(s.e.dims, dim) {
				return nil, ringside.FieldError("dimensions", "%q is not a configured dimension", dim)
			}
			v.Dimensions[dim] = ringside.Winner(w)
		}
	}
	return v, v.Validate()
}
