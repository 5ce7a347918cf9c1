package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/leaderboard"
	"github.com/ringside-eval/ringside/store"
	"github.com/ringside-eval/ringside/trust"
)

const judgesAbout = `
Measures the judges of the database (or of --run): per judge its votes,
the battles it shares with other judges and how often it votes with their
majority, its share of a among a/b votes (position bias, with a binomial
p-value), its median time from the end of the outputs to the vote, its gold
accuracy (Beta(1,1) interval), and the flags raised with their reasons;
per pair of judges Cohen's kappa; overall Krippendorff's alpha. Flagged
judges' votes are left out of boards unless an admin keeps them:
--exclude LABEL and --include LABEL store that choice (logged), --auto
LABEL withdraws it.`

func (m *Main) judgesCmd(ctx context.Context, args []string) error {
	fs := m.newFlagSet("judges", "[--db F] [--run NAME] [--format table|json] [--exclude|--include|--auto LABEL [--reason TEXT]] [--config F]", judgesAbout)
	cfgPath := fs.String("config", "", "config file (default: $RINGSIDE_CONFIG, else the built-in demo)")
	dbPath := fs.String("db", "", dbFlagHelp)
	runName := fs.String("run", "", "only the votes on this run's battles")
	format := fs.String("format", "table", "table or json")
	exclude := fs.String("exclude", "", "leave this judge's votes out of boards (a label, human:ana)")
	include := fs.String("include", "", "count this judge's votes even when flagged")
	auto := fs.String("auto", "", "withdraw the choice about this judge: its flags decide")
	reason := fs.String("reason", "", "why (stored with the choice)")
	if err := m.parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 || *format != "table" && *format != "json" {
		fs.Usage()
		return errUsage
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
	if err := setExclusion(ctx, db, *exclude, *include, *auto, *reason); err != nil {
		return err
	}
	runID := ""
	if *runName != "" {
		run, err := db.RunByName(ctx, *runName)
		if err != nil {
			return err
		}
		runID = run.ID
	}
	rep, err := leaderboard.JudgesReport(ctx, db, runID, cfg.Trust.Thresholds())
	if err != nil {
		return err
	}
	if *format == "json" {
		return writeJSON(m.Stdout, rep)
	}
	writeJudges(m.Stdout, rep)
	return nil
}

// setExclusion stores the one choice the flags ask for, if any.
func setExclusion(ctx context.Context, db *store.DB, exclude, include, auto, reason string) error {
	label, choice, n := "", (*bool)(nil), 0
	for _, c := range []struct {
		label string
		v     *bool
	}{{exclude, ptrTo(true)}, {include, ptrTo(false)}, {auto, nil}} {
		if c.label != "" {
			label, choice, n = c.label, c.v, n+1
		}
	}
	if n == 0 {
		return nil
	}
	if n > 1 {
		return ringside.FieldError("--exclude", "give one of --exclude, --include, --auto")
	}
	j, err := db.JudgeByLabel(ctx, "--exclude", label)
	if err != nil {
		return err
	}
	return db.SetJudgeExclusion(ctx, j.ID, choice, reason)
}

func ptrTo[T any](v T) *T { return &v }

// writeJudges prints the report as aligned tables.
func writeJudges(w io.Writer, rep *trust.Report) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "judge\tvotes\tshared\tmajority\tleft\tleft p\tmedian s\tgold\tflagged\texcluded\t")
	for _, j := range rep.Judges {
		gold := "-"
		if j.Gold != nil {
			gold = fmt.Sprintf("%d/%d [%.2f, %.2f]", j.Gold.Correct, j.Gold.Battles, j.Gold.CILow, j.Gold.CIHigh)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%v\t%s\t\n", j.Judge, j.Votes, j.Shared, opt(j.MajorityAgreement, "%.2f"),
			opt(j.LeftShare, "%.2f"), opt(j.LeftP, "%.2g"), opt(j.MedianVoteSeconds, "%.1f"), gold, j.Flagged, excludedText(j))
	}
	tw.Flush()
	for _, j := range rep.Judges {
		if len(j.Reasons) > 0 {
			fmt.Fprintf(w, "%s: %s\n", j.Judge, strings.Join(j.Reasons, "; "))
		}
	}
	if len(rep.Pairs) > 0 {
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "judge\tjudge\tshared\tagreement\tkappa\t")
		for _, p := range rep.Pairs {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%.2f\t%s\t\n", p.A, p.B, p.Shared, p.Agreement, opt(p.Kappa, "%.2f"))
		}
		tw.Flush()
	}
	fmt.Fprintf(w, "\nKrippendorff's alpha (nominal, %d battles with two or more votes): %s\n", rep.Battles, opt(rep.Alpha, "%.3f"))
}

func excludedText(j trust.Judge) string {
	if j.Override != "" {
		return fmt.Sprintf("%v (by hand)", j.Excluded)
	}
	return fmt.Sprint(j.Excluded)
}

func opt(p *float64, f string) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf(f, *p)
}
