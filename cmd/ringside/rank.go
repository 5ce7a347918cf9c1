package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/judge"
	"github.com/ringside-eval/ringside/leaderboard"
	"github.com/ringside-eval/ringside/rank"
	"github.com/ringside-eval/ringside/store"
)

const rankAbout = `
Prints the leaderboard: a Bradley-Terry fit by exact maximum likelihood
(outcomes 1 / 0 / ½, scale 400, mean 1000 or --anchor), 95% intervals from
a seeded bootstrap over battles (or --interval sandwich), Rank(UB), wins,
losses and ties, and, where generations were stored, TTFT and latency
p50/p95, tokens per second, cost per battle and per 1,000 responses and the
error rate. Models without a finite rating (undefeated, winless, not
connected) are listed apart, with the reason.

From the database, every vote counts (an LLM judge's strong verdict
counts its strong_weight), battles in which a model named itself are left
out unless --include-leaks (or rank.include_identity_leaks), and the pass
rate, pass^k and pass@k of each rules judge's checks follow the table;
--by judge adds agreement between judges. The votes of several judges on
one battle share one battle's weight. --judges chooses whose votes count
(default: human votes when there are any, else automatic ones); votes of
judges that ringside judges flags or an admin excluded are left out, and
the summary says how many, unless --include-flagged. With --battles FILE the battles
come from a battle file (docs/formats.md, "-" for standard input) and no
database is opened.

--by gives every value of the attribute a leaderboard of its own, with its
own intervals: category, kind (typical, edge, adversarial, user), judge,
judge_kind, tag, or dimension (each dimension the votes carry, ranked by
that dimension's winners). --bootstrap, --seed and --anchor default to the
[rank] settings of the config.

--control style ranks what the answers say rather than how long or how
decorated they are (Chatbot Arena's style control): a contextual
Bradley-Terry fit with the normalised differences in length, headers,
lists and bold as covariates; a comma list (length,cost) picks features,
cost and latency among them. Ratings, intervals and ranks are then the
controlled ones, beside the plain rating and rank and the features'
coefficients (docs/style-control.md). Default: rank.control.

--weight propensity weighs each vote by the inverse of the probability
its pair was dealt with (adaptive pairing stores it with the deal; votes
without one, imported, chat or older, weigh 1): the board then estimates
what uniform dealing would have given, even where Bradley-Terry does not
hold, and its intervals are wider. Default: rank.weighting (none).`

// rankFlags are the flags rank, export leaderboard and compare share;
// compare has no use for --elo and --matrix.
type rankFlags struct {
	cfgPath, dbPath, battles, run string
	by, format, interval, anchor  string
	control, weight               string
	judges                        string
	includeFlagged                bool
	out                           string
	bootstrap                     int
	seed                          uint64
	elo, includeLeaks, matrix     bool
	fs                            *flag.FlagSet
}

// addRankFlags defines the shared flags on fs; format is --format's
// default, and leaderboard adds --elo and --matrix.
func addRankFlags(fs *flag.FlagSet, format string, leaderboard bool) *rankFlags {
	rf := &rankFlags{fs: fs}
	fs.StringVar(&rf.cfgPath, "config", "", "config file (default: $RINGSIDE_CONFIG, else the built-in demo)")
	fs.StringVar(&rf.dbPath, "db", "", dbFlagHelp)
	fs.StringVar(&rf.battles, "battles", "", "rank this battle file (JSONL; - for standard input) instead of the database")
	fs.StringVar(&rf.run, "run", "", "only the battles of this run (database only)")
	fs.StringVar(&rf.by, "by", "", "slice by "+strings.Join(rank.SliceBy, ", "))
	fs.StringVar(&rf.format, "format", format, "output format: "+strings.Join(rank.Formats, ", "))
	fs.StringVar(&rf.interval, "interval", "", "bootstrap, sandwich or none (default: bootstrap when --bootstrap > 0)")
	fs.StringVar(&rf.anchor, "anchor", "", "pin a model's rating, MODEL=RATING (default: rank.anchor, else mean 1000)")
	fs.StringVar(&rf.out, "o", "", "write to this file instead of standard output")
	fs.IntVar(&rf.bootstrap, "bootstrap", 0, "bootstrap rounds, 0 for none (default: rank.bootstrap, 1000 unless configured)")
	fs.Uint64Var(&rf.seed, "seed", 0, "bootstrap seed (default: rank.seed)")
	fs.StringVar(&rf.judges, "judges", "", "whose votes count: human, auto, all or NAME[,NAME] (default: human votes when there are any, else automatic)")
	fs.BoolVar(&rf.includeFlagged, "include-flagged", false, "count the votes of flagged or excluded judges too (see ringside judges)")
	fs.StringVar(&rf.weight, "weight", "", "none, or propensity: weigh each vote by the inverse of the probability its pair was dealt with (default: rank.weighting)")
	fs.BoolVar(&rf.includeLeaks, "include-leaks", false, "rank battles in which a model named itself (default: rank.include_identity_leaks)")
	if leaderboard {
		fs.BoolVar(&rf.elo, "elo", false, "add online Elo (K=4, in time order), to compare with older leaderboards")
		fs.BoolVar(&rf.matrix, "matrix", false, "add the pairwise win-rate matrix (default: when there are at most 8 models)")
		fs.StringVar(&rf.control, "control", "", "style or cost control: style, or a comma list of length, headers, lists, bold, cost, latency; none for plain (default: rank.control)")
	}
	return rf
}

