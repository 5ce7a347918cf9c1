package config

import (
	"math"
	"slices"
	"strings"
	"time"

	"github.com/ringside-eval/ringside"
)

// Judging holds the settings of live human judging: the judge page and its
// websocket (see docs/protocol.md).
type Judging struct {
	// Source is where battles come from: "live" runs two configured models
	// on a prompt when a judge asks; "stored" deals battles that
	// `ringside run` produced.
	Source string `toml:"source"`
	// Sources mixes sources by weight ({live = 3, chat = 1}): each deal
	// draws one. When set, it replaces Source.
	Sources map[string]float64 `toml:"sources"`
	// Models are the candidates dealt to people (see Config.JudgingPool);
	// Weights bias the draw, over run.weights.
	Models  []string           `toml:"models"`
	Weights map[string]float64 `toml:"weights"`
	// ChatSet is the prompt set judges' own questions are stored in.
	ChatSet string      `toml:"chat_set"`
	Chat    ChatJudging `toml:"chat"`
	// Runs limits stored battles to these runs (all runs when empty).
	Runs []string `toml:"runs"`
	// Reveal is when a judge learns which model wrote which side:
	// "after_vote", "after_session" (when the quota is met or the judge
	// ends the session) or "never".
	Reveal string `toml:"reveal"`
	// Pace is how stored battles reach the judge: "recorded" (replayed at
	// the pace the generations were recorded, and shown like live ones) or
	// "instant" (both outputs in full, at once).
	Pace string `toml:"pace"`
	// DisplayDelay and DisplayRate blind the judge to the models' speed:
	// both sides start showing together, no sooner than DisplayDelay after
	// the battle is dealt and once both have their first words, and both
	// then show at DisplayRate characters (UTF-8 bytes) a second.
	DisplayDelay time.Duration `toml:"display_delay"`
	DisplayRate  float64       `toml:"display_rate"`
	// PaceToSlower is the old, optional pacing; it is refused with a
	// pointer to DisplayRate, rather than left to mean nothing.
	PaceToSlower *bool `toml:"pace_to_slower"`
	// VoteOpens is when a judge may vote: "end" (both sides finished) or
	// "partial" (each side finished or showed VoteOpenChars characters).
	VoteOpens     string `toml:"vote_opens"`
	VoteOpenChars int    `toml:"vote_open_chars"`
	// MaxReasonChars bounds a vote's free-text reason.
	MaxReasonChars int `toml:"max_reason_chars"`
	// MaxMessageBytes is the largest frame a judge may send; a larger one
	// (up to 16 times this) is answered with an error and dropped, and the
	// connection stays open; beyond that the connection is closed.
	MaxMessageBytes int `toml:"max_message_bytes"`
	// SendBuffer is how many frames may wait for a slow judge before the
	// connection is dropped (the judge then reconnects and resumes).
	SendBuffer   int           `toml:"send_buffer"`
	PingInterval time.Duration `toml:"ping_interval"`
	// PongTimeout is how long a silent connection is kept.
	PongTimeout  time.Duration `toml:"pong_timeout"`
	WriteTimeout time.Duration `toml:"write_timeout"`
	// ResumeWindow is how long a disconnected judge's battle stays in
	// memory, streaming, for the judge to come back to.
	ResumeWindow time.Duration `toml:"resume_window"`
	// MessagesPerSecond and MessageBurst limit what one connection may send.
	MessagesPerSecond float64     `toml:"messages_per_second"`
	MessageBurst      int         `toml:"message_burst"`
	Open              OpenJudging `toml:"open"`
	// Pairing is how pairs of models are chosen: "adaptive" deals the pair
	// whose next vote does most for separating the top FocusTop models
	// (see package pairing), "uniform" every pair equally often.
	Pairing string `toml:"pairing"`
	// FocusTop is how many top models the decision separates from each
	// other and from the rest; 0 means the whole ranking.
	FocusTop int `toml:"focus_top"`
	// GoldRate is the share of deals that are gold battles (0: none),
	// looking like any other battle; see gold.go in package judging.
	GoldRate float64 `toml:"gold_rate"`
}

// OpenJudging lets anyone judge without an invite, under a cookie identity
// and rate limits.
type OpenJudging struct {
	Enabled bool `toml:"enabled"`
	// Quota is the number of battles an anonymous judge is asked for (0 = no limit).
	Quota int `toml:"quota"`
	// IPPerMinute and IPBurst limit page loads and connections per client
	// address for anonymous judges.
	IPPerMinute float64 `toml:"ip_per_minute"`
	IPBurst     int     `toml:"ip_burst"`
	// BattlesPerMinute limits how fast one anonymous judge is dealt battles.
	BattlesPerMinute float64 `toml:"battles_per_minute"`
}

