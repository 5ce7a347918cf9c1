package judging

import (
	"strings"
	"testing"
	"time"

	"github.com/ringside-eval/ringside"
)

// ticker reads a feed at the pump's ticks from t0 and keeps what was sent.
type ticker struct {
	f    *feed
	t0   time.Time
	sent [2]int
}

// at reads the feed at ms milliseconds after t0 and returns what it sent.
func (k *ticker) at(ms int) feedView {
	v := k.f.view(k.sent, k.t0.Add(time.Duration(ms)*time.Millisecond))
	k.sent = v.shown
	return v
}

func TestPacedFeedHoldsBothSidesUntilTheDelayAndBothFirstWords(t *testing.T) {
	t0 := time.Unix(1000, 0)
	k := &ticker{f: newFeed(feedPace{delay: time.Second, rate: 100}, t0), t0: t0}
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

	k.f.append(0, strings.Repeat("a", 300), at(10)) // a fast model
	for ms := 0; ms <= 1500; ms += 50 {
		if v := k.at(ms); v.shown != [2]int{} {
			t.Fatalf("at %d ms, before b's first words: %+v", ms, v)
		}
	}
	k.f.append(1, strings.Repeat("b", 300), at(1520)) // b's first words, late
	if v := k.at(1550); v.shown != [2]int{} {
		t.Fatalf("the tick that starts the release showed %+v", v)
	}
	// From then on both sides show the same bytes at the same ticks.
	for ms, want := 1600, 5; ms <= 2500; ms, want = ms+50, want+5 {
		v := k.at(ms)
		if v.shown != [2]int{want, want} || v.text[0] != strings.Repeat("a", 5) || v.text[1] != strings.Repeat("b", 5) {
			t.Fatalf("at %d ms: %+v, want %d bytes a side", ms, v, want)
		}
	}
}

func TestPacedFeedHoldsTheFasterSideToTheSlowerOne(t *testing.T) {
	t0 := time.Unix(1000, 0)
	k := &ticker{f: newFeed(feedPace{rate: 1000}, t0), t0: t0}
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	k.f.append(0, strings.Repeat("a", 200), at(0))
	k.f.append(1, strings.Repeat("b", 10), at(0))
	k.at(0)
	if v := k.at(50); v.shown != [2]int{10, 10} {
		t.Fatalf("with 10 bytes of b: %+v", v)
	}
	// b's next words arrive between two ticks: released from the tick
	// after, at the common rate, not at once.
	k.f.append(1, strings.Repeat("b", 190), at(60))
	if v := k.at(100); v.shown != [2]int{10, 10} {
		t.Fatalf("the tick after b's words arrived: %+v", v)
	}
	if v := k.at(150); v.shown != [2]int{60, 60} {
		t.Fatalf("a tick later: %+v, want 50 bytes more a side", v)
	}
}

func TestPacedFeedGoesOnAtTheCommonRateAfterASideEnded(t *testing.T) {
	t0 := time.Unix(1000, 0)
	k := &ticker{f: newFeed(feedPace{rate: 100}, t0), t0: t0}
	k.f.append(0, strings.Repeat("a", 100), t0)
	k.f.finish(0, false, t0)
	k.f.append(1, strings.Repeat("b", 20), t0)
	k.f.finish(1, false, t0)
	k.at(0)
	if v := k.at(100); v.shown != [2]int{10, 10} || v.full[0] || v.full[1] {
		t.Fatalf("after 100 ms: %+v", v)
	}
	if v := k.at(200); v.shown != [2]int{20, 20} || v.full[0] || !v.full[1] {
		t.Fatalf("after 200 ms: %+v; want b in full", v)
	}
	if v := k.at(500); v.shown[0] != 50 || v.full[0] {
		t.Fatalf("after 500 ms: %+v; a goes on at 100 bytes a second", v)
	}
	if v := k.at(1000); !v.full[0] {
		t.Fatalf("after a second: %+v", v)
	}
}

func TestInstantFeedShowsBothSidesWhenBothEnded(t *testing.T) {
	now := time.Now()
	f := newFeed(feedPace{}, now)
	f.append(0, "héllo", now)
	f.finish(0, false, now)
	if v := f.view([2]int{}, now); v.shown != [2]int{} {
		t.Fatalf("one side ended: %+v", v)
	}
	f.append(1, "world", now)
	f.finish(1, false, now)
	if v := f.view([2]int{}, now); v.text != [2]string{"héllo", "world"} || !v.full[0] || !v.full[1] {
		t.Fatalf("both ended: %+v", v)
	}
}

func TestPacedFeedNeverSplitsACharacter(t *testing.T) {
	t0 := time.Unix(1000, 0)
	k := &ticker{f: newFeed(feedPace{rate: 60}, t0), t0: t0}
	k.f.append(0, "ééé", t0)
	k.f.append(1, "abc", t0)
	k.at(0)
	if v := k.at(50); v.text[0] != "é" || v.text[1] != "abc" {
		t.Fatalf("3 bytes released: %q", v.text)
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
