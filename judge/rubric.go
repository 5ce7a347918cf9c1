package judge

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/ringside-eval/ringside"
)

// Grader is the model an llm_rubric check asks: a configured model (its
// prices give the check's cost) and its client.
type Grader struct {
	Model    ringside.Model
	Streamer ringside.Streamer
}

// rubricPrompt asks for one answer's grade against a rubric, as a JSON
// object and nothing else, which parseRubricVerdict reads strictly.
const rubricPrompt = `You are grading one answer of an AI assistant against a rubric. Judge only
what the rubric asks; say pass when the answer meets it, fail when not.
{{system}}{{conversation}}
[Question]
%s
[End of question]

[Answer]
%s
[End of answer]

[Rubric]
%s
[End of rubric]

Reply with one JSON object and nothing else, on one line:
{"pass": true or false, "reason": "one sentence saying why"}`

// renderRubric fills rubricPrompt for a prompt, an answer and a rubric.
func renderRubric(p *ringside.Prompt, answer, rubric string) string {
	d := NewPromptData(p, answer, "", false)
	text := fmt.Sprintf(rubricPrompt, d.Question, d.A, rubric)
	sys, conv := "", ""
	if d.System != "" {
		sys = "\n[System prompt]\n" + d.System + "\n[End of system prompt]\n"
	}
	if d.Conversation != "" {
		conv = "\n[Conversation so far]\n" + d.Conversation + "\n[End of conversation]\n"
	}
	return strings.Replace(strings.Replace(text, "{{system}}", sys, 1), "{{conversation}}", conv, 1)
}

// rubricVerdict is the only answer a grader may give.
type rubricVerdict struct {
	Pass   *bool   `json:"pass"`
	Reason *string `json:"reason"`
}

// parseRubricVerdict reads a grader's answer strictly: exactly one JSON
// object (a single ```json fence around it is allowed) with a boolean
// "pass" and a string "reason", and no other field. Anything else is no
// verdict: a loose reading would pass an answer on "I can't pass judgment".
func parseRubricVerdict(raw string) (pass bool, reason string, err error) {
	s := strings.TrimSpace(raw)
	if body, ok := strings.CutPrefix(s, "```"); ok {
		body = strings.TrimPrefix(body, "json")
		if body, ok = strings.CutSuffix(strings.TrimSpace(body), "```"); !ok {
			return false, "", fmt.Errorf("unclosed code fence")
		}
		s = strings.TrimSpace(body)
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	var v rubricVerdict
	if err := dec.Decode(&v); err != nil {
		return false, "", fmt.Errorf("not the JSON verdict asked for: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return false, "", fmt.Errorf("text after the JSON verdict")
	}
	if v.Pass == nil || v.Reason == nil {
		return false, "", fmt.Errorf(`the verdict needs both "pass" (true or false) and "reason"`)
	}
	return *v.Pass, strings.TrimSpace(*v.Reason), nil
}

// runRubric asks the grader, and once more when its verdict cannot be read.
// A call that fails, or two unreadable verdicts, fail the check with the
// reason saying so (the grader's failure, not the answer's); cost counts
// every call.
func (c *Check) runRubric(ctx context.Context, gr *Grader, p *ringside.Prompt, g *ringside.Generation) (bool, string, float64) {
	if gr == nil {
		return false, fmt.Sprintf("no grader: model %q is not configured", c.model), 0
	}
	params := gr.Model.Params
	if params.Temperature == nil {
		zero := 0.0 // the same answer should get the same grade
		params.Temperature = &zero
	}
	req := ringside.Request{PromptID: p.ID, Params: params,
		Messages: []ringside.Message{{Role: "user", Content: renderRubric(p, g.Output, c.text)}}}
	cost, last := 0.0, ""
	for attempt := 1; attempt <= 2; attempt++ {
		res, err := gr.Streamer.Stream(ctx, req, func(ringside.Delta) {})
		cost += gr.Model.Cost(res.TokensIn, res.TokensOut)
		if err != nil {
			return false, fmt.Sprintf("grader %s failed: %v", gr.Model.Name, err), cost
		}
		pass, reason, err := parseRubricVerdict(res.Text)
		if err == nil {
			if reason == "" {
				reason = map[bool]string{true: "meets the rubric", false: "does not meet the rubric"}[pass]
			}
			return pass, clipN(reason, maxReason), cost
		}
		last = err.Error()
	}
	return false, fmt.Sprintf("grader %s gave no readable verdict, twice: %s", gr.Model.Name, last), cost
}
