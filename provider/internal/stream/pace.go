package stream

import (
	"context"
	"math"
	"time"
)

// Pacer sleeps through the timeline of a simulated or replayed stream, so
// that its deltas reach the caller when the timeline says. Offsets are in the
// timeline's own time; speed divides them into real time (2 plays the
// timeline twice as fast). The pacer aims at absolute points, not at gaps, so
// that the overshoot of each sleep does not add up over a long answer.
type Pacer struct {
	ctx   context.Context
	sleep func(context.Context, time.Duration) error
	now   func() time.Time
	start time.Time
	speed float64
}

// NewPacer starts a timeline now. A speed of 0 or less, or +Inf, plays it
// at once.
func NewPacer(ctx context.Context, o Options, speed float64) *Pacer {
	return &Pacer{ctx: ctx, sleep: o.Sleep, now: o.Now, start: o.Now(), speed: speed}
}

// Until waits until offset of timeline time has passed since the start. It
// returns the generation error for a done context.
func (p *Pacer) Until(offset time.Duration) error {
	if err := p.ctx.Err(); err != nil {
		return ContextError(p.ctx)
	}
	if p.speed <= 0 || math.IsInf(p.speed, 1) {
		return nil
	}
	target := p.start.Add(time.Duration(float64(offset) / p.speed))
	if d := target.Sub(p.now()); d > 0 {
		if err := p.sleep(p.ctx, d); err != nil {
			return ContextError(p.ctx)
		}
	}
	return nil
}
