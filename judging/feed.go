package judging

import (
	"sync"
	"time"
	"unicode/utf8"
)

// feed is the text of one battle's two sides as it arrives, from live
// streams or a stored battle's replay. It outlives the judge's connection,
// so a judge who reconnects is sent what arrived meanwhile. One pump at a
// time reads it and is woken through notify.
type feed struct {
	mu     sync.Mutex
	side   [2]feedSide
	notify chan struct{}
	// paced shows both sides at the speed of the slower one.
	paced bool
}

type feedSide struct {
	text         []byte
	first, end   time.Time // first text, end of stream
	done, failed bool
}

func newFeed(paced bool) *feed {
	return &feed{notify: make(chan struct{}, 1), paced: paced}
}

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
	if len(s.text) == 0 {
		s.first = now
	}
	s.text = append(s.text, text...)
	f.mu.Unlock()
	f.wake()
}

// finish ends a side's stream, failed or not.
func (f *feed) finish(side int, failed bool, now time.Time) {
	f.mu.Lock()
	s := &f.side[side]
	s.done, s.failed, s.end = true, failed, now
	f.mu.Unlock()
	f.wake()
}

// feedView is what a pump may show now beyond what it already sent.
type feedView struct {
	text   [2]string // new text per side
	shown  [2]int    // bytes shown once text is sent
	full   [2]bool   // everything the side will ever produce is shown
	failed [2]bool
	// pending is set when pacing holds text back that time alone will
	// release, so the pump must tick.
	pending bool
}

// slowestRate is the floor of the pacing speed, in bytes per second, so a
// side that wrote three words in ten seconds does not hold the other for
// minutes.
const slowestRate = 40.0

// view returns what may be shown at now, given what was sent.
func (f *feed) view(sent [2]int, now time.Time) feedView {
	f.mu.Lock()
	defer f.mu.Unlock()
	release := f.released(now)
	var v feedView
	for i := range f.side {
		s := &f.side[i]
		n := min(release[i], len(s.text))
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
	// Before both ended, new text (a wake) is what releases more.
	v.pending = f.side[0].done && f.side[1].done && !(v.full[0] && v.full[1])
	return v
}

// released returns how many bytes of each side may be shown at now.
// Unpaced, everything that arrived. Paced, both sides advance together:
// while a side still streams, neither shows more than it has; once both
// ended, the rest is released at the slower side's own speed. So both
// panes fill at the slower model's pace and finish as it would have.
func (f *feed) released(now time.Time) [2]int {
	a, b := &f.side[0], &f.side[1]
	if !f.paced {
		return [2]int{len(a.text), len(b.text)}
	}
	var limit int
	switch {
	case !a.done && !b.done:
		limit = min(len(a.text), len(b.text))
	case !a.done:
		limit = len(a.text)
	case !b.done:
		limit = len(b.text)
	default:
		last := a
		if b.end.After(a.end) {
			last = b
		}
		rate := min(streamRate(a), streamRate(b))
		limit = len(last.text) + int(rate*now.Sub(last.end).Seconds())
	}
	return [2]int{limit, limit}
}

// streamRate is a finished side's speed in bytes per second, at least
// slowestRate.
func streamRate(s *feedSide) float64 {
	d := s.end.Sub(s.first).Seconds()
	if len(s.text) == 0 || d <= 0 {
		return 1e12 // arrived at once: no limit of its own
	}
	return max(float64(len(s.text))/d, slowestRate)
}
