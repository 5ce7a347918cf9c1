package judging

import (
	"context"
	"sync"
	"time"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
)

// deal is a battle being shown to one judge: the battle itself (whose
// models never leave the server before the vote), the prompt, the feed of
// the two sides, and when voting opened and streaming ended for the judge.
type deal struct {
	battle   *ringside.Battle
	messages []ringside.Message
	feed     *feed
	// chat is the conversation of a chat battle; the deal is its current
	// turn.
	chat *chatConv
	// stop ends the deal's replay, if it has one. Live streams are not
	// stopped: they run to the end so their latency and cost are measured.
	stop context.CancelFunc

	mu                   sync.Mutex
	opened               bool
	openedAt, streamedAt time.Time
}

func newDeal(b *ringside.Battle, messages []ringside.Message, f *feed) *deal {
	return &deal{battle: b, messages: messages, feed: f, stop: func() {}}
}

func (d *deal) isOpen() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.opened
}

func (d *deal) markOpen(now time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.opened {
		d.opened, d.openedAt = true, now
	}
}

func (d *deal) markStreamed(now time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.streamedAt.IsZero() {
		d.streamedAt = now
	}
}

// voteDuration is the time from the end of streaming to a vote at now; for
// a vote cast before the end (voting opened early), from the opening.
func (d *deal) voteDuration(now time.Time) int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	from := d.streamedAt
	if from.IsZero() {
		from = d.openedAt
	}
	if from.IsZero() {
		return 0
	}
	return max(0, now.Sub(from).Milliseconds())
}

// pumpHandle stops a running pump and waits for it.
type pumpHandle struct {
	cancel context.CancelFunc
	done   chan struct{}
}

func (p *pumpHandle) stop() {
	p.cancel()
	<-p.done
}

// paceTick is how often a paced feed releases text. Both sides are sent
// on the same ticks, so the frames' cadence is the same for both.
const paceTick = 50 * time.Millisecond

// displayPace is the blind pacing of live and replayed battles
// (judging.display_delay and display_rate).
func (e *Engine) displayPace() feedPace {
	return feedPace{delay: e.cfg.DisplayDelay, rate: e.cfg.DisplayRate}
}

// pump streams a deal's feed to one connection, from the start: a pump on
// a new connection first sends everything released so far, in one delta
// per side. It sends End for each side once all of it is shown, Open when
// voting opens, and, when a side fails, an End that voids the battle, after
// which the session deals the next one. It stops when the connection no
// longer takes messages or the session stops it (detach, replace, close).
//
// A paced feed is read on the pump's clock ticks only, never on a side's
// arrivals, so nothing the judge is sent follows one model's timing.
func (e *Engine) pump(ctx context.Context, s *session, c Conn, d *deal, done chan struct{}) {
	defer close(done)
	wake, tickC := d.feed.notify, (<-chan time.Time)(nil)
	if d.feed.paced() {
		tick := time.NewTicker(paceTick)
		defer tick.Stop()
		wake, tickC = nil, tick.C
	}
	var (
		sent  [2]int
		ended [2]bool
		open  bool
	)
	id := d.battle.ID
	for {
		v := d.feed.view(sent, e.now())
		for i := range sides {
			if v.failed[i] {
				c.End(id, sides[i], true)
				e.background(func() { s.voidDeal(d) })
				return
			}
			if v.text[i] != "" {
				if !c.Delta(id, sides[i], v.text[i]) {
					return
				}
			}
			sent[i] = v.shown[i]
			if v.full[i] && !ended[i] {
				ended[i] = true
				if !c.End(id, sides[i], false) {
					return
				}
			}
		}
		if !open && e.votingOpens(sent, ended) {
			open = true
			d.markOpen(e.now())
			if !c.Open(id) {
				return
			}
		}
		if ended[0] && ended[1] {
			d.markStreamed(e.now())
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-wake:
		case <-tickC:
		}
	}
}

// votingOpens applies judging.vote_opens to what the judge has been shown.
func (e *Engine) votingOpens(shown [2]int, ended [2]bool) bool {
	if ended[0] && ended[1] {
		return true
	}
	if e.cfg.VoteOpens != config.VoteOpensPartial {
		return false
	}
	for i := range shown {
		if !ended[i] && shown[i] < e.cfg.VoteOpenChars {
			return false
		}
	}
	return true
}
