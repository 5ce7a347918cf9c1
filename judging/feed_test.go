package judging

import (
	"strings"
	"testing"
	"time"

	"github.com/ringside-eval/ringside"
)

func TestPacedFeedShowsBothSidesAtTheSlowerSpeed(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	f := newFeed(true)
	var sent [2]int
	show := func(now time.Time) [2]string {
		v := f.view(sent, now)
		sent = v.shown
		return v.text
	}

	// Side a is fast, side b slow: a shows no more than b has.
	f.append(0, strings.Repeat("a", 100), at(10))
	if got := show(at(10)); got != [2]string{} {
		t.Fatalf("a shown before b started: %q", got)
	}
	f.append(1, "bbbbbbbbbb", at(500))
	if got := show(at(500)); got[0] != strings.Repeat("a", 10) || got[1] != "bbbbbbbbbb" {
		t.Fatalf("after b's first 10 bytes: %q", got)
	}
	f.finish(0, false, at(510)) // a is done, b goes on
	f.append(1, strings.Repeat("b", 10), at(1000))
	if got := show(at(1000)); len(got[0]) != 10 || len(got[1]) != 10 {
		t.Fatalf("a ahead of b: %q", got)
	}
	// b ends with 20 bytes over 500 ms (40 bytes/s, the floor); a's other
	// 80 bytes come at that speed, not at once.
	f.finish(1, false, at(1000))
	v := f.view(sent, at(1000))
	if v.full[0] || !v.full[1] || !v.pending {
		t.Fatalf("at b's end: %+v", v)
	}
	v = f.view(sent, at(2000))
	if n := v.shown[0]; n != 60 {
		t.Fatalf("one second after b ended, a shows %d bytes; want 20+40", n)
	}
	v = f.view(sent, at(3000))
	if !v.full[0] || v.pending {
		t.Fatalf("two seconds after b ended: %+v", v)
	}
}

func TestUnpacedFeedShowsEverythingAtOnceAndNeverSplitsACharacter(t *testing.T) {
	f := newFeed(false)
	f.append(0, "héllo", time.Now())
	v := f.view([2]int{}, time.Now())
	if v.text[0] != "héllo" || v.full[0] {
		t.Fatalf("view %+v", v)
	}
	paced := newFeed(true)
	paced.append(0, "ééé", time.Now())
	paced.append(1, "abc", time.Now()) // 3 bytes: the middle of the second é
	if v := paced.view([2]int{}, time.Now()); v.text[0] != "é" {
		t.Fatalf("paced cut %q", v.text[0])
	}
}

func TestReplayPlanSpreadsOutputOverRecordedTiming(t *testing.T) {
	gens := [2]*ringside.Generation{
		{Output: "one two three four five six seven", TTFTMs: 100, LatencyMs: 700},
		{Output: "short", TTFTMs: 50, LatencyMs: 50},
	}
	plan := replayPlan(gens)
	var a []string
	var lastAt time.Duration
	for _, e := range plan {
		if e.at < lastAt {
			t.Fatalf("plan not in time order: %+v", plan)
		}
		lastAt = e.at
		if e.side == 0 && !e.end {
			a = append(a, e.text)
		}
	}
	if strings.Join(a, "") != gens[0].Output {
		t.Fatalf("pieces %q do not rebuild the output", a)
	}
	if plan[0].at != 50*time.Millisecond || lastAt != 700*time.Millisecond {
		t.Fatalf("plan from %v to %v, want 50ms to 700ms", plan[0].at, lastAt)
	}
}
