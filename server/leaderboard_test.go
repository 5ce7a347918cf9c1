package server_test

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/server"
)

func TestLeaderboardAPI(t *testing.T) {
	d := newDemoServer(t)

	var rep server.LeaderboardReport
	if code, body := d.do("GET", "/api/leaderboard", false, "", &rep); code != 200 {
		t.Fatalf("leaderboard: %d %s", code, body)
	}
	if len(rep.Models)+len(rep.Flagged) != 4 || rep.Method.BootstrapRounds != 1000 || rep.Matrix == nil {
		t.Fatalf("leaderboard: %d models, %d flagged, %d rounds, matrix %v", len(rep.Models), len(rep.Flagged), rep.Method.BootstrapRounds, rep.Matrix != nil)
	}
	top := rep.Models[0]
	if top.Perf == nil || top.LatencyP95Ms == nil || top.CostPer1kResponsesUSD == nil || top.ErrorRate == nil {
		t.Fatalf("no measurements on %+v", top)
	}
	if len(rep.Pass["rules:rules"]) != 4 {
		t.Fatalf("pass statistics: %+v", rep.Pass)
	}
	if rep.Votes == 0 || len(rep.Dimensions) == 0 {
		t.Fatalf("votes %d, dimensions %v", rep.Votes, rep.Dimensions)
	}

	// Slices: every value of the attribute has a board of its own.
	for _, tc := range []struct {
		by   string
		want []string
	}{
		{"judge", []string{"human:ana", "rules:rules"}},
		{"dimension", []string{"format_compliance", "factual_accuracy"}},
		{"kind", []string{"typical", "edge", "adversarial"}},
	} {
		var sl server.LeaderboardReport
		if code, body := d.do("GET", "/api/leaderboard?by="+tc.by+"&bootstrap=50", false, "", &sl); code != 200 {
			t.Fatalf("by %s: %d %s", tc.by, code, body)
		}
		for _, k := range tc.want {
			if sl.Slices[k] == nil || len(sl.Slices[k].Models) == 0 {
				t.Fatalf("by %s: no slice %q in %v", tc.by, k, keys(sl.Slices))
			}
		}
	}

	// Bad parameters are EINVALID.
	for _, q := range []string{"by=colour", "bootstrap=-1", "bootstrap=x", "include_leaks=maybe", "format=xml"} {
		if code, _ := d.do("GET", "/api/leaderboard?"+q, false, "", nil); code != http.StatusBadRequest {
			t.Fatalf("%s: status %d, want 400", q, code)
		}
	}

	// Downloads in every format.
	for format, want := range map[string]string{"csv": "rank,model", "md": "| ", "json": `"method"`} {
		code, body := d.do("GET", "/api/leaderboard?format="+format+"&download=1", false, "", nil)
		if code != 200 || !strings.Contains(body, want) {
			t.Fatalf("format %s: %d %.200s", format, code, body)
		}
	}
	code, body := d.do("GET", "/api/battles.jsonl", false, "", nil)
	lines := strings.Split(strings.TrimSpace(body), "\n")
	if code != 200 || int64(len(lines)) != rep.Votes || !strings.Contains(lines[0], `"model_a":`) {
		t.Fatalf("battles: %d, %d lines for %d votes: %.200s", code, len(lines), rep.Votes, body)
	}
}

// TestLeaderboardCache: a second request is served from the cache, and a
// new vote invalidates it.
func TestLeaderboardCache(t *testing.T) {
	d := newDemoServer(t)
	_, first := d.do("GET", "/api/leaderboard?bootstrap=20", false, "", nil)
	_, again := d.do("GET", "/api/leaderboard?bootstrap=20", false, "", nil)
	if first != again {
		t.Fatal("the same data gave two different answers")
	}
	d.castVote(ringside.WinnerA)
	var rep server.LeaderboardReport
	d.do("GET", "/api/leaderboard?bootstrap=20", false, "", &rep)
	var before server.LeaderboardReport
	if err := jsonUnmarshal(first, &before); err != nil {
		t.Fatal(err)
	}
	// The vote may be on a battle others voted on, which counts once: the
	// board's votes move by one, its battles by at most one.
	if rep.Votes != before.Votes+1 || rep.Leaderboard.CountedVotes != before.Leaderboard.CountedVotes+1 || rep.Battles-before.Battles > 1 {
		t.Fatalf("after a vote: %d votes (%d on the board), %d battles; before %d (%d), %d",
			rep.Votes, rep.Leaderboard.CountedVotes, rep.Battles, before.Votes, before.Leaderboard.CountedVotes, before.Battles)
	}
}

// TestLeaderboardEvents: a vote cast over the judges' websocket reaches an
// open event stream. The database poll is made an hour long, so the event
// can only come from the vote itself.
func TestLeaderboardEvents(t *testing.T) {
	d := newDemoServer(t, server.WithEventPoll(time.Hour))
	req, _ := http.NewRequest("GET", d.ts.URL+"/api/events", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	events := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if ev, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
				events <- ev
			}
		}
		close(events)
	}()
	if ev := <-events; ev != "hello" {
		t.Fatalf("first event %q", ev)
	}
	d.voteOverWebsocket()
	if ev, ok := <-events; !ok || ev != "votes" {
		// ok is false when the stream ended: the context's 30 s ran out.
		t.Fatalf("event %q (stream open: %v), want votes", ev, ok)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
