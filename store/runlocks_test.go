package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/store"
)

func TestRunLockIsHeldByOneOwnerUntilItsHolderIsGone(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	now := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	db.Now = func() time.Time { return now }
	run := mustCreateRun(t, db)
	a := store.RunLock{RunID: run.ID, Owner: "a", PID: 100, Host: "box"}
	b := store.RunLock{RunID: run.ID, Owner: "b", PID: 200, Host: "box"}
	var asked []store.RunLock
	alive := func(held store.RunLock) bool { asked = append(asked, held); return false }
	gone := func(store.RunLock) bool { return true }

	if err := db.LockRun(ctx, a, alive); err != nil {
		t.Fatal(err)
	}
	if len(asked) != 0 {
		t.Errorf("a free lock asked whether a holder is gone: %v", asked)
	}
	now = now.Add(time.Minute)
	err := db.LockRun(ctx, b, alive)
	if ringside.ErrorCode(err) != ringside.ECONFLICT || !strings.Contains(err.Error(), "pid 100 on box") {
		t.Fatalf("second owner: %v, want ECONFLICT naming pid 100 on box", err)
	}
	if len(asked) != 1 || asked[0].Owner != "a" || !asked[0].HeartbeatAt.Equal(now.Add(-time.Minute)) {
		t.Errorf("stale was asked about %+v, want a's lock with its heartbeat", asked)
	}
	// The holder may take its own lock again (a renewal), and renew.
	if err := db.LockRun(ctx, a, alive); err != nil {
		t.Fatalf("owner retaking its lock: %v", err)
	}
	if err := db.RenewRunLock(ctx, run.ID, "a"); err != nil {
		t.Fatal(err)
	}
	// Its holder gone, the lock passes to b; a finds out at its next renewal.
	if err := db.LockRun(ctx, b, gone); err != nil {
		t.Fatalf("taking over a stale lock: %v", err)
	}
	if err := db.RenewRunLock(ctx, run.ID, "a"); ringside.ErrorCode(err) != ringside.ECONFLICT {
		t.Fatalf("renewal by the old holder: %v, want ECONFLICT", err)
	}
	// a's unlock leaves b's lock alone; b's frees it.
	if err := db.UnlockRun(ctx, run.ID, "a"); err != nil {
		t.Fatal(err)
	}
	if err := db.LockRun(ctx, a, alive); ringside.ErrorCode(err) != ringside.ECONFLICT {
		t.Fatalf("after the old holder's unlock: %v, want b still holding", err)
	}
	if err := db.UnlockRun(ctx, run.ID, "b"); err != nil {
		t.Fatal(err)
	}
	if err := db.LockRun(ctx, a, alive); err != nil {
		t.Fatalf("a free lock: %v", err)
	}
}
