package store

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/ringside-eval/ringside"
)

// ExportVote is one vote with its battle, its judge and what was measured
// of the two generations: one line of an exported battle file.
type ExportVote struct {
	Vote                 ringside.Vote
	JudgeKind, JudgeName string
	// Weight is what the vote counts for (see RankVote.Weight).
	Weight int
	Battle ringside.Battle
	// GenA and GenB are the measurements of the battle's generations; nil
	// when the battle has none stored (imported battles).
	GenA, GenB *Measures
}

// JudgeLabel is the judge as battle records write it ("human:7f3c").
func (v *ExportVote) JudgeLabel() string { return v.JudgeKind + ":" + v.JudgeName }

// Measures is what a battle record carries of one side's generation.
type Measures struct {
	TTFTMs, LatencyMs, CostUSD float64
	TokensOut                  int
	ErrorKind                  string
	// Markdown counts the output's Markdown elements, so that an export
	// carries the style features (FastChat's conv_metadata).
	Markdown MarkdownCounts
}

// EachExportVote calls fn for every vote on the battles of a run (on every
// battle when runID is ""), in the order votes were stored — the order
// EachRankVote streams them in, so that a leaderboard from the export
// equals the one from the database, online Elo included. The value passed
// is fresh on each call.
func (db *DB) EachExportVote(ctx context.Context, runID string, fn func(*ExportVote) error) error {
	const cols = `SELECT v.id, v.winner, v.dimensions, v.reason, v.duration_ms, v.created_at, v.judge_id, j.kind, j.name,
		coalesce((SELECT l.weight FROM llm_judgments l WHERE l.vote_id = v.id LIMIT 1), 1),
		b.id, coalesce(b.run_id, ''), b.source, b.prompt_id, b.prompt_set, b.sample, b.model_a, b.model_b,
		coalesce(b.generation_a, ''), coalesce(b.generation_b, ''), b.category, b.kind, b.tags, b.identity_leak,
		b.extra, b.created_at,
		ga.ttft_ms, ga.latency_ms, ga.cost_usd, ga.tokens_out, ga.error_kind, ga.output,
		gb.ttft_ms, gb.latency_ms, gb.cost_usd, gb.tokens_out, gb.error_kind, gb.output`
	const gens = ` LEFT JOIN generations ga ON ga.id = b.generation_a LEFT JOIN generations gb ON gb.id = b.generation_b`
	var rows *sql.Rows
	var err error
	if runID == "" {
		// Votes by rowid, battles and judges looked up: the order costs
		// no sort.
		rows, err = db.read.QueryContext(ctx, cols+` FROM votes v JOIN battles b ON b.id = v.battle_id
			JOIN judges j ON j.id = v.judge_id`+gens+` ORDER BY v.rowid`)
	} else {
		rows, err = db.read.QueryContext(ctx, cols+` FROM battles b JOIN votes v ON v.battle_id = b.id
			JOIN judges j ON j.id = v.judge_id`+gens+` WHERE b.run_id = $1 ORDER BY v.rowid`, runID)
	}
	if err != nil {
		return err
	}
	defer rows.Close()
	// A generation is in many votes: its Markdown is counted once.
	counted := map[string]MarkdownCounts{}
	for rows.Next() {
		var (
			e                      ExportVote
			winner, dims, vAt, bAt string
			tags                   string
			extra                  sql.NullString
			ga, gb                 nullMeasures
			v, b                   = &e.Vote, &e.Battle
		)
		if err := rows.Scan(&v.ID, &winner, &dims, &v.Reason, &v.DurationMs, &vAt, &v.JudgeID, &e.JudgeKind, &e.JudgeName,
			&e.Weight, &b.ID, &b.RunID, &b.Source, &b.PromptID, &b.PromptSet, &b.Sample, &b.ModelA, &b.ModelB,
			&b.GenerationA, &b.GenerationB, &b.Category, &b.Kind, &tags, &b.IdentityLeak, &extra, &bAt,
			&ga.ttft, &ga.latency, &ga.cost, &ga.tokens, &ga.errKind, &ga.output,
			&gb.ttft, &gb.latency, &gb.cost, &gb.tokens, &gb.errKind, &gb.output); err != nil {
			return err
		}
		v.BattleID, v.Winner, v.CreatedAt = b.ID, ringside.Winner(winner), parseTime(vAt)
		if dims != "{}" {
			if err := json.Unmarshal([]byte(dims), &v.Dimensions); err != nil {
				return err
			}
		}
		if tags != "[]" {
			if err := json.Unmarshal([]byte(tags), &b.Tags); err != nil {
				return err
			}
		}
		if extra.Valid {
			b.Extra = json.RawMessage(extra.String)
		}
		b.CreatedAt = parseTime(bAt)
		e.GenA, e.GenB = ga.measures(b.GenerationA, counted), gb.measures(b.GenerationB, counted)
		if err := fn(&e); err != nil {
			return err
		}
	}
	return rows.Err()
}

