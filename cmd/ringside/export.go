package main

import (
	"context"
	"encoding/json"
	"io"
	"strconv"
	"strings"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/store"
)

const exportAbout = `
Exports what the database holds, to standard output or -o FILE:

  battles      the battle file of DESIGN.md (JSONL), one line per vote, with
               ringside's fields (battle_id, category, kind, tags,
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
  checks       every rules-judge check result, as jsonl (default) or csv.

--run NAME keeps one run's battles, votes, generations and checks.`

// exportFormats are the formats of each export; the first is the default.
var exportFormats = map[string][]string{
	"battles":     {"jsonl"},
	"leaderboard": {"json", "csv", "md", "table"},
	"votes":       {"jsonl", "csv", "dpo"},
	"generations": {"jsonl", "csv"},
	"checks":      {"jsonl", "csv"},
}

func (m *Main) exportCmd(ctx context.Context, args []string) error {
	fs := m.newFlagSet("export", "battles|leaderboard|votes|generations|checks [--format F] [-o FILE] [--db F] [--run NAME] [--config F]", exportAbout)
	rf := addRankFlags(fs, "", true)
	judgeKind := fs.String("judge-kind", ringside.JudgeHuman, "votes --format dpo: the judges whose votes count: human, rules, llm or any")
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
		return ringside.Errorf(ringside.EINVALID, "cannot export %q: use battles, leaderboard, votes, generations or checks", what)
	}
	if rf.format == "" {
		rf.format = formats[0]
	}
	if !validFormat(rf.format, formats) {
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
	} else if !validFormat(*judgeKind, ringside.JudgeKinds) {
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
	err = m.writeOutput(rf.out, func(w io.Writer) error {
		switch what {
		case "battles":
			return exportBattles(ctx, db, runID, w)
		case "votes":
			if rf.format == "dpo" {
				return exportDPO(ctx, db, runID, *judgeKind, w)
			}
			return exportVotes(ctx, db, runID, rf.format, w)
		case "generations":
			return exportGenerations(ctx, db, runID, rf.format, w)
		default:
			return exportChecks(ctx, db, runID, rf.format, w)
		}
	})
	if err != nil {
		return err
	}
	return db.Close()
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
func exportBattles(ctx context.Context, db *store.DB, runID string, w io.Writer) error {
	bw := ringside.NewBattleWriter(w)
	err := db.EachExportVote(ctx, runID, func(e *store.ExportVote) error {
		rec, err := exportRecord(e)
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

// columnless are the battle-record fields an imported battle keeps among
// its extra fields (see importLine); export puts them back in place.
var columnless = map[string]bool{
	"tstamp": true, "turn": true, "anony": true, "question_id": true,
	"latency_ms_a": true, "latency_ms_b": true, "ttft_ms_a": true, "ttft_ms_b": true,
	"cost_usd_a": true, "cost_usd_b": true, "tokens_out_a": true, "tokens_out_b": true,
	"error_a": true, "error_b": true,
}

// exportRecord builds the battle record of one vote.
func exportRecord(e *store.ExportVote) (*ringside.BattleRecord, error) {
	b, v := &e.Battle, &e.Vote
	rec := &ringside.BattleRecord{ModelA: b.ModelA, ModelB: b.ModelB, Winner: v.Winner, Judge: e.JudgeLabel(),
		QuestionID: b.PromptID, BattleID: b.ID, Category: b.Category, Kind: b.Kind, Tags: b.Tags,
		Dimensions: v.Dimensions, Sample: b.Sample, IdentityLeak: b.IdentityLeak}
	// A battle of ringside's own is timed by its vote, as rank reads the
	// time from the database (so both order online Elo alike); an imported
	// one keeps the tstamp its file had, or none.
	if b.Source != ringside.SourceImport {
		rec.Tstamp = store.VoteTime(v.CreatedAt)
	}
	setSide(rec, e.GenA, &rec.TTFTMsA, &rec.LatencyMsA, &rec.CostUSDA, &rec.TokensOutA, &rec.ErrorA)
	setSide(rec, e.GenB, &rec.TTFTMsB, &rec.LatencyMsB, &rec.CostUSDB, &rec.TokensOutB, &rec.ErrorB)
	if len(b.Extra) > 0 {
		var extra map[string]json.RawMessage
		if err := json.Unmarshal(b.Extra, &extra); err != nil {
			return nil, ringside.Errorf(ringside.EINTERNAL, "battle %s: extra fields: %v", b.ID, err)
		}
		_, numericID := extra["question_id"]
		known := false
		for k := range extra {
			if columnless[k] {
				known = true
				delete(extra, k)
			}
		}
		if known {
			if err := setColumnless(rec, b.Extra); err != nil {
				return nil, ringside.Errorf(ringside.EINTERNAL, "battle %s: %v", b.ID, err)
			}
			rec.SetNumericQuestionID(numericID)
		}
		if len(extra) > 0 {
			rec.Extra = extra
		}
	}
	if e.Weight != 1 {
		if rec.Extra == nil {
			rec.Extra = map[string]json.RawMessage{}
		}
		rec.Extra[voteWeightField] = json.RawMessage(strconv.Itoa(e.Weight))
	}
	return rec, nil
}

// setSide fills one side's measurements from its stored generation.
// Timings of zero were not measured; cost and tokens always were.
func setSide(rec *ringside.BattleRecord, g *store.Measures, ttft, latency, cost **float64, tokens **int, errText *string) {
	if g == nil {
		return
	}
	if g.TTFTMs > 0 {
		*ttft = ptr(g.TTFTMs)
	}
	if g.LatencyMs > 0 {
		*latency = ptr(g.LatencyMs)
	}
	*cost, *tokens, *errText = ptr(g.CostUSD), ptr(g.TokensOut), g.ErrorKind
}

func ptr[T any](v T) *T { return &v }

// setColumnless puts the record fields an imported battle kept among its
// extra fields back in place.
func setColumnless(rec *ringside.BattleRecord, extra json.RawMessage) error {
	var x struct {
		recordMeasures
		Tstamp *float64 `json:"tstamp"`
		Turn   *int     `json:"turn"`
		Anony  *bool    `json:"anony"`
	}
	if err := json.Unmarshal(extra, &x); err != nil {
		return err
	}
	if x.Tstamp != nil {
		rec.Tstamp = *x.Tstamp
	}
	if x.Turn != nil {
		rec.Turn = *x.Turn
	}
	rec.Anony = x.Anony
	m := x.recordMeasures
	set := func(dst **float64, v *float64) {
		if v != nil {
			*dst = v
		}
	}
	set(&rec.LatencyMsA, m.LatencyMsA)
	set(&rec.LatencyMsB, m.LatencyMsB)
	set(&rec.TTFTMsA, m.TTFTMsA)
	set(&rec.TTFTMsB, m.TTFTMsB)
	set(&rec.CostUSDA, m.CostUSDA)
	set(&rec.CostUSDB, m.CostUSDB)
	if m.TokensOutA != nil {
		rec.TokensOutA = m.TokensOutA
	}
	if m.TokensOutB != nil {
		rec.TokensOutB = m.TokensOutB
	}
	if m.ErrorA != "" {
		rec.ErrorA = m.ErrorA
	}
	if m.ErrorB != "" {
		rec.ErrorB = m.ErrorB
	}
	return nil
}
