package judge

import (
	"context"
	_ "embed" // the default judging prompt
	"errors"
	"fmt"
	"strings"
	"text/template"

	"github.com/ringside-eval/ringside"
)

// DefaultPrompt is the built-in pairwise judging prompt, a text/template over
// PromptData. A judge's prompt_file replaces it; start from this one.
//
//go:embed pairwise.tmpl
var DefaultPrompt string

// PromptData is what a judging prompt template sees. Fields a prompt does not
// have are empty, so a template tests them with {{if}}.
type PromptData struct {
	// System is the prompt's system messages.
	System string
	// Conversation is the turns before the last user message, as
	// "User: ..." and "Assistant: ..." paragraphs (empty for one turn).
	Conversation string
	// Question is the last user message, the one both answers reply to.
	Question string
	// Reference is the prompt's reference answer when the judge is set to
	// use it.
	Reference string
	// A is the answer shown first, B the one shown second.
	A, B string
	// Dimensions lists the dimensions to give a verdict on, each besides
	// the overall verdict; empty when only the overall verdict is wanted.
	Dimensions []Dimension
}

// ParseTemplate parses a judging prompt and tries it on sample data, so a
// misspelt field is an error when the judge is set up, not on the first
// battle.
func ParseTemplate(name, text string) (*template.Template, error) {
	t, err := template.New(name).Option("missingkey=error").Parse(text)
	if err != nil {
		return nil, ringside.Errorf(ringside.EINVALID, "judging prompt %s: %v", name, err)
	}
	sample := PromptData{System: "s", Conversation: "c", Question: "q", Reference: "r", A: "a", B: "b",
		Dimensions: []Dimension{{Name: "d", Description: "about d"}}}
	if err := t.Execute(&strings.Builder{}, sample); err != nil {
		return nil, ringside.Errorf(ringside.EINVALID, "judging prompt %s: %v", name, err)
	}
	return t, nil
}

// LLM is a judge model comparing two answers. Every battle is judged twice,
// once in each order, because judges favour one position; two verdicts that
// disagree on the winner make a tie. It is safe for concurrent use when its
// Streamer is.
type LLM struct {
	// Model is the judge model; its prices give the cost of judging.
	Model    ringside.Model
	Streamer ringside.Streamer
	// Template is the judging prompt (ParseTemplate(DefaultPrompt) when nil).
	Template *template.Template
	// UseReference shows the judge the prompt's reference answer.
	UseReference bool
	// StrongWeight is what a vote counts for when both orders gave the same
	// strong verdict (A>>B, then B>>A swapped); 0 means 1.
	StrongWeight int
	// Dimensions are the dimensions to ask a verdict on, each besides the
	// overall one (nil: the overall verdict only). They never fail a
	// judgment: a dimension not answered in both orders is left out.
	Dimensions []string
}

// Call is one request to the judge model.
type Call struct {
	// Swapped is set for the second order, in which the battle's side b was
	// shown as A.
	Swapped bool `json:"swapped"`
	// Attempt counts from 1; an unparseable verdict is asked again once.
	Attempt   int     `json:"attempt"`
	Raw       string  `json:"raw"`
	Label     Label   `json:"label,omitempty"`
	Rationale string  `json:"rationale,omitempty"`
	TokensIn  int     `json:"tokens_in"`
	TokensOut int     `json:"tokens_out"`
	CostUSD   float64 `json:"cost_usd"`
	LatencyMs float64 `json:"latency_ms"`
	// Error is set when the call failed or its verdict could not be read.
	Error string `json:"error,omitempty"`

	// DimensionLabels are the dimension verdicts read in Raw, by dimension,
	// whether or not the overall verdict could be read.
	DimensionLabels map[string]Label `json:"dimension_labels,omitempty"`
}

// Judgment is the outcome of judging one battle.
type Judgment struct {
	// Winner is the combined verdict; empty when Failed.
	Winner ringside.Winner
	// Dimensions holds the combined verdict of each dimension read in both
	// orders; nil when there is none.
	Dimensions map[string]ringside.Winner
	// Weight is what the vote counts for (StrongWeight or 1).
	Weight int
	Reason string
	Calls  []Call
	// Failed is set when no verdict could be had: a call failed, or a
	// verdict was unreadable twice. A failure is not a tie.
	Failed              bool
	Error               string
	TokensIn, TokensOut int
	CostUSD             float64
}

// Judge judges one battle: the prompt and the generations shown as side a
// and side b. It returns an error only when ctx ends; every other failure is
// a Judgment with Failed set. When a generation itself failed there is no
// call: the side that answered wins, and two failures are both bad.
func (j *LLM) Judge(ctx context.Context, p *ringside.Prompt, a, b *ringside.Generation) (Judgment, error) {
	if a.Failed() || b.Failed() {
		return failedGenerations(a, b), nil
	}
	var jm Judgment
	var labels [2]Label
	var dims [2]map[string]Label
	for i, swapped := range []bool{false, true} {
		first, second := a.Output, b.Output
		if swapped {
			first, second = second, first
		}
		prompt, err := j.render(p, first, second)
		if err != nil {
			jm.fail(err.Error())
			return jm, nil
		}
		c, err := j.ask(ctx, p, prompt, swapped, &jm)
		if ctx.Err() != nil {
			return jm, ctx.Err()
		}
		if err != nil {
			jm.fail(err.Error())
			return jm, nil
		}
		labels[i], dims[i] = c.Label, c.DimensionLabels
	}
	jm.Winner, jm.Weight = Combine(labels[0], labels[1], j.StrongWeight)
	jm.Dimensions = combineDimensions(dims[0], dims[1])
	jm.Reason = llmReason(jm.Calls)
	return jm, nil
}

