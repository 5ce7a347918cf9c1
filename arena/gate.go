package arena

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/ringside-eval/ringside"
)

// Breaker is how a model that keeps failing is backed off, circuit-breaker
// style: after Threshold consecutive failures the model is paused for
// BaseDelay, then allowed one request at a time (half-open); each further
// failure pauses it again for twice as long, up to MaxDelay; a success
// closes the breaker. After GiveUpAfter consecutive failures the model is
// benched: nothing more is asked of it until the Gate is made anew (for a
// run, the next invocation), so a dead endpoint costs minutes, not hours.
// A wrong key or an address nobody answers at (ringside.OperatorError)
// benches the model at its first failure. A server's Retry-After always pauses the model at
// least that long.
type Breaker struct {
	Threshold   int           // default 3
	BaseDelay   time.Duration // default 2s
	MaxDelay    time.Duration // default 2m
	GiveUpAfter int           // default 20; negative never gives up
}

func (b Breaker) withDefaults() Breaker {
	if b.Threshold <= 0 {
		b.Threshold = 3
	}
	if b.BaseDelay <= 0 {
		b.BaseDelay = 2 * time.Second
	}
	if b.MaxDelay <= 0 {
		b.MaxDelay = 2 * time.Minute
	}
	if b.GiveUpAfter == 0 {
		b.GiveUpAfter = 20
	}
	return b
}

// Notice tells an observer that the breaker paused or benched a model.
type Notice struct {
	Model    string
	Failures int           // consecutive failures so far
	Pause    time.Duration // how long the model is paused (0 when benched)
	// RetryAfter is the wait the server asked for, when it asked.
	RetryAfter time.Duration
	Benched    bool
	Err        error // the failure that caused it
}

// GateOptions configure a Gate.
type GateOptions struct {
	// Global caps the requests in flight across all models (at least 1).
	Global int
	// PerModel caps one model's requests in flight; missing or 0 means
	// only the global cap applies.
	PerModel map[string]int
	Breaker  Breaker
	// Now is the clock and After the timer (nil: time.Now, time.After).
	Now   func() time.Time
	After func(time.Duration) <-chan time.Time
	// OnNotice, when set, is told of every pause and bench. It is called
	// with the gate's lock released.
	OnNotice func(Notice)
}

// Gate admits requests under the concurrency limits and the breaker. It is
// safe for concurrent use; the live server may share one with a run.
type Gate struct {
	opts GateOptions

	mu       sync.Mutex
	inFlight int
	models   map[string]*modelGate
	// changed is closed and replaced whenever a slot frees or a breaker
	// changes, waking every waiter to re-check (a broadcast that, unlike
	// sync.Cond, can be selected on together with ctx and a timer).
	changed chan struct{}
}

type modelGate struct {
	inFlight    int
	failures    int // consecutive
	trips       int // pauses since the last success
	pausedUntil time.Time
	benched     bool
}

// NewGate returns a Gate with nothing in flight.
func NewGate(opts GateOptions) *Gate {
	opts.Global = max(opts.Global, 1)
	opts.Breaker = opts.Breaker.withDefaults()
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.After == nil {
		opts.After = time.After
	}
	return &Gate{opts: opts, models: map[string]*modelGate{}, changed: make(chan struct{})}
}

func (g *Gate) model(name string) *modelGate {
	m := g.models[name]
	if m == nil {
		m = &modelGate{}
		g.models[name] = m
	}
	return m
}

// Acquire waits until every model in models can take one more request and
// the global limit has room for all of them, then takes one slot per model
// at once, so that a round's requests can start together. Benched models
// are left out: it returns the models admitted, which is empty when all are
// benched. A request for more models than the global limit waits until
// nothing else is in flight rather than forever. Each admitted model must
// be given back with Release. Errors: ctx's.
func (g *Gate) Acquire(ctx context.Context, models []string) ([]string, error) {
	for {
		g.mu.Lock()
		admitted, wait := g.tryAcquire(models)
		changed := g.changed
		g.mu.Unlock()
		if admitted != nil {
			return admitted, nil
		}
		var timer <-chan time.Time
		if wait > 0 {
			timer = g.opts.After(wait)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-changed:
		case <-timer:
		}
	}
}

