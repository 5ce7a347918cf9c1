package arena

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/ringside-eval/ringside"
)

// Observer is told how a run progresses. Its functions are called one at a
// time, never concurrently, so they need no locking of their own; they
// should return quickly, since the runner waits for them. Either may be nil.
type Observer struct {
	// Generation is called after each generation is stored (Output set).
	Generation func(g *ringside.Generation)
	// Notice is called when the breaker pauses or benches a model.
	Notice func(Notice)
}

// Report is what one Execute did.
type Report struct {
	Generations int // stored now
	Failed      int // of those, how many ended in an error
	Battles     int // stored now
	// Conflicts counts generations another process stored first; the
	// battles they would have completed are stored by the next Prepare.
	Conflicts int
	// Benched lists the models the breaker gave up on; Skipped counts the
	// generations they were not asked for. Both are left for the next run.
	Benched []string
	Skipped int
	// Interrupted counts generations cut short by cancellation; they are
	// not stored, so the next run produces them.
	Interrupted int
	// Unusable holds, by model, the first failure that was the operator's
	// to fix (a rejected key, an unreachable server: see
	// ringside.OperatorError). Such failures are not stored, so they do
	// not count in the model's error rate and the next run asks again;
	// the model is benched at once.
	Unusable map[string]error
}

// execution is the state of one Execute.
type execution struct {
	r      *Runner
	ctx    context.Context
	cancel context.CancelCauseFunc
	gate   *Gate
	obs    Observer

	mu  sync.Mutex // guards rep and serialises obs
	rep Report
}

// Execute does the plan's work: it stores the ready battles, then plays
// the rounds, several at a time within the limits, each round's
// generations released together, each stored with the battles it completes
// as soon as it ends. It returns when all is done, or when ctx is done (its
// error then) or the store fails (that error): the work stored until then
// stays stored and a new Prepare picks up the rest.
func (r *Runner) Execute(ctx context.Context, plan *Plan, obs Observer) (Report, error) {
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	x := &execution{r: r, ctx: runCtx, cancel: cancel, obs: obs}
	perModel := map[string]int{}
	for name, c := range r.byName {
		perModel[name] = c.Model.Concurrency
	}
	x.gate = NewGate(GateOptions{
		Global: plan.Concurrency, PerModel: perModel, Breaker: r.cfg.Breaker,
		Now: r.cfg.Now, After: r.cfg.After, OnNotice: x.notice,
	})

	if len(plan.ready) > 0 {
		n, err := r.cfg.Store.SaveRunBattles(runCtx, plan.ready)
		if err != nil {
			return x.rep, err
		}
		x.rep.Battles += n
	}

	// A window of rounds larger than can run at once waits at the gate, so
	// that when the next round in order is blocked (its model paused or at
	// its own limit) a later one can use the free slots.
	window := make(chan struct{}, 2*plan.Concurrency+1)
	var wg sync.WaitGroup
dispatch:
	for _, t := range plan.tasks {
		select {
		case window <- struct{}{}:
		case <-runCtx.Done():
			break dispatch
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-window }()
			x.play(t)
		}()
	}
	wg.Wait()

	x.mu.Lock()
	defer x.mu.Unlock()
	x.rep.Benched = x.gate.Benched()
	if runCtx.Err() != nil {
		return x.rep, context.Cause(runCtx)
	}
	return x.rep, nil
}

// play runs one round: it waits for slots for all the round's missing
// generations, then starts them together.
func (x *execution) play(t *task) {
	models, err := x.gate.Acquire(x.ctx, t.need)
	if err != nil {
		return
	}
	if skipped := len(t.need) - len(models); skipped > 0 {
		x.mu.Lock()
		x.rep.Skipped += skipped
		x.mu.Unlock()
	}
	if len(models) == 0 {
		return
	}
	pr := t.round.Prompt
	req := ringside.Request{PromptID: pr.ID, Sample: t.round.Sample, Messages: pr.Messages, Reference: pr.Reference}
	entries := make([]Entry, len(models))
	for i, name := range models {
		c := x.r.byName[name]
		entries[i] = Entry{Streamer: c.Streamer, Params: c.Model.Params, OnDone: func(o Outcome) { x.finish(t, c, o) }}
	}
	StartTogether(x.ctx, x.r.cfg.Now, req, entries)
}