// Judging sources, reveal policies, paces and vote openings.
const (
	SourceLive   = "live"
	SourceStored = "stored"

	RevealAfterVote    = "after_vote"
	RevealAfterSession = "after_session"
	RevealNever        = "never"

	PaceRecorded = "recorded"
	PaceInstant  = "instant"

	VoteOpensEnd     = "end"
	VoteOpensPartial = "partial"

	PairingAdaptive = "adaptive"
	PairingUniform  = "uniform"
)

// DefaultJudging returns the judging settings of a config that sets none.
func DefaultJudging() Judging {
	return Judging{
		Source: SourceLive, Reveal: RevealAfterVote, Pace: PaceRecorded,
		DisplayDelay: 2 * time.Second, DisplayRate: 100,
		VoteOpens: VoteOpensEnd, VoteOpenChars: 400, MaxReasonChars: 2000,
		MaxMessageBytes: 16 << 10, SendBuffer: 256,
		PingInterval: 25 * time.Second, PongTimeout: 60 * time.Second, WriteTimeout: 10 * time.Second,
		ResumeWindow:      10 * time.Minute,
		MessagesPerSecond: 20, MessageBurst: 40,
		Open:    OpenJudging{IPPerMinute: 30, IPBurst: 20, BattlesPerMinute: 20},
		Pairing: PairingAdaptive, FocusTop: 3,
		ChatSet: DefaultChatSet, Chat: DefaultChat(),
	}
}

// MinDisplayRate is the slowest display_rate allowed, in characters a
// second: about reading speed, so a judge is never kept waiting on the text.
const MinDisplayRate = 20

// Validate checks the judging settings; errors name the key.
func (j *Judging) Validate() error {
	if err := j.validatePacing(); err != nil {
		return err
	}
	if err := j.validateSources(); err != nil {
		return err
	}
	for _, c := range []struct {
		key, value string
		allowed    []string
	}{
		{"source", j.Source, []string{SourceLive, SourceStored, SourceChat}},
		{"reveal", j.Reveal, []string{RevealAfterVote, RevealAfterSession, RevealNever}},
		{"pace", j.Pace, []string{PaceRecorded, PaceInstant}},
		{"vote_opens", j.VoteOpens, []string{VoteOpensEnd, VoteOpensPartial}},
		{"pairing", j.Pairing, []string{PairingAdaptive, PairingUniform}},
	} {
		if !slices.Contains(c.allowed, c.value) {
			return ringside.FieldError("judging."+c.key, "%q is not one of %s", c.value, strings.Join(c.allowed, ", "))
		}
	}
	for _, c := range []struct {
		key   string
		value int
		min   int
	}{
		{"vote_open_chars", j.VoteOpenChars, 0},
		{"max_reason_chars", j.MaxReasonChars, 0},
		{"max_message_bytes", j.MaxMessageBytes, 1024},
		{"send_buffer", j.SendBuffer, 8},
		{"message_burst", j.MessageBurst, 1},
		{"open.quota", j.Open.Quota, 0},
		{"open.ip_burst", j.Open.IPBurst, 1},
		{"focus_top", j.FocusTop, 0},
	} {
		if c.value < c.min {
			return ringside.FieldError("judging."+c.key, "must be at least %d", c.min)
		}
	}
	for _, c := range []struct {
		key   string
		value time.Duration
	}{
		{"ping_interval", j.PingInterval}, {"pong_timeout", j.PongTimeout},
		{"write_timeout", j.WriteTimeout}, {"resume_window", j.ResumeWindow},
	} {
		if c.value <= 0 {
			return ringside.FieldError("judging."+c.key, "must be positive")
		}
	}
	if !(j.GoldRate >= 0 && j.GoldRate <= 1) {
		return ringside.FieldError("judging.gold_rate", "must be a share from 0 to 1")
	}
	if j.PongTimeout <= j.PingInterval {
		return ringside.FieldError("judging.pong_timeout", "must be longer than ping_interval (%s)", j.PingInterval)
	}
	for _, c := range []struct {
		key  string
		rate float64
	}{
		{"messages_per_second", j.MessagesPerSecond}, {"open.ip_per_minute", j.Open.IPPerMinute},
		{"open.battles_per_minute", j.Open.BattlesPerMinute},
	} {
		if c.rate <= 0 {
			return ringside.FieldError("judging."+c.key, "must be positive")
		}
	}
	return nil
}

func (j *Judging) validatePacing() error {
	if j.PaceToSlower != nil {
		return ringside.FieldError("judging.pace_to_slower", "was removed: both sides are now always shown together at display_rate, whatever the models' speed (docs/protocol.md, Pacing)")
	}
	if j.DisplayDelay < 0 {
		return ringside.FieldError("judging.display_delay", "must not be negative")
	}
	if !(j.DisplayRate >= MinDisplayRate) || math.IsInf(j.DisplayRate, 1) {
		return ringside.FieldError("judging.display_rate", "must be a number of characters a second, at least %d", MinDisplayRate)
	}
	return nil
}
