package judging

import (
	"cmp"
	"context"
	"math/rand/v2"
	"regexp"
	"slices"
	"time"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/store"
)

// storedSource deals battles that `ringside run` stored, least-dealt first,
// never the same one twice to a judge, and replays their outputs at the
// recorded pace or at once (judging.pace); either way both sides show
// together, never at their models' own speed.
type storedSource struct {
	e     *Engine
	rand  *lockedRand
	pairs *storedPairs // under adaptive pairing
	// amongLive: dealing gold battles on a live server (gold.go), always
	// replayed so that they show like the live battles around them.
	amongLive bool
}

// storedCandidates is how many least-dealt battles a deal draws among.
const storedCandidates = 32

func (s *storedSource) deal(ctx context.Context, judgeID string) (*deal, error) {
	if s.e.cfg.Pairing == config.PairingAdaptive {
		return s.dealAdaptive(ctx, judgeID)
	}
	cands, err := s.e.db.StoredCandidates(ctx, judgeID, s.e.cfg.Runs, storedCandidates)
	if err != nil {
		return nil, err
	}
	d, err := s.tryCandidates(ctx, judgeID, cands, 0)
	if err != nil || d != nil {
		return d, err
	}
	return nil, ringside.Errorf(ringside.ENOTFOUND, "no stored battles left to judge")
}

// tryCandidates deals the first of cands that can be shown, drawing among
// the least-dealt so that judges spread over the battles; nil when none
// can.
func (s *storedSource) tryCandidates(ctx context.Context, judgeID string, cands []store.StoredCandidate, propensity float64) (*deal, error) {
	least := 0
	for least < len(cands) && cands[least].Dealt == cands[0].Dealt {
		least++
	}
	s.rand.with(func(r *rand.Rand) {
		r.Shuffle(least, func(i, k int) { cands[i], cands[k] = cands[k], cands[i] })
	})
	for _, c := range cands {
		d, err := s.try(ctx, judgeID, c.BattleID, propensity)
		if err == nil {
			return d, nil
		}
		// A battle that cannot be shown (a prompt gone, a side failed)
		// gives way to the next candidate.
		code := ringside.ErrorCode(err)
		if code != ringside.ENOTFOUND && code != ringside.ECONFLICT {
			return nil, err
		}
		if code == ringside.ENOTFOUND && s.e.unshowable.CompareAndSwap(false, true) {
			// Said once: when every stored battle lacks its prompt, judges
			// are told only that nothing is left, and this says why.
			s.e.logger.Warn("a stored battle cannot be shown, and is passed over (further ones are not logged)",
				"battle", c.BattleID, "err", err)
		}
	}
	return nil, nil
}

func (s *storedSource) try(ctx context.Context, judgeID, battleID string, propensity float64) (*deal, error) {
	b, err := s.e.db.Battle(ctx, battleID)
	if err != nil {
		return nil, err
	}
	gens, messages, err := s.e.battleContent(ctx, b)
	if err != nil {
		return nil, err
	}
	if err := s.e.writes.DealBattleDrawn(ctx, b, false, judgeID, propensity); err != nil {
		return nil, err
	}
	if s.e.cfg.Pace == config.PaceInstant && !s.amongLive {
		// Both outputs in full at the deal: no timing at all to read.
		f := newFeed(feedPace{}, s.e.now())
		fill(f, gens, s.e.now())
		return newDeal(b, messages, f), nil
	}
	// The replay brings the outputs at their recorded pace, which the feed
	// hides as it hides a live battle's.
	f := newFeed(s.e.displayPace(), s.e.now())
	d := newDeal(b, messages, f)
	ctx, cancel := context.WithCancel(s.e.ctx)
	d.stop = cancel
	if !s.e.background(func() { s.e.replay(ctx, f, gens) }) {
		cancel()
		return nil, ringside.Errorf(ringside.EUNAUTHORIZED, "server shutting down")
	}
	return d, nil
}

// battleContent loads what a judge is shown of a stored battle: both
// generations, which must exist and have succeeded, and the prompt.
func (e *Engine) battleContent(ctx context.Context, b *ringside.Battle) ([2]*ringside.Generation, []ringside.Message, error) {
	for i, id := range []string{b.GenerationA, b.GenerationB} {
		if id == "" {
			return [2]*ringside.Generation{}, nil, ringside.Errorf(ringside.ENOTFOUND, "battle %s has no output on side %s", b.ID, sides[i])
		}
	}
	gens, err := e.db.GenerationPair(ctx, b.GenerationA, b.GenerationB)
	if err != nil {
		return gens, nil, err
	}
	for _, g := range gens {
		if g.Failed() {
			return gens, nil, ringside.Errorf(ringside.ENOTFOUND, "battle %s has a failed side", b.ID)
		}
	}
	messages, err := e.prompts.messages(ctx, e, b.PromptSet, b.PromptID)
	if err != nil {
		return gens, nil, err
	}
	return gens, messages, nil
}

// resume rebuilds an open deal from the database after a restart: both
// outputs at once, since the judge saw them start already. A live battle
// whose outputs were not finished cannot be resumed (ENOTFOUND).
func (e *Engine) resume(ctx context.Context, b *ringside.Battle) (*deal, error) {
	gens, messages, err := e.battleContent(ctx, b)
	if err != nil {
		return nil, err
	}
	f := newFeed(feedPace{}, e.now())
	fill(f, gens, e.now())
	return newDeal(b, messages, f), nil
}

// fill puts both outputs in f at once.
func fill(f *feed, gens [2]*ringside.Generation, now time.Time) {
	for i, g := range gens {
		f.append(i, g.Output, now)
		f.finish(i, false, now)
	}
}

// chunkRE cuts an output into pieces of a few words, about what a model
// streams at a time.
var chunkRE = regexp.MustCompile(`(?s)(?:\S+\s*){1,3}|\s+`)

// replayEvent is one piece of output due at an offset from the start.
type replayEvent struct {
	at   time.Duration
	side int
	text string
	end  bool
}

// replayPlan spreads each output over its recorded timing: the first piece
// at the time to first token, the last at the total latency, evenly between.
func replayPlan(gens [2]*ringside.Generation) []replayEvent {
	var events []replayEvent
	for side, g := range gens {
		ttft := time.Duration(g.TTFTMs * float64(time.Millisecond))
		total := max(time.Duration(g.LatencyMs*float64(time.Millisecond)), ttft)
		pieces := chunkRE.FindAllString(g.Output, -1)
		for i, p := range pieces {
			at := ttft
			if len(pieces) > 1 {
				at += (total - ttft) * time.Duration(i) / time.Duration(len(pieces)-1)
			}
			events = append(events, replayEvent{at: at, side: side, text: p})
		}
		events = append(events, replayEvent{at: total, side: side, end: true})
	}
	// Stable by time, so each side's pieces stay in order.
	slices.SortStableFunc(events, func(x, y replayEvent) int { return cmp.Compare(x.at, y.at) })
	return events
}

// replay plays a stored battle into f at its recorded pace, until done or
// ctx ends.
func (e *Engine) replay(ctx context.Context, f *feed, gens [2]*ringside.Generation) {
	start := e.now()
	timer := time.NewTimer(0)
	defer timer.Stop()
	<-timer.C
	for _, ev := range replayPlan(gens) {
		if wait := ev.at - e.now().Sub(start); wait > 0 {
			timer.Reset(wait)
			select {
			case <-ctx.Done():
				return
			case <-timer.C:
			}
		}
		if ev.end {
			f.finish(ev.side, false, e.now())
		} else {
			f.append(ev.side, ev.text, e.now())
		}
	}
}
