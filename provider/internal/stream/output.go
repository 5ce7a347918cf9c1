package stream

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ringside-eval/ringside"
)

// Output gathers what one attempt of a network stream produced, and passes
// answer text on to the caller the moment it arrives. A provider's decoder
// reports into it; every report that shows the model is still producing
// also feeds the stall watchdog.
type Output struct {
	now   func() time.Time
	start time.Time
	emit  func(ringside.Delta)
	alive func()

	text      strings.Builder
	reasoning int // runes of reasoning, which is billed but not shown
	ttft      time.Duration
	emitted   bool
	in, out   int
	haveIn    bool
	haveOut   bool
	finish    string
	ended     bool
}

func newOutput(now func() time.Time, emit func(ringside.Delta), alive func()) *Output {
	return &Output{now: now, start: now(), emit: emit, alive: alive}
}

// Text is a piece of the answer: it is emitted to the caller at once, and
// the first one sets the time to first token.
func (o *Output) Text(s string) {
	o.alive()
	if s == "" {
		return
	}
	elapsed := o.now().Sub(o.start)
	if !o.emitted {
		o.ttft = elapsed
		o.emitted = true
	}
	o.text.WriteString(s)
	o.emit(ringside.Delta{Text: s, Elapsed: elapsed})
}

// Reasoning is a piece of a reasoning model's thinking. It is not part of
// the answer a judge sees, so it is neither emitted nor counted as the first
// token; it does show the model is alive, and it counts toward the estimated
// output tokens, since it is billed.
func (o *Output) Reasoning(s string) {
	o.alive()
	o.reasoning += utf8.RuneCountInString(s)
}

// Alive reports an event that carries no text but shows the model is still
// producing (a role chunk, a block start, usage).
func (o *Output) Alive() { o.alive() }

// InputTokens records the input token count the server reported.
func (o *Output) InputTokens(n int) { o.in, o.haveIn = n, true }

// OutputTokens records the output token count the server reported.
func (o *Output) OutputTokens(n int) { o.out, o.haveOut = n, true }

// Finish records why the model stopped, in OpenAI's vocabulary (stop,
// length, content_filter, tool_calls).
func (o *Output) Finish(reason string) {
	if reason != "" {
		o.finish = reason
	}
}

// End records the server's end-of-stream marker ([DONE], message_stop).
func (o *Output) End() { o.ended = true }

// Emitted reports whether any text has reached the caller.
func (o *Output) Emitted() bool { return o.emitted }

// complete reports whether the stream ended as the protocol says it should,
// or at least said why the model stopped; anything else was cut short.
func (o *Output) complete() bool { return o.ended || o.finish != "" }

// result is the Result so far; missing token counts are estimated from the
// input and the text.
func (o *Output) result(input []ringside.Message) ringside.Result {
	total := o.now().Sub(o.start)
	r := ringside.Result{
		Text:         o.text.String(),
		TokensIn:     o.in,
		TokensOut:    o.out,
		FinishReason: o.finish,
		TTFT:         o.ttft,
		Total:        total,
	}
	if !o.emitted {
		// No answer text came: the first token of the answer is as late as
		// the whole answer.
		r.TTFT = total
	}
	if !o.haveIn {
		r.TokensIn = EstimateInputTokens(input)
		r.TokensEstimated = true
	}
	if !o.haveOut {
		r.TokensOut = EstimateTokens(r.Text) + (o.reasoning+charsPerToken-1)/charsPerToken
		r.TokensEstimated = true
	}
	return r
}
