package server

import (
	"math/rand/v2"
	"time"

	"github.com/ringside-eval/ringside"
)

// Option configures a Server beyond its config file: the dependencies that
// tests replace and that cmd builds (the models' streamers).
type Option func(*options)

type options struct {
	streamers map[string]ringside.Streamer
	now       func() time.Time
	rand      rand.Source
	// eventPoll is how often event streams look for changes made by other
	// processes; tests lengthen it to show that votes are told at once.
	eventPoll time.Duration
}

// WithStreamers gives live judging its models, by configured model name.
// Without them live judging has nothing to deal.
func WithStreamers(streamers map[string]ringside.Streamer) Option {
	return func(o *options) { o.streamers = streamers }
}

// WithClock replaces the clock.
func WithClock(now func() time.Time) Option {
	return func(o *options) { o.now = now }
}

// WithRandSource replaces the random source that draws prompts, pairs and
// stored battles; a seeded one makes dealing reproducible.
func WithRandSource(src rand.Source) Option {
	return func(o *options) { o.rand = src }
}

func buildOptions(opts []Option) *options {
	o := &options{now: time.Now, eventPoll: eventPoll}
	for _, opt := range opts {
		opt(o)
	}
	if o.rand == nil {
		o.rand = rand.NewPCG(rand.Uint64(), rand.Uint64())
	}
	return o
}
