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

	// Slices: every value of the attribute has a board of its own. The
	// public gets every slicing but judge, at the configured rounds; the
	// admin any.
	for _, tc := range []struct {
		by    string
		admin bool
		want  []string
	}{
		{"judge", true, []string{"human:ana", "rules:rules"}},
		{"judge_kind", false, []string{"human", "rules"}},
		{"dimension", true, []string{"format_compliance", "factual_accuracy"}},
		{"kind", false, []string{"typical", "edge", "adversarial"}},
	} {
		var sl server.LeaderboardReport
		path := "/api/leaderboard?by=" + tc.by
		if tc.admin {
			path += "&bootstrap=50"
		}
		if code, body := d.do("GET", path, tc.admin, "", &sl); code != 200 {
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
	// The battles download is the admin's, at its new address and its old.
	for _, path := range []string{"/api/admin/battles.jsonl", "/api/battles.jsonl"} {
		code, body := d.do("GET", path, true, "", nil)
		lines := strings.Split(strings.TrimSpace(body), "\n")
		if code != 200 || int64(len(lines)) != rep.Votes || !strings.Contains(lines[0], `"model_a":`) {
			t.Fatalf("%s: %d, %d lines for %d votes: %.200s", path, code, len(lines), rep.Votes, body)
		}
	}
}

// What only the admin may ask: the public is refused (401 naming the
// parameter or the token), the admin served.
func TestLeaderboardAdminOnlyParameters(t *testing.T) {
	d := newDemoServer(t)
	for _, tc := range []struct{ path, field string }{
		{"/api/leaderboard?by=judge", "by: "},
		{"/api/leaderboard?by=judge&format=csv", "by: "},
		{"/api/leaderboard?bootstrap=5000", "bootstrap: "},
		{"/api/leaderboard?bootstrap=0", "bootstrap: "},
		{"/api/leaderboard?by=tag&bootstrap=4999", "bootstrap: "},
		{"/api/battles.jsonl", "admin token required"},
		{"/api/admin/battles.jsonl", "admin token required"},
	} {
		code, body := d.do("GET", tc.path, false, "", nil)
		var e server.ErrorBody
		if err := jsonUnmarshal(body, &e); err != nil || code != http.StatusUnauthorized || e.Error.Code != "unauthorized" ||
			!strings.HasPrefix(e.Error.Message, tc.field) {
			t.Errorf("public %s: %d %s, want 401 unauthorized starting %q", tc.path, code, body, tc.field)
		}
		if code, body := d.do("GET", tc.path, true, "", nil); code != http.StatusOK {
			t.Errorf("admin %s: %d %.200s, want 200", tc.path, code, body)
		}
	}
	// The configured round count is the public's too; a wrong token is
	// refused even on a public route.
	var rep server.LeaderboardReport
	if code, body := d.do("GET", "/api/leaderboard?bootstrap=1000", false, "", &rep); code != 200 || rep.Method.BootstrapRounds != 1000 {
		t.Errorf("public bootstrap=rank.bootstrap: %d %.200s", code, body)
	}
	req, _ := http.NewRequest("GET", d.ts.URL+"/api/leaderboard", nil)
	req.Header.Set("Authorization", "Bearer wrong")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("leaderboard with a wrong token: %d, want 401", resp.StatusCode)
	}
}

// TestLeaderboardCache: a second request is served from the cache, and a
// new vote invalidates it.
func TestLeaderboardCache(t *testing.T) {
	d := newDemoServer(t)
	_, first := d.do("GET", "/api/leaderboard?bootstrap=20", true, "", nil)
	_, again := d.do("GET", "/api/leaderboard?bootstrap=20", true, "", nil)
	if first != again {
		t.Fatal("the same data gave two different answers")
	}
	d.castVote(ringside.WinnerA)
	var rep server.LeaderboardReport
	d.do("GET", "/api/leaderboard?bootstrap=20", true, "", &rep)
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
