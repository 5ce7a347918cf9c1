package server

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

// paceTick is how often paced text is released once both sides ended.
const paceTick = 50 * time.Millisecond

// pump streams a deal's feed to one connection, from the start: a pump on
// a new connection first sends everything that arrived so far, in one delta
// per side. It sends `end` for each side once all of it is shown, `open`
// when voting opens, and, when a side fails, an `end` that voids the
// battle, after which the session deals the next one.
func (j *Judging) pump(ctx context.Context, s *session, c *conn, d *deal, done chan struct{}) {
	defer close(done)
	var (
		sent  [2]int
		ended [2]bool
		open  bool
		tick  *time.Ticker
		tickC <-chan time.Time
	)
	defer func() {
		if tick != nil {
			tick.Stop()
		}
	}()
	id := d.battle.ID
	for {
		v := d.feed.view(sent, j.now())
		for i := range sides {
			if v.failed[i] {
				c.enqueue(encode(endMsg{Type: frameEnd, BattleID: id, Side: sides[i], Error: voidMessage, Void: true}))
				j.background(func() { s.voidDeal(d) })
				return
			}
			if v.text[i] != "" {
				if !c.enqueue(encode(deltaMsg{Type: frameDelta, BattleID: id, Side: sides[i], Text: v.text[i]})) {
					return
				}
			}
			sent[i] = v.shown[i]
			if v.full[i] && !ended[i] {
				ended[i] = true
				if !c.enqueue(encode(endMsg{Type: frameEnd, BattleID: id, Side: sides[i]})) {
					return
				}
			}
		}
		if !open && j.votingOpens(sent, ended) {
			open = true
			d.markOpen(j.now())
			if !c.enqueue(encode(openMsg{Type: frameOpen, BattleID: id})) {
				return
			}
		}
		if ended[0] && ended[1] {
			d.markStreamed(j.now())
			return
		}
		if v.pending && tick == nil {
			tick = time.NewTicker(paceTick)
			tickC = tick.C
		}
		select {
		case <-ctx.Done():
			return
		case <-c.closed:
			return
		case <-d.feed.notify:
		case <-tickC:
		}
	}
}

// votingOpens applies judging.vote_opens to what the judge has been shown.
func (j *Judging) votingOpens(shown [2]int, ended [2]bool) bool {
	if ended[0] && ended[1] {
		return true
	}
	if j.cfg.VoteOpens != config.VoteOpensPartial {
		return false
	}
	for i := range shown {
		if !ended[i] && shown[i] < j.cfg.VoteOpenChars {
			return false
		}
	}
	return true
}
