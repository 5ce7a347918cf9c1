package server_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/server"
	"github.com/ringside-eval/ringside/store"
)

// importBattles stores n imported battles with a vote each: new data, so
// every board must be computed again.
func importBattles(t *testing.T, db *store.DB, from, n int) {
	t.Helper()
	ctx := context.Background()
	im, err := db.BeginBattleImport(ctx, fmt.Sprintf("f%d.jsonl", from), fmt.Sprintf("sha-%d", from))
	if err != nil {
		t.Fatal(err)
	}
	defer im.Rollback()
	for i := from; i < from+n; i++ {
		l := &store.ImportLine{Line: i - from + 1, Weight: 1, JudgeKind: ringside.JudgeHuman, JudgeName: "j"}
		l.Battle = ringside.Battle{ModelA: fmt.Sprintf("m%d", i%3), ModelB: fmt.Sprintf("m%d", (i+1)%3), Category: "c"}
		l.Vote.Winner = []ringside.Winner{ringside.WinnerA, ringside.WinnerB, ringside.WinnerTie}[i%3]
		if err := im.Add(ctx, l); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := im.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}

// An address gets 30 leaderboard computations, then one every 2 s; past
// that its uncached requests are 429 with Retry-After, while cached boards,
// other addresses and the admin are still served.
func TestPublicLeaderboardComputationsAreLimitedPerAddress(t *testing.T) {
	clock := &manualClock{t: time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)}
	srv, db := newClockedServer(t, clock)
	token, err := server.EnsureAdminToken(context.Background(), db, "")
	if err != nil {
		t.Fatal(err)
	}
	get := func(addr, query, bearer string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, "/api/leaderboard?"+query, nil)
		req.RemoteAddr = addr
		if bearer != "" {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		return serve(srv, req)
	}
	// Twelve public boards per state of the data: six slicings, leaks or not.
	var variants []string
	for _, by := range []string{"overall", "category", "kind", "judge_kind", "tag", "dimension"} {
		for _, leaks := range []string{"false", "true"} {
			variants = append(variants, "by="+by+"&include_leaks="+leaks)
		}
	}
	const greedy, other = "192.0.2.7:5000", "192.0.2.8:6000"
	importBattles(t, db, 0, 9)
	computed := 0
	last := ""
	for i := 0; ; i++ {
		if i > 0 && i%len(variants) == 0 {
			importBattles(t, db, i, 3)
		}
		q := variants[i%len(variants)]
		rec := get(greedy, q, "")
		if rec.Code == http.StatusTooManyRequests {
			if ra := rec.Header().Get("Retry-After"); ra != "2" {
				t.Errorf("Retry-After %q, want 2", ra)
			}
			last = q
			break
		}
		if rec.Code != http.StatusOK {
			t.Fatalf("request %d (%s): %d %s", i, q, rec.Code, rec.Body)
		}
		if computed++; computed > 30 {
			t.Fatalf("%d computations from one address and no 429", computed)
		}
	}
	if computed != 30 {
		t.Fatalf("429 after %d computations, want 30", computed)
	}
	// Cached: the board computed just before is served.
	if rec := get(greedy, variants[(len(variants)+29)%len(variants)], ""); rec.Code != http.StatusOK {
		t.Errorf("a cached board: %d, want 200", rec.Code)
	}
	if rec := get(greedy, last, ""); rec.Code != http.StatusTooManyRequests {
		t.Errorf("again uncached: %d, want 429", rec.Code)
	}
	if rec := get(other, last, ""); rec.Code != http.StatusOK {
		t.Errorf("another address: %d, want 200", rec.Code)
	}
	importBattles(t, db, 1000, 3)
	if rec := get(greedy, "by=tag&bootstrap=77", token); rec.Code != http.StatusOK {
		t.Errorf("the admin from the limited address: %d %s, want 200", rec.Code, rec.Body)
	}
	clock.advance(2 * time.Second)
	if rec := get(greedy, "by=kind", ""); rec.Code != http.StatusOK {
		t.Errorf("after 2 s: %d, want 200", rec.Code)
	}
	if rec := get(greedy, "by=category", ""); rec.Code != http.StatusTooManyRequests {
		t.Errorf("a second one after 2 s: %d, want 429", rec.Code)
	}
}
