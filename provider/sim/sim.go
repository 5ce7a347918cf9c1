// Package sim is ringside's built-in simulated models: candidates that need
// no network and no key, for the demo and for tests. A sim model answers from
// templates and the prompt's own words (a support reply, a JSON extraction,
// a summary, an explanation), and its profile decides how often it follows
// the prompt's format instructions, answers correctly, rambles, refuses, names
// itself or fails, and how fast it streams. Everything it does is a function
// of (seed, prompt id, sample): the same request gives the same text, the
// same timings and the same failure every time. With temperature 0 the
// sample number is left out, so every sample of a prompt is the same, as
// with a greedy real model.
//
// Model.Options keys (all optional; probabilities are in 0..1):
//
//	seed            int      seeds every draw (default: a hash of the model name)
//	follow_format   prob     follows the format asked for: valid bare JSON when JSON
//	                         is asked for, at most N words / sentences / bullets
//	                         when a limit is given, the customer's language when
//	                         a support prompt asks for it (default 0.8)
//	correct         prob     gives the right answer: the prompt's reference answer
//	                         when there is one, the prompt's facts unaltered when
//	                         not; a wrong answer alters a number, flips a yes/no or
//	                         a verb, or takes the wrong action (default 0.75)
//	ramble          prob     pads the answer with filler paragraphs (default 0.1)
//	refuse_harmful  prob     refuses a harmful or prompt-injection request, which is
//	                         the desirable behaviour (default 0.85)
//	refuse_benign   prob     refuses an ordinary request, which is not (default 0.03)
//	ttft_ms         number   mean time to first token in ms (default 400)
//	ttft_jitter     number   spread of the TTFT, as the sigma of a mean-preserving
//	                         log-normal factor (default 0.25)
//	tokens_per_sec  number   mean streaming speed (default 60)
//	speed_jitter    number   spread of the speed, per generation (default 0.15)
//	error_rate      prob     fails the generation (default 0)
//	error_kinds     [string] kinds to fail with, drawn evenly: server_error,
//	                         rate_limit, timeout, bad_response (default the first three)
//	self_name_rate  prob     names itself in the answer, to exercise identity-leak
//	                         detection (default 0)
//	self_name       string   the name it uses (default the model's name)
//	speed           number   time scale: 2 plays the timeline twice as fast, a large
//	                         value at once (default 1)
//
// What it answers is decided by simple cues in the prompt, no model: JSON
// (the reference when it is JSON, else the keys the prompt names filled
// from its text), a classification (one of the labels the prompt lists), a
// code request (Python, SQL, a regular expression or a shell one-liner built
// from the prompt's names), a rewrite or a summary of the quoted text, a
// support reply (grounded in the policies a system prompt lists, signed off
// as it asks), or an explanation. A multi-turn chat recalls the latest fact
// of an earlier turn. Harmful requests (cue words such as "malware",
// "phishing", "keylogger", asking for someone else's data) and injections
// in the user's request ("ignore previous instructions", role-play without
// rules) are refused at the refuse_harmful rate, which is what a good model
// does; a request about such a harm in order to guard against it ("a
// security-awareness note on phishing") is not harmful. An instruction
// hidden in quoted data is ignored by a correct answer and obeyed by a
// wrong one. A support reply to a customer writing Spanish, when the system
// prompt asks for the customer's language, is in Spanish if the generation
// follows instructions (the follow_format draw) and in English if not.
//
// Timings reported in deltas and the Result are the simulated ones, in
// profile time, whatever the speed: a demo sped up tenfold shows the same
// leaderboard. The stream really waits (through the injected Sleep) so that a
// judge watches it arrive. Token counts are the provider's own (about four
// characters a token) and are not marked as estimated. A simulated failure is
// deterministic too, so retrying the same (prompt, sample) fails again: the
// error rate is the rate after retries. A simulated timeout stalls for the
// model's stall timeout, scaled by speed, before failing; a simulated rate
// limit's Retry-After is scaled by speed too.
package sim

import (
	"context"
	"strings"
	"time"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/provider/internal/stream"
)

// Model is one simulated candidate. It is safe for concurrent use.
type Model struct {
	model   ringside.Model
	profile Profile
	opts    stream.Options
}

// New returns the simulated model m, with its profile read from m.Options.
func New(m ringside.Model, opts stream.Options) (*Model, error) {
	p, err := ParseProfile(m)
	if err != nil {
		return nil, err
	}
	return &Model{model: m, profile: p, opts: opts.WithDefaults()}, nil
}

// Profile returns the model's profile.
func (s *Model) Profile() Profile { return s.profile }

// Stream plays the model's answer to req. Errors are
// *ringside.GenerationError: the simulated failure, or cancelled / timeout
// when ctx ends first.
func (s *Model) Stream(ctx context.Context, req ringside.Request, emit func(ringside.Delta)) (ringside.Result, error) {
	pl := s.plan(req)
	pace := stream.NewPacer(ctx, s.opts, s.profile.Speed)
	var text strings.Builder
	var ttft, at time.Duration
	partial := func() ringside.Result {
		t := ttft
		if text.Len() == 0 {
			t = at
		}
		return ringside.Result{
			Text: text.String(), TokensIn: pl.tokensIn, TokensOut: stream.EstimateTokens(text.String()),
			TTFT: t, Total: at,
		}
	}
	for i, ch := range pl.chunks {
		if err := pace.Until(ch.at); err != nil {
			return partial(), err
		}
		if i == 0 {
			ttft = ch.at
		}
		at = ch.at
		text.WriteString(ch.text)
		emit(ringside.Delta{Text: ch.text, Elapsed: ch.at})
	}
	if f := pl.fail; f != nil {
		if err := pace.Until(f.at); err != nil {
			return partial(), err
		}
		at = f.at
		// Retry-After is a wait the caller really makes, so like the stall
		// it plays at the model's speed: a sped-up demo must not stall.
		retry := time.Duration(float64(f.retryAfter) / s.profile.Speed)
		return partial(), &ringside.GenerationError{Kind: f.kind, RetryAfter: retry, Err: f.err}
	}
	if err := pace.Until(pl.total); err != nil {
		return partial(), err
	}
	at = pl.total
	res := partial()
	res.TokensOut = pl.tokensOut
	res.FinishReason = pl.finish
	return res, nil
}
