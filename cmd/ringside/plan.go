package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/judging"
	"github.com/ringside-eval/ringside/pairing"
)

const planAbout = `
Says how many more human votes the decision needs: it simulates the
evaluation many times under the configured pairing (judging.pairing,
judging.focus_top), with true ratings drawn from the current fit of the
votes in the database and the board's bootstrap error (rank.bootstrap), and
prints the number of votes past the current count at which the top
focus_top models are separated (each one's 95% interval wholly above every
interval below it): the most likely number, the median, and the shortest
80% interval; and the boundaries still undecided. Before
any vote it plans from a prior spread of ratings (--prior-sd) and the number
of models. When votes were dealt with a stored propensity (adaptive
pairing), the inverse-propensity ratings follow: what uniform dealing would
have given.`

func (m *Main) planCmd(ctx context.Context, args []string) error {
	fs := m.newFlagSet("plan", "[--db F] [--sims N] [--seed S] [--prior-sd POINTS] [--fresh] [--format text|json] [--config F]", planAbout)
	cfgPath := fs.String("config", "", "config file (default: $RINGSIDE_CONFIG, else the built-in demo)")
	dbPath := fs.String("db", "", dbFlagHelp)
	format := fs.String("format", "text", "output format: text or json")
	var o pairing.PlanOptions
	fs.IntVar(&o.Sims, "sims", 200, "simulated futures")
	fs.Uint64Var(&o.Seed, "seed", 1, "simulation seed")
	fs.Float64Var(&o.PriorSD, "prior-sd", 100, "spread of the ratings assumed before any vote, in rating points")
	fs.BoolVar(&o.Fresh, "fresh", false, "simulate each future from no votes instead of continuing the votes so far (wider; see docs/performance.md)")
	if err := m.parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	if *format != "text" && *format != "json" {
		return ringside.FieldError("--format", "%q is not one of text, json", *format)
	}
	if o.Sims <= 0 {
		return ringside.FieldError("--sims", "must be positive")
	}
	cfg, err := m.loadConfig(*cfgPath)
	if err != nil {
		return err
	}
	db, err := openExistingDB(ctx, cfg, *dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	rep, err := judging.Plan(ctx, db, cfg, o)
	if err != nil {
		return err
	}
	if *format == "json" {
		return writeJSON(m.Stdout, rep)
	}
	writePlan(m.Stdout, rep)
	return nil
}

// writePlan prints a plan for people.
func writePlan(w io.Writer, rep *judging.PlanReport) {
	focus := fmt.Sprintf("top %d", rep.FocusTop)
	if rep.FocusTop == 0 {
		focus = "whole ranking"
	}
	fmt.Fprintf(w, "%d votes so far, %d models, pairing %s, decision: %s separated\n", rep.Votes, rep.Models, rep.Pairing, focus)
	switch {
	case rep.Separated:
		fmt.Fprintln(w, "Decided: the top models' intervals are already apart.")
	default:
		from := "the current fit"
		if rep.FromPrior {
			from = "the prior (no votes yet)"
		}
		votes := func(n int) string {
			if n < 0 {
				return "more than the simulations ran"
			}
			return fmt.Sprint(n)
		}
		fmt.Fprintf(w, "Further votes needed: about %s (median %s, 80%% interval %s to %s), from %s, %d simulations\n",
			votes(rep.Likely), votes(rep.Median), votes(rep.Low), votes(rep.High), from, rep.Sims)
	}
	if len(rep.Undecided) > 0 {
		var parts []string
		for _, b := range rep.Undecided {
			parts = append(parts, fmt.Sprintf("%s vs %s (intervals overlap by %.0f)", b.Upper, b.Lower, -b.Margin))
		}
		fmt.Fprintf(w, "Undecided: %s\n", strings.Join(parts, "; "))
	}
	if rep.FromPrior {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%-24s %8s %17s %8s", "model", "rating", "95% interval", "battles")
	if rep.Weighted != nil {
		fmt.Fprintf(w, " %9s", "weighted")
	}
	fmt.Fprintln(w)
	for _, r := range rep.Ratings {
		fmt.Fprintf(w, "%-24s %8.0f %8.0f – %-6.0f %8.0f", r.Model, r.Rating, r.Low, r.High, r.Battles)
		if rep.Weighted != nil {
			fmt.Fprintf(w, " %9.0f", rep.Weighted[r.Model])
		}
		fmt.Fprintln(w)
	}
}
