package server

import (
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
