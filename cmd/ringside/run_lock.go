package main

import (
	"context"
	"os"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/store"
)

// Run locks: one process at a time does a run's work. The holder renews its
// lock every lockHeartbeat; a lock not renewed for lockStaleAfter, or held
// by a process of this machine that no longer exists (killed with -9), is
// taken over by the next `ringside run`.
const (
	lockHeartbeat  = 5 * time.Second
	lockStaleAfter = 30 * time.Second
)

// runLock is this process's hold on a run. Its context is cancelled when
// the hold is lost (another process took the run over), so the work stops.
type runLock struct {
	db    *store.DB
	runID string
	owner string
	ctx   context.Context
	lost  context.CancelCauseFunc
	stop  chan struct{}
	done  sync.WaitGroup
	once  sync.Once
}

// lockRun takes the run's lock or says who holds it (ECONFLICT, named in
// the message with the way out).
func lockRun(ctx context.Context, db *store.DB, runName, runID string) (*runLock, error) {
	host, _ := os.Hostname()
	l := store.RunLock{RunID: runID, Owner: uuid.NewString(), PID: os.Getpid(), Host: host}
	err := db.LockRun(ctx, l, func(held store.RunLock) bool {
		if held.Host == host && !processAlive(held.PID) {
			return true
		}
		return db.Now().Sub(held.HeartbeatAt) > lockStaleAfter
	})
	if ringside.ErrorCode(err) == ringside.ECONFLICT {
		return nil, ringside.Errorf(ringside.ECONFLICT, "run %q: %s; wait for it to finish, or give this one another name with --run",
			runName, ringside.ErrorMessage(err))
	}
	if err != nil {
		return nil, err
	}
	lctx, lost := context.WithCancelCause(ctx)
	rl := &runLock{db: db, runID: runID, owner: l.Owner, ctx: lctx, lost: lost, stop: make(chan struct{})}
	rl.done.Add(1)
	go rl.heartbeat()
	return rl, nil
}

func (rl *runLock) heartbeat() {
	defer rl.done.Done()
	tick := time.NewTicker(lockHeartbeat)
	defer tick.Stop()
	for {
		select {
		case <-rl.stop:
			return
		case <-tick.C:
		}
		err := rl.db.RenewRunLock(context.WithoutCancel(rl.ctx), rl.runID, rl.owner)
		if ringside.ErrorCode(err) == ringside.ECONFLICT {
			rl.lost(ringside.Errorf(ringside.ECONFLICT, "%s; stopped so that no generation is asked for twice", ringside.ErrorMessage(err)))
			return
		}
	}
}

// release stops the heartbeat and lets go of the lock; only the first call
// does anything.
func (rl *runLock) release() {
	rl.once.Do(func() {
		close(rl.stop)
		rl.done.Wait()
		_ = rl.db.UnlockRun(context.WithoutCancel(rl.ctx), rl.runID, rl.owner)
		rl.lost(nil)
	})
}
