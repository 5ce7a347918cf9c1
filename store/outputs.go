package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ringside-eval/ringside"
)

// The outputs browser's reads: a run's generations as a matrix of prompts
// × models, a page of prompts at a time (keyset pagination on the prompt
// id, so page 100 costs what page 1 does), and one generation with all that
// was said and decided about it.

// OutputsFilter selects the prompts of an outputs page; empty fields select
// everything.
type OutputsFilter struct {
	// Run is the run's name ("" = the newest run).
	Run      string
	Set      string
	Category string
	Kind     string
	Tag      string
	Model    string
	// Failed keeps prompts with a generation (of Model, when set) that
	// failed or failed a check.
	Failed bool
	// After is the last prompt id of the previous page.
	After string
	Limit int
}

// MaxCellChars bounds an answer in a page; the whole one is in
// OutputDetail.
const MaxCellChars = 4000

// OutputsPage is one page of the matrix.
type OutputsPage struct {
	Run    string      `json:"run"`
	Runs   []string    `json:"runs"`
	Models []string    `json:"models"`
	Rows   []OutputRow `json:"rows"`
	// Next is the After of the next page; "" on the last.
	Next   string        `json:"next"`
	Facets OutputsFacets `json:"facets"`
}

// OutputsFacets are the values the filters offer.
type OutputsFacets struct {
	Sets       []string `json:"sets"`
	Categories []string `json:"categories"`
	Tags       []string `json:"tags"`
}

// OutputRow is one prompt and its generations, by model.
type OutputRow struct {
	PromptID string       `json:"prompt_id"`
	Set      string       `json:"set"`
	Category string       `json:"category"`
	Kind     string       `json:"kind"`
	Tags     []string     `json:"tags"`
	Question string       `json:"question"`
	Cells    []OutputCell `json:"cells"`
}

// OutputCell is one generation as the matrix shows it.
type OutputCell struct {
	GenerationID string                 `json:"generation_id"`
	Model        string                 `json:"model"`
	Sample       int                    `json:"sample"`
	Output       string                 `json:"output"`
	Truncated    bool                   `json:"truncated,omitempty"`
	LatencyMs    float64                `json:"latency_ms"`
	CostUSD      float64                `json:"cost_usd"`
	ErrorKind    string                 `json:"error_kind,omitempty"`
	Error        string                 `json:"error,omitempty"`
	Checks       []ringside.CheckResult `json:"checks"`
}

// Outputs returns one page of a run's outputs matrix. Errors: ENOTFOUND for
// an unknown run, EINVALID for a bad limit.
func (db *DB) Outputs(ctx context.Context, f OutputsFilter) (*OutputsPage, error) {
	if f.Limit < 1 || f.Limit > 200 {
		return nil, ringside.FieldError("limit", "must be 1..200 (is %d)", f.Limit)
	}
	page := &OutputsPage{Rows: []OutputRow{}}
	runID, models, err := db.outputsRun(ctx, f.Run, page)
	if err != nil || runID == "" {
		return page, err
	}
	page.Models = models
	if f.Model != "" {
		page.Models = []string{f.Model}
	}
	if err := db.outputsPrompts(ctx, runID, f, page); err != nil {
		return nil, err
	}
	if err := db.outputsCells(ctx, runID, f.Model, page); err != nil {
		return nil, err
	}
	return page, db.outputsFacets(ctx, &page.Facets)
}

