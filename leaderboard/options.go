package leaderboard

import (
	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/rank"
)

// Overrides are what one request or command line may set over the
// config's [rank] settings; a nil field takes the config's.
type Overrides struct {
	Rounds       *int
	Seed         *uint64
	Anchor       *string
	IncludeLeaks *bool
	// Control is "style" or a comma list of control features.
	Control *string
	// Weighting is "none" or "propensity" (rank.Weightings).
	Weighting *string
	// Interval, By, Elo and Matrix have no config setting.
	Interval, By string
	Elo, Matrix  bool
}

// Options maps the config's [rank] settings, under o, to rank options. It
// is the one place they are read and checked, so that the page, its
// downloads, the API and `ringside rank` rank alike: EINVALID naming the
// setting for a negative rank.seed or round count, a bad weighting, or a
// bad anchor.
func Options(cfg config.Rank, o Overrides) (rank.Options, error) {
	opts := rank.Options{Rounds: cfg.Bootstrap, Interval: o.Interval, By: o.By, Elo: o.Elo, Matrix: o.Matrix,
		IncludeIdentityLeaks: cfg.IncludeIdentityLeaks}
	if o.Rounds != nil {
		opts.Rounds = *o.Rounds
	}
	if opts.Rounds < 0 {
		field := "rank.bootstrap"
		if o.Rounds != nil {
			field = "bootstrap"
		}
		return opts, ringside.FieldError(field, "must not be negative")
	}
	if o.Seed != nil {
		opts.Seed = *o.Seed
	} else if cfg.Seed < 0 {
		return opts, ringside.FieldError("rank.seed", "must not be negative")
	} else {
		opts.Seed = uint64(cfg.Seed)
	}
	if o.IncludeLeaks != nil {
		opts.IncludeIdentityLeaks = *o.IncludeLeaks
	}
	control, field := cfg.Control, "rank.control"
	if o.Control != nil {
		control, field = *o.Control, "control"
	}
	ctrl, err := rank.ParseControls(control)
	if err != nil {
		return opts, ringside.FieldError(field, "%q: want style, none or a comma list of length, headers, lists, bold, cost, latency", control)
	}
	opts.Controls = ctrl
	weighting, field := cfg.Weighting, "rank.weighting"
	if o.Weighting != nil {
		weighting, field = *o.Weighting, "weighting"
	}
	if err := rank.ValidateWeighting(field, weighting); err != nil {
		return opts, err
	}
	if weighting == rank.WeightingPropensity {
		opts.Weighting = weighting
	}
	anchor := cfg.Anchor
	if o.Anchor != nil {
		anchor = *o.Anchor
	}
	if anchor != "" {
		a, err := rank.ParseAnchor(anchor)
		if err != nil {
			return opts, err
		}
		opts.Anchor = a
	}
	return opts, nil
}
