package judge

import (
	"fmt"
	"strings"
	"sync"
	"text/template"

	"github.com/ringside-eval/ringside"
)

// MaxAnswerChars bounds each answer in a judging prompt. A runaway answer
// would otherwise cost more to judge than to generate; what is cut is said.
const MaxAnswerChars = 30000

var defaultTemplate = sync.OnceValue(func() *template.Template {
	t, err := ParseTemplate("default", DefaultPrompt)
	if err != nil {
		panic(err) // the embedded prompt is tested
	}
	return t
})

// NewPromptData builds what the judging prompt sees for a prompt and two answers.
func NewPromptData(p *ringside.Prompt, first, second string, useReference bool) PromptData {
	d := PromptData{A: cutAnswer(first), B: cutAnswer(second)}
	if useReference {
		d.Reference = strings.TrimSpace(p.Reference)
	}
	last := len(p.Messages) - 1
	var system, turns []string
	for i, m := range p.Messages {
		switch {
		case i == last:
			d.Question = m.Content
		case m.Role == "system":
			system = append(system, m.Content)
		case m.Role == "assistant":
			turns = append(turns, "Assistant: "+m.Content)
		default:
			turns = append(turns, "User: "+m.Content)
		}
	}
	d.System = strings.Join(system, "\n\n")
	d.Conversation = strings.Join(turns, "\n\n")
	return d
}

func (j *LLM) render(p *ringside.Prompt, first, second string) (string, error) {
	t := j.Template
	if t == nil {
		t = defaultTemplate()
	}
	d := NewPromptData(p, first, second, j.UseReference)
	d.Dimensions = promptDimensions(j.Dimensions)
	var b strings.Builder
	if err := t.Execute(&b, d); err != nil {
		return "", fmt.Errorf("judging prompt: %v", err)
	}
	return b.String(), nil
}

func cutAnswer(s string) string {
	r := []rune(s)
	if len(r) <= MaxAnswerChars {
		return s
	}
	return string(r[:MaxAnswerChars]) + fmt.Sprintf("\n[… %d more characters cut]", len(r)-MaxAnswerChars)
}