// outputsRun finds the run by name (the newest when name is ""), with its
// models, and lists every run's name, newest first.
func (db *DB) outputsRun(ctx context.Context, name string, page *OutputsPage) (string, []string, error) {
	rows, err := db.read.QueryContext(ctx, "SELECT id, name, models FROM runs ORDER BY created_at DESC, name")
	if err != nil {
		return "", nil, err
	}
	defer rows.Close()
	page.Runs = []string{}
	var id string
	var models []string
	for rows.Next() {
		var rid, rname, ms string
		if err := rows.Scan(&rid, &rname, &ms); err != nil {
			return "", nil, err
		}
		page.Runs = append(page.Runs, rname)
		if id == "" && (name == "" || name == rname) {
			id, page.Run = rid, rname
			if err := json.Unmarshal([]byte(ms), &models); err != nil {
				return "", nil, fmt.Errorf("store: run %s models: %w", rname, err)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return "", nil, err
	}
	if id == "" && name != "" {
		return "", nil, ringside.Errorf(ringside.ENOTFOUND, "run %q not found", name)
	}
	return id, models, nil
}

// outputsPrompts reads the page's prompts: those after f.After that match
// the filters and have a generation in the run, one more than the limit to
// know whether there is a next page.
func (db *DB) outputsPrompts(ctx context.Context, runID string, f OutputsFilter, page *OutputsPage) error {
	failed := 0
	if f.Failed {
		failed = 1
	}
	rows, err := db.read.QueryContext(ctx, `SELECT p.id, p.prompt_set, p.category, p.kind, p.tags, p.messages FROM prompts p
		WHERE p.id > $1
		AND ($2 = '' OR p.prompt_set = $2) AND ($3 = '' OR p.category = $3) AND ($4 = '' OR p.kind = $4)
		AND ($5 = '' OR EXISTS (SELECT 1 FROM json_each(p.tags) t WHERE t.value = $5))
		AND EXISTS (SELECT 1 FROM generations g WHERE g.run_id = $6 AND g.prompt_set = p.prompt_set AND g.prompt_id = p.id AND ($7 = '' OR g.model = $7)
			AND ($8 = 0 OR g.error_kind <> ''
				OR EXISTS (SELECT 1 FROM check_results c WHERE c.generation_id = g.id AND c.pass = 0)))
		ORDER BY p.id LIMIT $9`,
		f.After, f.Set, f.Category, f.Kind, f.Tag, runID, f.Model, failed, f.Limit+1)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var r OutputRow
		var tags, messages string
		if err := rows.Scan(&r.PromptID, &r.Set, &r.Category, &r.Kind, &tags, &messages); err != nil {
			return err
		}
		var msgs []ringside.Message
		if err := errors.Join(json.Unmarshal([]byte(tags), &r.Tags), json.Unmarshal([]byte(messages), &msgs)); err != nil {
			return fmt.Errorf("store: prompt %s: %w", r.PromptID, err)
		}
		if len(msgs) > 0 {
			r.Question, _ = clipText(msgs[len(msgs)-1].Content, 600)
		}
		r.Cells = []OutputCell{}
		page.Rows = append(page.Rows, r)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(page.Rows) > f.Limit {
		page.Rows = page.Rows[:f.Limit]
		page.Next = page.Rows[f.Limit-1].PromptID
	}
	return nil
}

// outputsCells fills the rows with their generations and check results.
func (db *DB) outputsCells(ctx context.Context, runID, model string, page *OutputsPage) error {
	if len(page.Rows) == 0 {
		return nil
	}
	byPrompt := make(map[string]*OutputRow, len(page.Rows))
	args := []any{runID, model}
	marks := make([]string, len(page.Rows))
	for i := range page.Rows {
		byPrompt[page.Rows[i].PromptID] = &page.Rows[i]
		args = append(args, page.Rows[i].PromptID)
		marks[i] = fmt.Sprintf("$%d", len(args))
	}
	in := strings.Join(marks, ", ")
	rows, err := db.read.QueryContext(ctx, `SELECT id, prompt_id, model, sample, substr(output, 1, $`+fmt.Sprint(len(args)+1)+`),
		length(output), latency_ms, cost_usd, error_kind, error FROM generations
		WHERE run_id = $1 AND ($2 = '' OR model = $2) AND prompt_id IN (`+in+`)
		ORDER BY prompt_id, model, sample`, append(args, MaxCellChars)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	cells := map[string]*OutputCell{}
	var order []string
	for rows.Next() {
		var c OutputCell
		var prompt string
		var n int
		if err := rows.Scan(&c.GenerationID, &prompt, &c.Model, &c.Sample, &c.Output, &n, &c.LatencyMs, &c.CostUSD, &c.ErrorKind, &c.Error); err != nil {
			return err
		}
		c.Truncated = n > utf8.RuneCountInString(c.Output)
		c.Checks = []ringside.CheckResult{}
		r := byPrompt[prompt]
		r.Cells = append(r.Cells, c)
		order = append(order, c.GenerationID)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	rows.Close()
	// Pointers into Cells are stable now that no row grows.
	for i := range page.Rows {
		for k := range page.Rows[i].Cells {
			cells[page.Rows[i].Cells[k].GenerationID] = &page.Rows[i].Cells[k]
		}
	}
	return db.attachChecks(ctx, order, func(r ringside.CheckResult) {
		c := cells[r.GenerationID]
		c.Checks = append(c.Checks, r)
	})
}

// attachChecks reads the check results of the generations, in order of
// generation, judge and check, and hands each to add.
func (db *DB) attachChecks(ctx context.Context, ids []string, add func(ringside.CheckResult)) error {
	if len(ids) == 0 {
		return nil
	}
	args := make([]any, len(ids))
	marks := make([]string, len(ids))
	for i, id := range ids {
		args[i], marks[i] = id, fmt.Sprintf("$%d", i+1)
	}
	rows, err := db.read.QueryContext(ctx, `SELECT c.generation_id, c.judge_id, c.source, c.idx, c.type, c.dimension, c.weight,
		c.pass, c.detail, c.checked_at, c.cost_usd FROM check_results c
		WHERE c.generation_id IN (`+strings.Join(marks, ", ")+`)
		ORDER BY c.generation_id, c.judge_id, c.source DESC, c.idx`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var r ringside.CheckResult
		var checked string
		if err := rows.Scan(&r.GenerationID, &r.JudgeID, &r.Source, &r.Index, &r.Type, &r.Dimension,
			&r.Weight, &r.Pass, &r.Detail, &checked, &r.CostUSD); err != nil {
			return err
		}
		r.CheckedAt = parseTime(checked)
		add(r)
	}
	return rows.Err()
}

// outputsFacets lists the prompt sets, categories and tags of the stored
// prompts.
func (db *DB) outputsFacets(ctx context.Context, out *OutputsFacets) error {
	for _, q := range []struct {
		sql  string
		dest *[]string
	}{
		{"SELECT DISTINCT prompt_set FROM prompts ORDER BY 1", &out.Sets},
		{"SELECT DISTINCT category FROM prompts WHERE category <> '' ORDER BY 1", &out.Categories},
		{"SELECT DISTINCT t.value FROM prompts p, json_each(p.tags) t ORDER BY 1", &out.Tags},
	} {
		*q.dest = []string{}
		if err := db.readStrings(ctx, q.dest, q.sql); err != nil {
			return err
		}
	}
	return nil
}

func (db *DB) readStrings(ctx context.Context, dest *[]string, query string, args ...any) error {
	rows, err := db.read.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var s sql.NullString
		if err := rows.Scan(&s); err != nil {
			return err
		}
		*dest = append(*dest, s.String)
	}
	return rows.Err()
}

// clipText cuts s to n characters and says whether it did.
func clipText(s string, n int) (string, bool) {
	if utf8.RuneCountInString(s) <= n {
		return s, false
	}
	return string([]rune(s)[:n]), true
}
