package judging

import (
	"math"
	"sync"
	"time"
	"unicode/utf8"
)

// feed is the text of one battle's two sides as it arrives, from live
// streams or a stored battle's replay. It outlives the judge's connection,
// so a judge who reconnects is sent what was released meanwhile. One pump
// at a time reads it and is woken through notify.
//
// What a judge sees of the two sides must not tell the models apart by
// speed: the side that writes first or faster is not the one that shows
// first or faster. So a paced feed releases both sides together: nothing
// before display_delay has passed since the deal and both sides have their
// first words (or ended), then both at one common rate, display_rate, from
// the same clock ticks. While both still stream, neither shows more than
// the other has, so a model slower than display_rate holds both sides back
// alike. A side that ended early goes on at the common rate.
type feed struct {
	mu     sync.Mutex
	side   [2]feedSide
	notify chan struct{}
	pace   feedPace
	dealt  time.Time

	// The release, in bytes a side, the same for both: allowed as of at,
	// when the shorter side still streaming had limit bytes (its cap until
	// the next tick).
	started bool
	allowed float64
	at      time.Time
	limit   int
}

// feedPace is how a feed releases its text. The zero value is instant:
// both sides in full at once, when both have ended.
type feedPace struct {
	delay time.Duration
	rate  float64 // bytes a second per side; 0 is instant
}

type feedSide struct {
	text         []byte
	done, failed bool
}

func newFeed(p feedPace, dealt time.Time) *feed {
	return &feed{notify: make(chan struct{}, 1), pace: p, dealt: dealt}
}

// paced reports whether time alone releases text, so the pump must tick.
func (f *feed) paced() bool { return f.pace.rate > 0 }

func (f *feed) wake() {
	select {
	case f.notify <- struct{}{}:
	default:
	}
}

// append adds text to a side, arrived at now.
func (f *feed) append(side int, text string, now time.Time) {
	if text == "" {
		return
	}
	f.mu.Lock()
	s := &f.side[side]
	s.text = append(s.text, text...)
	f.mu.Unlock()
	f.wake()
}

// finish ends a side's stream, failed or not.
func (f *feed) finish(side int, failed bool, now time.Time) {
	f.mu.Lock()
	s := &f.side[side]
	s.done, s.failed = true, failed
	f.mu.Unlock()
	f.wake()
}

// feedView is what a pump may show now beyond what it already sent.
type feedView struct {
	text   [2]string // new text per side
	shown  [2]int    // bytes shown once text is sent
	full   [2]bool   // everything the side will ever produce is shown
	failed [2]bool
}

// view returns what may be shown at now, given what was sent. A paced feed
// moves its release on at every call: the pump calls it on its clock ticks
// only, so that when text reaches the judge depends on that clock, not on
// when the models wrote it.
func (f *feed) view(sent [2]int, now time.Time) feedView {
	f.mu.Lock()
	defer f.mu.Unlock()
	release := f.release(now)
	var v feedView
	for i := range f.side {
		s := &f.side[i]
		n := min(release, len(s.text))
		for n < len(s.text) && n > 0 && !utf8.RuneStart(s.text[n]) {
			n-- // never cut a character in two
		}
		if n > sent[i] {
			v.text[i] = string(s.text[sent[i]:n])
		}
		v.shown[i] = max(n, sent[i])
		v.full[i] = s.done && v.shown[i] == len(s.text)
		v.failed[i] = s.failed
	}
	return v
}

// release returns how many bytes of each side may be shown at now.
func (f *feed) release(now time.Time) int {
	a, b := &f.side[0], &f.side[1]
	if !f.paced() {
		if a.done && b.done {
			return math.MaxInt
		}
		return 0
	}
	if !f.started {
		if !ready(a) || !ready(b) || now.Before(f.dealt.Add(f.pace.delay)) {
			return 0
		}
		f.started, f.at, f.limit = true, now, f.streaming()
		return 0
	}
	// Text that arrived since the last tick is released from this tick on,
	// not at once: the allowance grows at the common rate, no further than
	// what both sides had at the last tick.
	limit := f.limit
	if now.Sub(f.at) > 2*paceTick {
		// No pump ticked meanwhile (the judge was away): what arrived in
		// the gap would have been released by now.
		limit = f.streaming()
	}
	f.allowed = max(f.allowed, min(f.allowed+f.pace.rate*now.Sub(f.at).Seconds(), float64(limit)))
	f.at, f.limit = now, f.streaming()
	return int(f.allowed)
}

// ready reports whether a side has its first words or ended.
func ready(s *feedSide) bool { return s.done || len(s.text) > 0 }

// streaming returns the most bytes both sides may show by what arrived: the
// text of the shorter side still streaming, no limit once both ended.
func (f *feed) streaming() int {
	limit := math.MaxInt
	for i := range f.side {
		if s := &f.side[i]; !s.done {
			limit = min(limit, len(s.text))
		}
	}
	return limit
}
