package config

import (
	"math"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/trust"
)

// Trust holds when a judge is flagged (package trust, `ringside judges`,
// the admin page), and so whose votes boards leave out by default.
type Trust struct {
	// MinGoldAccuracy: flagged when gold accuracy is surely (upper 95 %
	// bound) below it.
	MinGoldAccuracy float64 `toml:"min_gold_accuracy"`
	// ImprobableAlpha is the improbable-votes test's level over all its
	// looks (0 turns the test off).
	ImprobableAlpha float64 `toml:"improbable_alpha"`
	// PositionP and PositionMinVotes: flagged for favouring a side when
	// the binomial p-value of its share of a is below PositionP over at
	// least PositionMinVotes a/b votes.
	PositionP        float64 `toml:"position_p"`
	PositionMinVotes int     `toml:"position_min_votes"`
	// ReadSecondsPer1000 is the least time reading 1,000 characters of
	// output takes (0 turns the speed flag off); MinTimedVotes how many
	// timed votes the median needs.
	ReadSecondsPer1000 float64 `toml:"read_seconds_per_1000"`
	MinTimedVotes      int     `toml:"min_timed_votes"`
}

// DefaultTrust returns trust.Defaults as settings.
func DefaultTrust() Trust {
	d := trust.Defaults
	return Trust{MinGoldAccuracy: d.MinGoldAccuracy, ImprobableAlpha: d.ImprobableP, PositionP: d.PositionP,
		PositionMinVotes: d.PositionMinVotes, ReadSecondsPer1000: d.ReadSecondsPer1000, MinTimedVotes: d.MinTimedVotes}
}

// Thresholds maps the settings to the report's thresholds.
func (t Trust) Thresholds() trust.Thresholds {
	return trust.Thresholds{MinGoldAccuracy: t.MinGoldAccuracy, ImprobableP: t.ImprobableAlpha, PositionP: t.PositionP,
		PositionMinVotes: t.PositionMinVotes, ReadSecondsPer1000: t.ReadSecondsPer1000, MinTimedVotes: t.MinTimedVotes}
}

// Validate checks the [trust] settings; errors name the key.
func (t *Trust) Validate() error {
	for _, c := range []struct {
		key      string
		v        float64
		min, max float64
	}{
		{"min_gold_accuracy", t.MinGoldAccuracy, 0, 1},
		{"improbable_alpha", t.ImprobableAlpha, 0, 0.5},
		{"position_p", t.PositionP, 0, 0.5},
		{"read_seconds_per_1000", t.ReadSecondsPer1000, 0, 600},
	} {
		if !(c.v >= c.min && c.v <= c.max) || math.IsNaN(c.v) {
			return ringside.FieldError("trust."+c.key, "must be from %g to %g", c.min, c.max)
		}
	}
	if t.PositionMinVotes < 1 {
		return ringside.FieldError("trust.position_min_votes", "must be at least 1")
	}
	if t.MinTimedVotes < 1 {
		return ringside.FieldError("trust.min_timed_votes", "must be at least 1")
	}
	return nil
}
