package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"strconv"
	"time"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/store"
)

// voteRow is one line of `export votes`: the vote with what a reader
// needs to use it without the database.
type voteRow struct {
	VoteID     string          `json:"vote_id"`
	BattleID   string          `json:"battle_id"`
	RunID      string          `json:"run_id,omitempty"`
	QuestionID string          `json:"question_id,omitempty"`
	ModelA     string          `json:"model_a"`
	ModelB     string          `json:"model_b"`
	Judge      string          `json:"judge"`
	JudgeKind  string          `json:"judge_kind"`
	Winner     ringside.Winner `json:"winner"`
	// WinnerModel names the model the vote preferred; empty for ties.
	WinnerModel  string                     `json:"winner_model,omitempty"`
	Dimensions   map[string]ringside.Winner `json:"dimensions,omitempty"`
	Reason       string                     `json:"reason,omitempty"`
	DurationMs   int64                      `json:"duration_ms,omitempty"`
	Weight       int                        `json:"weight"`
	Category     string                     `json:"category,omitempty"`
	Kind         string                     `json:"kind,omitempty"`
	Tags         []string                   `json:"tags,omitempty"`
	IdentityLeak bool                       `json:"identity_leak,omitempty"`
	CreatedAt    time.Time                  `json:"created_at"`
}

var voteCSVHead = []string{"vote_id", "battle_id", "run_id", "question_id", "model_a", "model_b", "judge", "judge_kind",
	"winner", "winner_model", "dimensions", "reason", "duration_ms", "weight", "category", "kind", "tags",
	"identity_leak", "created_at"}

func newVoteRow(e *store.ExportVote) *voteRow {
	b, v := &e.Battle, &e.Vote
	r := &voteRow{VoteID: v.ID, BattleID: b.ID, RunID: b.RunID, QuestionID: b.PromptID, ModelA: b.ModelA, ModelB: b.ModelB,
		Judge: e.JudgeLabel(), JudgeKind: e.JudgeKind, Winner: v.Winner, Dimensions: v.Dimensions, Reason: v.Reason,
		DurationMs: v.DurationMs, Weight: e.Weight, Category: b.Category, Kind: b.Kind, Tags: b.Tags,
		IdentityLeak: b.IdentityLeak, CreatedAt: v.CreatedAt}
	switch v.Winner {
	case ringside.WinnerA:
		r.WinnerModel = b.ModelA
	case ringside.WinnerB:
		r.WinnerModel = b.ModelB
	}
	return r
}

func (r *voteRow) csv() []string {
	js := func(v any) string {
		if b, _ := json.Marshal(v); string(b) != "null" {
			return string(b)
		}
		return ""
	}
	return []string{r.VoteID, r.BattleID, r.RunID, r.QuestionID, r.ModelA, r.ModelB, r.Judge, r.JudgeKind,
		string(r.Winner), r.WinnerModel, js(r.Dimensions), r.Reason, strconv.FormatInt(r.DurationMs, 10),
		strconv.Itoa(r.Weight), r.Category, r.Kind, js(r.Tags), strconv.FormatBool(r.IdentityLeak),
		r.CreatedAt.UTC().Format(time.RFC3339Nano)}
}