// set reports whether the flag was given on the command line.
func (rf *rankFlags) set(name string) bool {
	found := false
	rf.fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}

// options merges the flags over the config's [rank] defaults, through the
// mapping the server uses too (leaderboard.Options).
func (rf *rankFlags) options(cfg *config.Config) (rank.Options, error) {
	if rf.battles != "" && rf.run != "" {
		return rank.Options{}, ringside.FieldError("--run", "a run is a database's; it cannot select from --battles")
	}
	if rf.battles != "" && rf.dbPath != "" {
		return rank.Options{}, ringside.FieldError("--battles", "give --battles or --db, not both")
	}
	if rf.set("bootstrap") && rf.bootstrap < 0 {
		return rank.Options{}, ringside.FieldError("--bootstrap", "must not be negative")
	}
	o := leaderboard.Overrides{Interval: rf.interval, By: rf.by, Elo: rf.elo}
	if rf.set("bootstrap") {
		o.Rounds = &rf.bootstrap
	}
	if rf.set("seed") {
		o.Seed = &rf.seed
	}
	if rf.set("anchor") {
		o.Anchor = &rf.anchor
	}
	if rf.set("include-leaks") {
		o.IncludeLeaks = &rf.includeLeaks
	}
	if rf.set("control") {
		o.Control = &rf.control
	}
	if rf.set("weight") {
		if err := rank.ValidateWeighting("--weight", rf.weight); err != nil {
			return rank.Options{}, err
		}
		o.Weighting = &rf.weight
	}
	opts, err := leaderboard.Options(cfg.Rank, o)
	if err == nil {
		opts.Judges = rf.judges
		err = rank.ValidateJudges(rf.judges)
	}
	return opts, err
}

// rankInput is what rank and compare rank: the battles, the measured
// performance, and the open database when they came from one.
type rankInput struct {
	bs    *rank.Battles
	perf  *rank.PerfCollector
	db    *store.DB
	runID string
}

func (in *rankInput) Close() {
	if in.db != nil {
		in.db.Close()
	}
}

// loadRankInput reads the battles from --battles or the database.
func (m *Main) loadRankInput(ctx context.Context, rf *rankFlags, cfg *config.Config, opts *rank.Options) (*rankInput, error) {
	if rf.battles != "" {
		bs, perf, err := m.loadBattleFile(rf.battles)
		if err != nil {
			return nil, err
		}
		return &rankInput{bs: bs, perf: perf}, nil
	}
	db, err := openExistingDB(ctx, cfg, rf.dbPath)
	if err != nil {
		return nil, err
	}
	in := &rankInput{db: db}
	if rf.run != "" {
		run, err := db.RunByName(ctx, rf.run)
		if err != nil {
			db.Close()
			return nil, err
		}
		in.runID = run.ID
	}
	if in.bs, err = leaderboard.LoadBattles(ctx, db, in.runID, *opts); err != nil {
		db.Close()
		return nil, err
	}
	if in.perf, err = leaderboard.LoadPerf(ctx, db, in.runID); err != nil {
		db.Close()
		return nil, err
	}
	if !rf.includeFlagged {
		// Flagged judges' votes are left out unless an admin kept them.
		rep, err := leaderboard.JudgesReport(ctx, db, in.runID, cfg.Trust.Thresholds())
		if err != nil {
			db.Close()
			return nil, err
		}
		opts.ExcludeJudges = rep.Excluded()
	}
	return in, nil
}

