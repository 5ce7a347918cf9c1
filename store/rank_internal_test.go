package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ringside-eval/ringside"
)

// importLines stores n imported battles with varied judges, attributes and
// weights, and deletes some votes so that the rowids have gaps.
func importLines(t *testing.T, db *DB, n int) {
	t.Helper()
	ctx := context.Background()
	im, err := db.BeginBattleImport(ctx, "test.jsonl", "sha-test")
	if err != nil {
		t.Fatal(err)
	}
	defer im.Rollback()
	winners := []ringside.Winner{ringside.WinnerA, ringside.WinnerB, ringside.WinnerTie, ringside.WinnerBothBad}
	for i := 0; i < n; i++ {
		l := &ImportLine{Line: i + 1, Weight: 1, JudgeKind: ringside.JudgeHuman, JudgeName: fmt.Sprintf("j%d", i%3)}
		l.Battle = ringside.Battle{ModelA: fmt.Sprintf("m%d", i%5), ModelB: fmt.Sprintf("m%d", (i+1+i%3)%5),
			Category: []string{"", "refunds", "coding"}[i%3], Kind: []string{"", "typical", "edge"}[i%3]}
		if l.Battle.ModelA == l.Battle.ModelB {
			l.Battle.ModelB = "other"
		}
		if i%4 == 0 {
			l.Battle.Tags = []string{"t1", fmt.Sprintf("t%d", i%7)}
		}
		l.Battle.IdentityLeak = i%11 == 0
		l.Vote.Winner = winners[i%4]
		if i%5 == 0 {
			l.Vote.Dimensions = map[string]ringside.Winner{"format_compliance": winners[(i+1)%4]}
		}
		if i%6 == 0 && l.Vote.Winner != ringside.WinnerTie {
			l.JudgeKind, l.JudgeName, l.Weight = ringside.JudgeLLM, "gj", 3
		}
		if err := im.Add(ctx, l); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := im.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := db.write.Exec("DELETE FROM votes WHERE rowid % 13 = 0"); err != nil {
		t.Fatal(err)
	}
}

func collectRankVotes(t *testing.T, db *DB, span int64) []RankVote {
	t.Helper()
	ctx := context.Background()
	rq, err := db.newRankQuery(ctx, RankFilter{Time: true})
	if err != nil {
		t.Fatal(err)
	}
	var out []RankVote
	if err := db.eachRankVoteParallel(ctx, rq, RankFilter{}, span, func(v *RankVote) error {
		out = append(out, *v)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// Reading the votes in many small ranges on several connections gives
// exactly what one query in rowid order gives, in the same order.
func TestEachRankVoteRangesKeepOrder(t *testing.T) {
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	importLines(t, db, 300)
	whole := collectRankVotes(t, db, 1<<40)
	if want := 300 - 300/13; len(whole) != want {
		t.Fatalf("%d votes, want %d", len(whole), want)
	}
	weighted := 0
	for _, v := range whole {
		if v.Weight == 3 && v.Judge == "llm:gj" {
			weighted++
		}
	}
	if weighted == 0 {
		t.Fatal("no weighted LLM vote read")
	}
	for _, span := range []int64{1, 7, 64} {
		if got := collectRankVotes(t, db, span); !reflect.DeepEqual(got, whole) {
			t.Fatalf("span %d: the votes differ from one query's", span)
		}
	}
	// An error from the callback stops the reading and comes back.
	stop := errors.New("stop")
	n := 0
	rq, _ := db.newRankQuery(context.Background(), RankFilter{})
	err = db.eachRankVoteParallel(context.Background(), rq, RankFilter{}, 5, func(*RankVote) error {
		if n++; n == 42 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 42 {
		t.Fatalf("err %v after %d votes", err, n)
	}
}