// exportVotes writes every vote as JSONL or CSV (dimensions and tags as
// JSON in their cells).
func exportVotes(ctx context.Context, db *store.DB, runID, format string, w io.Writer, rows *int) error {
	if format == "csv" {
		cw := csv.NewWriter(w)
		if err := cw.Write(voteCSVHead); err != nil {
			return err
		}
		if err := db.EachExportVote(ctx, runID, func(e *store.ExportVote) error {
			*rows++
			return cw.Write(newVoteRow(e).csv())
		}); err != nil {
			return err
		}
		cw.Flush()
		return cw.Error()
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return db.EachExportVote(ctx, runID, func(e *store.ExportVote) error {
		*rows++
		return enc.Encode(newVoteRow(e))
	})
}

// dpoRow is one preference pair in the conversational format that
// preference-tuning libraries (TRL's DPOTrainer among them) read: the
// prompt's messages, and the chosen and rejected answers as assistant
// turns. The rest says where the pair came from.
type dpoRow struct {
	Prompt        json.RawMessage    `json:"prompt"`
	Chosen        []ringside.Message `json:"chosen"`
	Rejected      []ringside.Message `json:"rejected"`
	BattleID      string             `json:"battle_id"`
	QuestionID    string             `json:"question_id"`
	ChosenModel   string             `json:"chosen_model"`
	RejectedModel string             `json:"rejected_model"`
	VotesChosen   int                `json:"votes_chosen"`
	VotesRejected int                `json:"votes_rejected"`
	Votes         int                `json:"votes"`
}

// exportDPO writes one pair per battle whose votes (by judges of the kind
// asked, "" for any) favour one side: more votes for it than for the
// other. Ties and split battles have no clear winner and are left out, as
// are battles without a stored prompt or with a failed side.
func exportDPO(ctx context.Context, db *store.DB, runID, judgeKind string, w io.Writer, rows *int) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return db.EachPreference(ctx, runID, judgeKind, func(p *store.Preference) error {
		if p.VotesA == p.VotesB {
			return nil
		}
		row := dpoRow{Prompt: p.Messages, BattleID: p.BattleID, QuestionID: p.PromptID, Votes: p.Votes,
			ChosenModel: p.ModelA, RejectedModel: p.ModelB, VotesChosen: p.VotesA, VotesRejected: p.VotesB}
		chosen, rejected := p.OutputA, p.OutputB
		if p.VotesB > p.VotesA {
			row.ChosenModel, row.RejectedModel = p.ModelB, p.ModelA
			row.VotesChosen, row.VotesRejected = p.VotesB, p.VotesA
			chosen, rejected = p.OutputB, p.OutputA
		}
		row.Chosen = []ringside.Message{{Role: "assistant", Content: chosen}}
		row.Rejected = []ringside.Message{{Role: "assistant", Content: rejected}}
		*rows++
		return enc.Encode(&row)
	})
}

var generationCSVHead = []string{"id", "run_id", "prompt_id", "model", "sample", "ttft_ms", "latency_ms", "tokens_in",
	"tokens_out", "tokens_estimated", "cost_usd", "finish_reason", "error_kind", "error", "created_at", "output"}

// exportGenerations writes every generation a page at a time, so memory
// stays flat over a large run.
func exportGenerations(ctx context.Context, db *store.DB, runID, format string, w io.Writer, rows *int) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	cw := csv.NewWriter(w)
	if format == "csv" {
		if err := cw.Write(generationCSVHead); err != nil {
			return err
		}
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	after := ""
	for {
		page, err := db.GenerationsPage(ctx, runID, after, 1000)
		if err != nil {
			return err
		}
		*rows += len(page)
		for i := range page {
			g := &page[i]
			if format == "csv" {
				err = cw.Write([]string{g.ID, g.RunID, g.PromptID, g.Model, strconv.Itoa(g.Sample), f(g.TTFTMs),
					f(g.LatencyMs), strconv.Itoa(g.TokensIn), strconv.Itoa(g.TokensOut), strconv.FormatBool(g.TokensEstimated),
					f(g.CostUSD), g.FinishReason, g.ErrorKind, g.Error, g.CreatedAt.UTC().Format(time.RFC3339Nano), g.Output})
			} else {
				err = enc.Encode(g)
			}
			if err != nil {
				return err
			}
		}
		if len(page) < 1000 {
			break
		}
		after = page[len(page)-1].ID
	}
	cw.Flush()
	return cw.Error()
}

var checkCSVHead = []string{"run", "model", "prompt_id", "sample", "generation_id", "judge_id", "source", "index",
	"type", "dimension", "weight", "pass", "detail", "checked_at", "run_id"}

// exportChecks writes every rules-judge check result, each with the model,
// prompt, sample and run of the generation it judged.
func exportChecks(ctx context.Context, db *store.DB, runID, format string, w io.Writer, rows *int) error {
	if format != "csv" {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		return db.EachExportCheck(ctx, runID, func(e *store.ExportCheck) error {
			*rows++
			return enc.Encode(e)
		})
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(checkCSVHead); err != nil {
		return err
	}
	err := db.EachExportCheck(ctx, runID, func(e *store.ExportCheck) error {
		*rows++
		r := &e.CheckResult
		return cw.Write([]string{e.RunName, e.Model, e.PromptID, strconv.Itoa(e.Sample), r.GenerationID, r.JudgeID,
			r.Source, strconv.Itoa(r.Index), r.Type, r.Dimension, strconv.FormatFloat(r.Weight, 'f', -1, 64),
			strconv.FormatBool(r.Pass), r.Detail, r.CheckedAt.UTC().Format(time.RFC3339Nano), e.RunID})
	})
	if err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}