// nullMeasures scans the generation columns of an outer join.
type nullMeasures struct {
	ttft, latency, cost sql.NullFloat64
	tokens              sql.NullInt64
	errKind, output     sql.NullString
}

func (n *nullMeasures) measures(id string, counted map[string]MarkdownCounts) *Measures {
	if !n.latency.Valid {
		return nil
	}
	md, ok := counted[id]
	if !ok {
		md = CountMarkdown(n.output.String)
		counted[id] = md
	}
	return &Measures{TTFTMs: n.ttft.Float64, LatencyMs: n.latency.Float64, CostUSD: n.cost.Float64,
		TokensOut: int(n.tokens.Int64), ErrorKind: n.errKind.String, Markdown: md}
}

// Preference is a battle with both outputs stored and the decisive votes on
// it: the raw material of a preference (DPO) data set.
type Preference struct {
	BattleID, PromptID string
	// Messages is the prompt's chat messages as stored (JSON).
	Messages         json.RawMessage
	ModelA, ModelB   string
	OutputA, OutputB string
	// VotesA and VotesB count the votes for each side among the judges
	// asked for; Votes counts all their votes, ties included.
	VotesA, VotesB, Votes int
}

// EachPreference calls fn for every battle of a run (of all runs and live
// play when runID is "") that has a prompt, two successful generations and
// at least one vote by a judge of the given kind ("" for any), oldest first.
func (db *DB) EachPreference(ctx context.Context, runID, judgeKind string, fn func(*Preference) error) error {
	rows, err := db.read.QueryContext(ctx, `SELECT b.id, b.prompt_id, p.messages, b.model_a, b.model_b, ga.output, gb.output,
		sum(v.winner = 'a'), sum(v.winner = 'b'), count(*)
		FROM battles b JOIN votes v ON v.battle_id = b.id JOIN judges j ON j.id = v.judge_id
		JOIN generations ga ON ga.id = b.generation_a JOIN generations gb ON gb.id = b.generation_b
		JOIN prompts p ON p.prompt_set = b.prompt_set AND p.id = b.prompt_id
		WHERE ga.error_kind = '' AND gb.error_kind = '' AND ($1 = '' OR j.kind = $1) AND ($2 = '' OR b.run_id = $2)
		AND `+singleTurn+`
		GROUP BY b.id ORDER BY b.id`, judgeKind, runID)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var p Preference
		var msgs string
		if err := rows.Scan(&p.BattleID, &p.PromptID, &msgs, &p.ModelA, &p.ModelB, &p.OutputA, &p.OutputB,
			&p.VotesA, &p.VotesB, &p.Votes); err != nil {
			return err
		}
		p.Messages = json.RawMessage(msgs)
		if err := fn(&p); err != nil {
			return err
		}
	}
	return rows.Err()
}
