package arena_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/arena"
)

// A model whose key is rejected is asked once, its failure is not stored
// (it says nothing of the model), the other models' work goes on, and a
// later run with the key fixed does what was left.
func TestRunStopsCallingAModelWhoseKeyIsRejected(t *testing.T) {
	for _, kind := range []string{ringside.ErrKindAuth, ringside.ErrKindUnreachable} {
		t.Run(kind, func(t *testing.T) {
			cs, fakes := contestants(3)
			var calls atomic.Int32
			var fixed atomic.Bool
			fakes[1].fn = func(ctx context.Context, req ringside.Request) (ringside.Result, error) {
				if fixed.Load() {
					return ringside.Result{Text: "fine", TokensIn: 1, TokensOut: 1}, nil
				}
				calls.Add(1)
				return ringside.Result{}, &ringside.GenerationError{Kind: kind, Err: errors.New("HTTP 401: bad key ($M2_KEY)")}
			}
			s := newMemStore()
			cfg := arena.Config{RunID: "r", Contestants: cs, Prompts: testPrompts(20), Samples: 1, Concurrency: 1, Store: s}
			plan, rep := mustRun(t, cfg)
			if n := calls.Load(); n != 1 {
				t.Errorf("the model was called %d times after its key was rejected, want 1", n)
			}
			if err := rep.Unusable["m2"]; ringside.GenerationErrorKind(err) != kind {
				t.Fatalf("Unusable = %v, want m2 with a %s failure", rep.Unusable, kind)
			}
			if rep.Failed != 0 {
				t.Errorf("Failed = %d, want 0: the operator's failure is not the model's", rep.Failed)
			}
			if len(rep.Benched) != 1 || rep.Benched[0] != "m2" {
				t.Errorf("Benched = %v, want [m2]", rep.Benched)
			}
			for _, g := range s.gens {
				if g.Model == "m2" {
					t.Fatalf("a generation of the unusable model was stored: %+v", g)
				}
			}
			if want := plan.PerModel["m2"]; rep.Skipped != want {
				t.Errorf("Skipped = %d, want all %d of m2's generations", rep.Skipped, want)
			}
			if len(fakes[0].callCounts()) != 20 || len(fakes[2].callCounts()) != 20 {
				t.Errorf("the other models did not finish: %d and %d prompts", len(fakes[0].callCounts()), len(fakes[2].callCounts()))
			}

			fixed.Store(true)
			_, rep = mustRun(t, cfg)
			if len(rep.Unusable) != 0 || rep.Generations != 20 {
				t.Errorf("rerun with the key fixed: %+v, want m2's 20 generations", rep)
			}
			checkComplete(t, s, cfg)
		})
	}
}
