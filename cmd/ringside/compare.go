package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/rank"
)

const compareAbout = `
Checks a candidate model (a new version, say) against a baseline, for use in
CI after a model update: the rating difference candidate − baseline with a
95% bootstrap interval (or --interval sandwich), overall and per slice, and
the head-to-head record. Both are fitted with every other model, so battles
against third models count too.

--by takes a comma-separated list of slicings (category, kind, judge,
judge_kind, tag, dimension); by default each dimension the votes carry is
checked. Exit status 1 when the candidate is worse — its difference below
−margin with the interval wholly below zero, or unbounded below (it never
beat the rated models) — overall or in any slice; 0 otherwise; 2 on bad
input, such as a model with no battles. Many slices means some will cross
by chance: choose the slicing and the margin accordingly. A slice with fewer
battles than --min-slice-battles is reported but never fails the gate.`

func (m *Main) compareCmd(ctx context.Context, args []string) error {
	fs := m.newFlagSet("compare", "--baseline M --candidate M [--margin R] [--by dimension,category,...] [--db F | --battles FILE] [--bootstrap N] [--seed S] [--interval bootstrap|sandwich] [--format table|json|csv|md] [--run NAME] [-o FILE] [--config F]", compareAbout)
	rf := addRankFlags(fs, "table", false)
	baseline := fs.String("baseline", "", "the model to compare against (required)")
	candidate := fs.String("candidate", "", "the model under test (required)")
	margin := fs.Float64("margin", 0, "rating points the candidate may fall behind before it counts as worse")
	minSlice := fs.Int("min-slice-battles", -1, "slices with fewer battles are reported but never fail the gate (default: rank.compare_min_slice_battles, 20)")
	fs.Lookup("by").Usage = "comma-separated slicings: " + strings.Join(rank.SliceBy, ", ")
	fs.Lookup("by").DefValue = rank.ByDimension
	rf.by = rank.ByDimension
	if err := m.parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	switch {
	case *baseline == "":
		return ringside.FieldError("--baseline", "required")
	case *candidate == "":
		return ringside.FieldError("--candidate", "required")
	case *minSlice < -1:
		return ringside.FieldError("--min-slice-battles", "must not be negative")
	case *margin < 0:
		return ringside.FieldError("--margin", "must not be negative")
	case !slices.Contains(rank.Formats, rf.format):
		return ringside.FieldError("--format", "%q is not one of %s", rf.format, strings.Join(rank.Formats, ", "))
	}
	cfg, err := m.loadConfig(rf.cfgPath)
	if err != nil {
		return err
	}
	opts, err := rf.options(cfg)
	if err != nil {
		return err
	}
	var bys []string
	for _, b := range strings.Split(rf.by, ",") {
		if b = strings.TrimSpace(b); b != "" {
			bys = append(bys, b)
		}
	}
	opts.By = ""
	in, err := m.loadRankInput(ctx, rf, cfg, &opts)
	if err != nil {
		return err
	}
	defer in.Close()
	if *minSlice < 0 {
		*minSlice = cfg.Rank.CompareMinSliceBattles
	}
	c, err := compareBy(in.bs, *baseline, *candidate, rank.CompareOptions{Options: opts, Margin: *margin, MinSliceBattles: *minSlice}, bys)
	if err != nil {
		return err
	}
	if err := m.writeOutput(rf.out, func(w io.Writer) error { return c.Write(w, rf.format) }); err != nil {
		return err
	}
	if !c.Worse() {
		return nil
	}
	var where []string
	for _, d := range append([]rank.Difference{c.Overall}, c.Slices...) {
		if d.Gated() {
			name := d.Slice
			if name == "" {
				name = "overall"
			}
			where = append(where, name)
		}
	}
	fmt.Fprintf(m.Stderr, "ringside compare: %s is worse than %s beyond the margin of %g: %s\n",
		*candidate, *baseline, *margin, strings.Join(where, "; "))
	return errCheckFailed
}

// compareBy compares overall and under each slicing. One slicing gives the
// library's comparison as it is; several are merged into one list of
// slices named "slicing: value".
func compareBy(bs *rank.Battles, baseline, candidate string, opts rank.CompareOptions, bys []string) (*rank.Comparison, error) {
	if len(bys) <= 1 {
		if len(bys) == 1 {
			opts.By = bys[0]
		}
		return rank.Compare(bs, baseline, candidate, opts)
	}
	var out *rank.Comparison
	for _, by := range bys {
		opts.By = by
		c, err := rank.Compare(bs, baseline, candidate, opts)
		if err != nil {
			return nil, err
		}
		slices := c.Slices
		if out == nil {
			out = c
			out.By, out.Slices = "", nil
		}
		for _, d := range slices {
			d.Slice = by + ": " + d.Slice
			out.Slices = append(out.Slices, d)
		}
	}
	return out, nil
}
