package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/battlefile"
	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/store"
)

const exportAbout = `
Exports what the database holds, to standard output or -o FILE:

  battles      the battle file of docs/formats.md (JSONL), one line per
               vote, with ringside's fields (battle_id, category, kind, tags,
               dimensions, sample, latency_ms_a/b, ttft_ms_a/b, cost_usd_a/b,
               tokens_out_a/b, error_a/b, vote_weight when not 1) and the
               extra fields an imported battle came with. It loads back with
               "ringside import battles" and into tools built for the public
               Chatbot Arena files.
  leaderboard  what "ringside rank" prints, as json (default), csv, md or
               table; rank's flags apply.
  votes        every vote, as jsonl (default) or csv; or, with --format dpo,
               a preference data set: one line per battle whose votes (by
               --judge-kind judges) favour one side, with the prompt's
               messages and both outputs as {prompt, chosen, rejected}.
  generations  every generation with its output and measurements, as jsonl
               (default) or csv.
  checks       every rules-judge check result with the model, prompt, sample
               and run it is about, as jsonl (default) or csv.
  llm-judgments
               every LLM judging of a battle, successes and failures
               (unreadable verdicts, failed calls), as jsonl (default, with
               every call's raw answer) or csv (one row per judging).
  prompts      a prompt set (--set, default judging.chat_set: the questions
               judges asked in chat battles) as a prompt-set file that
               "ringside run" reads unchanged; --min-judges N keeps prompts
               voted on by at least N judges, --picked those picked on the
               admin page.

--run NAME keeps one run's battles, votes, generations and checks.`

// exportFormats are the formats of each export; the first is the default.
var exportFormats = map[string][]string{
	"battles":       {"jsonl"},
	"leaderboard":   {"json", "csv", "md", "table"},
	"votes":         {"jsonl", "csv", "dpo"},
	"generations":   {"jsonl", "csv"},
	"checks":        {"jsonl", "csv"},
	"llm-judgments": {"jsonl", "csv"},
	"prompts":       {"jsonl"},
}

func (m *Main) exportCmd(ctx context.Context, args []string) error {
	fs := m.newFlagSet("export", "battles|leaderboard|votes|generations|checks|llm-judgments|prompts [--format F] [-o FILE] [--db F] [--run NAME] [--config F]", exportAbout)
	rf := addRankFlags(fs, "", true)
	judgeKind := fs.String("judge-kind", ringside.JudgeHuman, "votes --format dpo: the judges whose votes count: human, rules, llm or any")
	pf := addPromptExportFlags(fs)
	if err := m.parseFlags(fs, args); err != nil {
		return err
	}
	// Flags may follow the kind, as users type them.
	rest := fs.Args()
	if len(rest) >= 1 {
		if err := fs.Parse(rest[1:]); err != nil {
			return errUsage
		}
		rest = append(rest[:1:1], fs.Args()...)
	}
	if len(rest) != 1 {
		fs.Usage()
		return errUsage
	}
	what := rest[0]
	formats, ok := exportFormats[what]
	if !ok {
		return ringside.Errorf(ringside.EINVALID, "cannot export %q: use battles, leaderboard, votes, generations, checks, llm-judgments or prompts", what)
	}
	if rf.format == "" {
		rf.format = formats[0]
	}
	if !slices.Contains(formats, rf.format) {
		return ringside.FieldError("--format", "%q is not one of %s for %s", rf.format, strings.Join(formats, ", "), what)
	}
	if what == "leaderboard" {
		return m.leaderboard(ctx, rf)
	}
	if rf.battles != "" {
		return ringside.FieldError("--battles", "export reads the database")
	}
	if *judgeKind == "any" {
		*judgeKind = ""
	} else if !slices.Contains(ringside.JudgeKinds, *judgeKind) {
		return ringside.FieldError("--judge-kind", "%q is not one of human, rules, llm, any", *judgeKind)
	}
	cfg, err := m.loadConfig(rf.cfgPath)
	if err != nil {
		return err
	}
	db, runID, err := openExportDB(ctx, cfg, rf)
	if err != nil {
		return err
	}
	defer db.Close()
	rows := 0
	err = m.writeOutput(rf.out, func(w io.Writer) error {
		return exportKind(ctx, db, cfg, what, runID, rf.format, *judgeKind, pf, w, &rows)
	})
	if err != nil {
		return err
	}
	if rf.out != "" && rf.out != "-" {
		// Standard output is free when writing a file: say what was
		// written, so an empty export is not mistaken for a full one.
		fmt.Fprintf(m.Stdout, "wrote %d %s rows (%s) to %s\n", rows, what, rf.format, rf.out)
	}
	return db.Close()
}

// exportKind writes one kind of export to w, counting its rows.
func exportKind(ctx context.Context, db *store.DB, cfg *config.Config, what, runID, format, judgeKind string,
	pf *promptExportFlags, w io.Writer, rows *int) error {
	switch what {
	case "battles":
		return exportBattles(ctx, db, runID, w, rows)
	case "votes":
		if format == "dpo" {
			return exportDPO(ctx, db, runID, judgeKind, w, rows)
		}
		return exportVotes(ctx, db, runID, format, w, rows)
	case "generations":
		return exportGenerations(ctx, db, runID, format, w, rows)
	case "llm-judgments":
		return exportLLMJudgments(ctx, db, runID, format, w, rows)
	case "prompts":
		return exportPrompts(ctx, db, cfg, pf, w, rows)
	default:
		return exportChecks(ctx, db, runID, format, w, rows)
	}
}

// openExportDB opens the existing database and finds --run's id.
func openExportDB(ctx context.Context, cfg *config.Config, rf *rankFlags) (*store.DB, string, error) {
	db, err := openExistingDB(ctx, cfg, rf.dbPath)
	if err != nil {
		return nil, "", err
	}
	if rf.run == "" {
		return db, "", nil
	}
	run, err := db.RunByName(ctx, rf.run)
	if err != nil {
		db.Close()
		return nil, "", err
	}
	return db, run.ID, nil
}

// exportBattles writes one battle record per vote, in the order the votes
// were stored (the order rank reads them in).
func exportBattles(ctx context.Context, db *store.DB, runID string, w io.Writer, rows *int) error {
	bw := battlefile.NewWriter(w)
	err := db.EachExportVote(ctx, runID, func(e *store.ExportVote) error {
		*rows++
		rec, err := battlefile.FromExportVote(e)
		if err != nil {
			return err
		}
		return bw.Write(rec)
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}
