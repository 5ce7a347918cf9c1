package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/store"
)

func TestDealsAndVotesThroughTheGroupWriter(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	w := db.NewGroupWriter(8)
	defer w.Close()
	ana := &ringside.Judge{Kind: ringside.JudgeHuman, Name: "ana"}
	bob := &ringside.Judge{Kind: ringside.JudgeHuman, Name: "bob"}
	for i, j := range []*ringside.Judge{ana, bob} {
		if err := db.CreateJudge(ctx, j, fmt.Sprint("hash", i)); err != nil {
			t.Fatal(err)
		}
	}
	b := &ringside.Battle{Source: ringside.SourceLive, PromptID: "p", ModelA: "m1", ModelB: "m2"}
	if err := w.DealBattle(ctx, b, true, ana.ID); err != nil {
		t.Fatal(err)
	}
	if err := w.DealBattle(ctx, b, false, ana.ID); ringside.ErrorCode(err) != ringside.ECONFLICT {
		t.Fatalf("second deal to the same judge: %v", err)
	}
	if d, err := db.OpenDeal(ctx, ana.ID); err != nil || d.BattleID != b.ID {
		t.Fatalf("open deal %+v, %v", d, err)
	}

	vote := func(j *ringside.Judge, w2 ringside.Winner, open bool) (*ringside.Vote, error) {
		return w.CastVote(ctx, &ringside.Vote{BattleID: b.ID, JudgeID: j.ID, Winner: w2}, open)
	}
	if _, err := vote(bob, ringside.WinnerA, true); ringside.ErrorCode(err) != ringside.EUNAUTHORIZED {
		t.Fatalf("vote on a battle not dealt: %v", err)
	}
	if _, err := vote(ana, ringside.WinnerA, false); ringside.ErrorCode(err) != ringside.EINVALID {
		t.Fatalf("vote before voting opens: %v", err)
	}
	first, err := vote(ana, ringside.WinnerB, true)
	if err != nil || first.Winner != ringside.WinnerB {
		t.Fatalf("vote: %+v, %v", first, err)
	}
	again, err := vote(ana, ringside.WinnerA, true)
	if ringside.ErrorCode(err) != ringside.ECONFLICT || again == nil || again.Winner != ringside.WinnerB || again.ID != first.ID {
		t.Fatalf("second vote: %+v, %v", again, err)
	}
	if _, err := db.OpenDeal(ctx, ana.ID); ringside.ErrorCode(err) != ringside.ENOTFOUND {
		t.Fatalf("deal still open after the vote: %v", err)
	}
	if err := w.CloseDeal(ctx, b.ID, ana.ID, store.DealVoid); ringside.ErrorCode(err) != ringside.ECONFLICT {
		t.Fatalf("voiding a voted deal: %v", err)
	}

	// A failing write leaves the others of its group alone.
	var wg sync.WaitGroup
	errs := make([]error, 20)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				errs[i] = w.DealBattle(ctx, &ringside.Battle{Source: ringside.SourceLive, ModelA: "m1", ModelB: "m2"}, true, bob.ID)
			} else {
				errs[i] = w.DealBattle(ctx, &ringside.Battle{Source: ringside.SourceLive, ModelA: "m1", ModelB: "m2"}, true, "no-such-judge")
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if (i%2 == 0) != (err == nil) {
			t.Fatalf("write %d: %v", i, err)
		}
	}

	// Revoked judges cannot vote, even on a battle dealt before.
	b2 := &ringside.Battle{Source: ringside.SourceLive, ModelA: "m1", ModelB: "m2"}
	if err := w.DealBattle(ctx, b2, true, ana.ID); err != nil {
		t.Fatal(err)
	}
	if err := db.RevokeJudge(ctx, ana.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := w.CastVote(ctx, &ringside.Vote{BattleID: b2.ID, JudgeID: ana.ID, Winner: ringside.WinnerA}, true); ringside.ErrorCode(err) != ringside.EUNAUTHORIZED {
		t.Fatalf("vote by a revoked judge: %v", err)
	}
}

// BenchmarkGroupWriterBattle is the database work of one live battle:
// deal, store both generations, vote, from many judges at once.
func BenchmarkGroupWriterBattle(b *testing.B) {
	ctx := context.Background()
	db := MustOpenDB(b)
	w := db.NewGroupWriter(64)
	defer w.Close()
	judges := make([]*ringside.Judge, 64)
	for i := range judges {
		judges[i] = &ringside.Judge{Kind: ringside.JudgeHuman, Name: fmt.Sprint("j", i)}
		if err := db.CreateJudge(ctx, judges[i], fmt.Sprint("hash", i)); err != nil {
			b.Fatal(err)
		}
	}
	out := string(make([]byte, 800))
	var next sync.Mutex
	n := 0
	b.SetParallelism(32)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		next.Lock()
		j := judges[n%len(judges)]
		n++
		next.Unlock()
		for pb.Next() {
			bt := &ringside.Battle{Source: ringside.SourceLive, PromptID: "p", ModelA: "m1", ModelB: "m2"}
			if err := w.DealBattle(ctx, bt, true, j.ID); err != nil {
				b.Fatal(err)
			}
			ga := &ringside.Generation{PromptID: "p", Model: "m1", Output: out, LatencyMs: 10}
			gb := &ringside.Generation{PromptID: "p", Model: "m2", Output: out, LatencyMs: 10}
			if err := w.FinishLiveBattle(ctx, bt.ID, ga, gb, false); err != nil {
				b.Fatal(err)
			}
			if _, err := w.CastVote(ctx, &ringside.Vote{BattleID: bt.ID, JudgeID: j.ID, Winner: ringside.WinnerA}, true); err != nil {
				b.Fatal(err)
			}
		}
	})
}
