package server

import (
	"context"
	"testing"

	"github.com/ringside-eval/ringside/store"
)

// TestLeaderboardCacheKeepsAnswerUntilDataChanges checks the cache itself:
// TestLeaderboardCache compares answers, which a deterministic bootstrap
// makes equal with or without a cache.
func TestLeaderboardCacheKeepsAnswerUntilDataChanges(t *testing.T) {
	var lc leaderboardCache
	q := leaderboardQuery{by: "kind", rounds: 20}
	at := store.Stamp{Votes: 10, LastVote: 10}
	b := &cachedBoard{stamp: at}
	lc.put(q, b)
	if got := lc.get(q, at); got != b {
		t.Fatalf("get at the same stamp = %p, want the cached %p", got, b)
	}
	if got := lc.get(leaderboardQuery{by: "judge", rounds: 20}, at); got != nil {
		t.Fatalf("another query got %p, want nothing", got)
	}
	later := store.Stamp{Votes: 11, LastVote: 11}
	if got := lc.get(q, later); got != nil {
		t.Fatalf("get after a vote = %p, want nothing (stale)", got)
	}
	lc.put(q, &cachedBoard{stamp: later})
	if len(lc.boards) != 1 {
		t.Fatalf("%d boards kept, want the stale one dropped", len(lc.boards))
	}
	for i := range 2 * leaderboardCacheSize {
		lc.put(leaderboardQuery{rounds: i}, &cachedBoard{stamp: later})
	}
	if len(lc.boards) > leaderboardCacheSize {
		t.Fatalf("%d boards kept, want at most %d", len(lc.boards), leaderboardCacheSize)
	}
}

// TestLeaderboardDataIsReadOncePerStamp checks that the slicings a page asks
// for share one read of the votes until the data changes.
func TestLeaderboardDataIsReadOncePerStamp(t *testing.T) {
	var lc leaderboardCache
	reads := 0
	load := func(context.Context) (*boardData, error) {
		reads++
		return &boardData{}, nil
	}
	ctx := context.Background()
	at := store.Stamp{Votes: 10, LastVote: 10}
	first, _ := lc.dataAt(ctx, at, load)
	again, _ := lc.dataAt(ctx, at, load)
	if reads != 1 || first != again || first.stamp != at {
		t.Fatalf("%d reads at one stamp (%p, %p), want 1 and the same data", reads, first, again)
	}
	if later, _ := lc.dataAt(ctx, store.Stamp{Votes: 11, LastVote: 11}, load); reads != 2 || later == first {
		t.Fatalf("%d reads after a vote, want 2 and new data", reads)
	}
}