// finish stores one side's generation with the battles it completes.
func (x *execution) finish(t *task, c *Contestant, o Outcome) {
	name := c.Model.Name
	if o.Err != nil && x.ctx.Err() != nil {
		// Cut short by our own cancellation: not a result, and nothing
		// the breaker should hold against the model.
		x.gate.Release(name, context.Canceled)
		x.mu.Lock()
		x.rep.Interrupted++
		x.mu.Unlock()
		return
	}
	x.gate.Release(name, o.Err)
	if ringside.OperatorError(ringside.GenerationErrorKind(o.Err)) {
		x.unusable(name, o.Err)
		return
	}
	g := x.r.generation(t, c, o)

	t.mu.Lock()
	t.outputs[name] = g.Output
	var battles []*ringside.Battle
	var rest []Pair
	for _, p := range t.pending {
		other := p.A
		if other == name {
			other = p.B
		} else if p.B != name {
			rest = append(rest, p)
			continue
		}
		if t.gens[other] == "" {
			rest = append(rest, p)
			continue
		}
		battles = append(battles, x.r.battle(t, p))
	}
	// A generation that ended just as the run was cancelled is complete
	// and is kept: its save must not be cancelled with the run.
	err := x.r.cfg.Store.SaveRunGeneration(context.WithoutCancel(x.ctx), g, battles)
	if err == nil {
		t.gens[name] = g.ID
		t.pending = rest
	} else {
		delete(t.outputs, name)
	}
	if len(t.pending) == 0 {
		// The round's battles are all stored: its outputs are needed no
		// more, and a run holds many rounds.
		clear(t.outputs)
	}
	t.mu.Unlock()

	x.mu.Lock()
	defer x.mu.Unlock()
	switch {
	case ringside.ErrorCode(err) == ringside.ECONFLICT:
		x.rep.Conflicts++
	case err != nil:
		x.cancel(err)
	default:
		x.rep.Generations++
		if g.Failed() {
			x.rep.Failed++
		}
		x.rep.Battles += len(battles)
		if x.obs.Generation != nil {
			x.obs.Generation(g)
		}
	}
}

// unusable records a failure that says nothing about the model: the
// generation is left undone, as if never asked for.
func (x *execution) unusable(name string, err error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.rep.Skipped++
	if x.rep.Unusable == nil {
		x.rep.Unusable = map[string]error{}
	}
	if x.rep.Unusable[name] == nil {
		x.rep.Unusable[name] = err
	}
}

func (x *execution) notice(n Notice) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.obs.Notice != nil {
		x.obs.Notice(n)
	}
}

// generation is the record of one side's outcome.
func (r *Runner) generation(t *task, c *Contestant, o Outcome) *ringside.Generation {
	g := NewGeneration(c.Model, r.cfg.RunID, t.round.Prompt.ID, t.round.Sample, o)
	g.PromptSet = t.round.Prompt.Set
	return g
}

// NewGeneration is the record of one side's outcome, for a run (runID set)
// or a live battle: timings in milliseconds, cost from the model's prices,
// and the error as one of ringside.ErrorKinds, so that a provider's odd
// failure never makes the record itself invalid.
func NewGeneration(m ringside.Model, runID, promptID string, sample int, o Outcome) *ringside.Generation {
	res := o.Result
	latency := res.Total
	if latency <= 0 && !o.Ended.IsZero() {
		// The provider timed nothing (a failure before the request left):
		// our own measure is the best there is.
		latency = o.Ended.Sub(o.Started)
	}
	in, out := max(res.TokensIn, 0), max(res.TokensOut, 0)
	g := &ringside.Generation{
		RunID: runID, PromptID: promptID, Model: m.Name, Sample: sample,
		Output: res.Text, TTFTMs: ms(res.TTFT), LatencyMs: ms(latency),
		TokensIn: in, TokensOut: out, TokensEstimated: res.TokensEstimated,
		CostUSD: m.Cost(in, out), FinishReason: res.FinishReason, CreatedAt: o.Ended,
	}
	if o.Err != nil {
		g.ErrorKind = ringside.GenerationErrorKind(o.Err)
		if !slices.Contains(ringside.ErrorKinds, g.ErrorKind) {
			// An unknown kind from a provider must not cost the record.
			g.ErrorKind = ringside.ErrKindBadResponse
		}
		g.Error = clip(o.Err.Error(), 1000)
	}
	return g
}

func ms(d time.Duration) float64 { return max(float64(d)/float64(time.Millisecond), 0) }

// clip shortens s to at most n bytes without splitting a UTF-8 sequence.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