// ask makes one order's call, and a second when the verdict is unreadable,
// and returns the call whose verdict was read. Dimension verdicts take no
// part in that: a judge model that gives them badly is not paid twice.
func (j *LLM) ask(ctx context.Context, p *ringside.Prompt, prompt string, swapped bool, jm *Judgment) (Call, error) {
	for attempt := 1; attempt <= 2; attempt++ {
		c := j.call(ctx, p, prompt)
		c.Swapped, c.Attempt = swapped, attempt
		jm.Calls = append(jm.Calls, c)
		jm.TokensIn += c.TokensIn
		jm.TokensOut += c.TokensOut
		jm.CostUSD += c.CostUSD
		if c.Label != "" {
			return c, nil
		}
		if c.Error != errUnparseable {
			// The provider already retried what can be retried.
			return Call{}, errors.New("judge model call failed: " + c.Error)
		}
	}
	return Call{}, fmt.Errorf("unreadable verdict, twice (order %s)", order(swapped))
}

const errUnparseable = "no verdict label in the answer"

func (j *LLM) call(ctx context.Context, p *ringside.Prompt, prompt string) Call {
	params := j.Model.Params
	if params.Temperature == nil {
		// A judge should give the same verdict on the same input.
		zero := 0.0
		params.Temperature = &zero
	}
	req := ringside.Request{PromptID: p.ID, Messages: []ringside.Message{{Role: "user", Content: prompt}}, Params: params}
	res, err := j.Streamer.Stream(ctx, req, func(ringside.Delta) {})
	c := Call{Raw: res.Text, TokensIn: res.TokensIn, TokensOut: res.TokensOut,
		CostUSD: j.Model.Cost(res.TokensIn, res.TokensOut), LatencyMs: float64(res.Total.Microseconds()) / 1000}
	if err != nil {
		c.Error = err.Error()
		return c
	}
	// The dimension lines are taken out first, so that the overall verdict
	// is read from the rest exactly as when no dimension is asked for.
	dims, rest := ParseDimensionVerdicts(res.Text, j.Dimensions)
	c.DimensionLabels = dims
	label, rationale, ok := ParseVerdict(rest)
	if !ok {
		c.Error = errUnparseable
		return c
	}
	c.Label, c.Rationale = label, rationale
	return c
}

func (jm *Judgment) fail(msg string) {
	jm.Failed, jm.Error, jm.Winner, jm.Weight, jm.Dimensions = true, msg, "", 0, nil
}

// Combine merges the verdict from the first order (side a shown as A) and
// the swapped one (side b shown as A) into the battle's winner and the vote's
// weight: different winners make a tie; the same winner counts strongWeight
// (at least 1) only when both verdicts were strong, since one strong and one
// plain verdict is a plain preference.
func Combine(first, swapped Label, strongWeight int) (ringside.Winner, int) {
	w1, w2 := first.Winner(false), swapped.Winner(true)
	if w1 != w2 {
		return ringside.WinnerTie, 1
	}
	if w1 != ringside.WinnerTie && first.Strong() && swapped.Strong() && strongWeight > 1 {
		return w1, strongWeight
	}
	return w1, 1
}

func failedGenerations(a, b *ringside.Generation) Judgment {
	jm := Judgment{Weight: 1}
	switch {
	case a.Failed() && b.Failed():
		jm.Winner = ringside.WinnerBothBad
		jm.Reason = fmt.Sprintf("both generations failed (a: %s, b: %s)", a.ErrorKind, b.ErrorKind)
	case a.Failed():
		jm.Winner = ringside.WinnerB
		jm.Reason = fmt.Sprintf("side a's generation failed (%s)", a.ErrorKind)
	default:
		jm.Winner = ringside.WinnerA
		jm.Reason = fmt.Sprintf("side b's generation failed (%s)", b.ErrorKind)
	}
	return jm
}

// llmReason gives both verdicts in the battle's terms with their rationales.
func llmReason(calls []Call) string {
	var parts []string
	for _, c := range calls {
		if c.Label == "" {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s shown first: %s (%s wins): %s",
			map[bool]string{false: "a", true: "b"}[c.Swapped], c.Label, c.Label.Winner(c.Swapped), clipN(c.Rationale, 300)))
	}
	return strings.Join(parts, " | ")
}

func order(swapped bool) string {
	if swapped {
		return "ba"
	}
	return "ab"
}

func clipN(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