// tryAcquire takes the slots if it can. Otherwise it returns nil and, when
// a pause is what blocks, how long until the earliest pause ends.
func (g *Gate) tryAcquire(models []string) (admitted []string, wait time.Duration) {
	now := g.opts.Now()
	admitted = []string{}
	blocked := false
	for _, name := range models {
		m := g.model(name)
		if m.benched {
			continue
		}
		admitted = append(admitted, name)
		if d := m.pausedUntil.Sub(now); d > 0 {
			blocked = true
			if wait == 0 || d < wait {
				wait = d
			}
			continue
		}
		if limit := g.opts.PerModel[name]; limit > 0 && m.inFlight >= limit {
			blocked = true
		}
		// Half-open: a model whose breaker tripped is probed with one
		// request before it gets its full share again.
		if m.failures >= g.opts.Breaker.Threshold && m.inFlight > 0 {
			blocked = true
		}
	}
	need := len(admitted)
	if need > 0 && g.inFlight+need > g.opts.Global && g.inFlight > 0 {
		blocked = true
	}
	if blocked {
		return nil, wait
	}
	for _, name := range admitted {
		g.models[name].inFlight++
	}
	g.inFlight += need
	return admitted, 0
}

// Release gives back model's slot and tells the breaker how its request
// ended: err nil is a success; a cancelled request says nothing about the
// model and is not counted.
func (g *Gate) Release(model string, err error) {
	var notice *Notice
	g.mu.Lock()
	m := g.model(model)
	m.inFlight--
	g.inFlight--
	if err == nil {
		m.failures, m.trips = 0, 0
	} else if ringside.GenerationErrorKind(err) != ringside.ErrKindCancelled {
		notice = g.failed(model, m, err)
	}
	close(g.changed)
	g.changed = make(chan struct{})
	g.mu.Unlock()
	if notice != nil && g.opts.OnNotice != nil {
		g.opts.OnNotice(*notice)
	}
}

// failed counts a failure and pauses or benches the model when due.
func (g *Gate) failed(name string, m *modelGate, err error) *Notice {
	b := g.opts.Breaker
	now := g.opts.Now()
	m.failures++
	if m.benched {
		return nil // said once; requests in flight at the bench still end
	}
	// A rejected key or an address nobody answers at fails every request
	// the same way until the operator fixes it: one is enough to stop.
	if ringside.OperatorError(ringside.GenerationErrorKind(err)) ||
		(b.GiveUpAfter > 0 && m.failures >= b.GiveUpAfter) {
		m.benched = true
		return &Notice{Model: name, Failures: m.failures, Benched: true, Err: err}
	}
	var pause time.Duration
	// Failures of requests that were already in flight when the model was
	// paused are counted, but do not stretch the pause: only a failed
	// probe does.
	if m.failures >= b.Threshold && !now.Before(m.pausedUntil) {
		m.trips++
		pause = b.BaseDelay
		for i := 1; i < m.trips && pause < b.MaxDelay; i++ {
			pause *= 2
		}
		pause = min(pause, b.MaxDelay)
	}
	var asked time.Duration
	if ge := (*ringside.GenerationError)(nil); errors.As(err, &ge) {
		asked = ge.RetryAfter
	}
	pause = max(pause, asked)
	if pause <= 0 {
		return nil
	}
	if until := now.Add(pause); until.After(m.pausedUntil) {
		m.pausedUntil = until
	}
	return &Notice{Model: name, Failures: m.failures, Pause: pause, RetryAfter: asked, Err: err}
}

// Benched returns the models benched so far.
func (g *Gate) Benched() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []string
	for name, m := range g.models {
		if m.benched {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