func (m *Main) rankCmd(ctx context.Context, args []string) error {
	fs := m.newFlagSet("rank", "[--db F | --battles FILE] [--by category|kind|dimension|judge|judge_kind|tag] [--bootstrap N] [--seed S] [--anchor MODEL=RATING] [--format table|json|csv|md] [--interval bootstrap|sandwich|none] [--elo] [--control style|FEATURES] [--weight none|propensity] [--include-leaks] [--run NAME] [-o FILE] [--config F]", rankAbout)
	rf := addRankFlags(fs, "table", true)
	if err := m.parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	return m.leaderboard(ctx, rf)
}

// rankReport is the leaderboard JSON of docs/formats.md with what the database
// adds: pass statistics per rules judge and, sliced by judge, agreement
// between judges and each judge's biases.
type rankReport struct {
	*rank.Leaderboard
	Pass      map[string][]judge.PassStats `json:"pass,omitempty"`
	Agreement []judge.Agreement            `json:"agreement,omitempty"`
	Judges    []judgeBias                  `json:"judges,omitempty"`
}

// leaderboard computes and writes the leaderboard rf asks for.
func (m *Main) leaderboard(ctx context.Context, rf *rankFlags) error {
	if !slices.Contains(rank.Formats, rf.format) {
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
	in, err := m.loadRankInput(ctx, rf, cfg, &opts)
	if err != nil {
		return err
	}
	defer in.Close()
	opts.Matrix = rf.matrix
	if n := len(in.bs.Models()); !rf.set("matrix") {
		opts.Matrix = n >= 2 && n <= 8
	}
	lb, err := leaderboard.Compute(in.bs, in.perf, opts)
	if err != nil {
		return err
	}
	if lb.Battles == 0 {
		m.sayWhatNext(lb)
	}
	rep := &rankReport{Leaderboard: lb}
	if in.db != nil {
		if err := loadRankJudgeStats(ctx, in.db, in.runID, opts.By == rank.ByJudge, rep); err != nil {
			return err
		}
	}
	return m.writeOutput(rf.out, func(w io.Writer) error { return rep.write(w, rf.format) })
}

// loadRankJudgeStats adds the rules judges' pass statistics, and with
// agreement the judges' agreement and biases, which read every vote with
// the lengths of its answers and so are only computed when asked for.
func loadRankJudgeStats(ctx context.Context, db *store.DB, runID string, agreement bool, rep *rankReport) error {
	if agreement {
		st, err := loadJudgeStats(ctx, db, runID)
		if err != nil {
			return err
		}
		rep.Pass, rep.Agreement, rep.Judges = st.Pass, st.Agreement, st.Judges
		return nil
	}
	pass, err := leaderboard.LoadPassStats(ctx, db, runID)
	rep.Pass = pass
	return err
}

// write renders the report: JSON as one object; table and Markdown with
// the judges' statistics after the leaderboard; CSV is the leaderboard
// alone (one table per file).
func (rep *rankReport) write(w io.Writer, format string) error {
	if format == "json" {
		return writeJSON(w, rep)
	}
	if err := rep.Leaderboard.Write(w, format); err != nil {
		return err
	}
	if format == "csv" || (len(rep.Pass) == 0 && len(rep.Agreement) == 0 && len(rep.Judges) == 0) {
		return nil
	}
	st := &judgeStats{Pass: rep.Pass, Agreement: rep.Agreement, Judges: rep.Judges}
	if format == "md" {
		// The judges' tables are aligned text; a fence keeps them so.
		fmt.Fprint(w, "\n```text")
		st.write(w)
		_, err := fmt.Fprint(w, "```\n")
		return err
	}
	st.write(w)
	return nil
}

// sayWhatNext tells a user who ranked before any vote what to do next, on
// standard error, so that the board on standard output stays clean.
func (m *Main) sayWhatNext(lb *rank.Leaderboard) {
	if len(lb.Flagged) == 0 {
		fmt.Fprint(m.Stderr, `ringside rank: nothing to rank yet: no battles. Next:
  ringside run                      the models answer the prompt sets, in pairs
  ringside import battles FILE      or bring judged battles (Chatbot Arena format)
`)
		return
	}
	fmt.Fprint(m.Stderr, `ringside rank: no votes yet, so nothing is rated. Next:
  ringside judge --judge rules      the rule-based judge votes on the stored battles
  ringside serve                    people vote on the judge page (/judge)
`)
}
