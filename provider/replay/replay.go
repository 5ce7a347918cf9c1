// Package replay streams outputs generated elsewhere (a batch job, another
// tool) from a JSONL file, so that they can be judged in ringside as if they
// were generated live.
//
// Model.Options keys:
//
//	file     string  the JSONL file (required); a relative path is relative to
//	                 the working directory
//	model    string  the name the file's lines use for this model (default the
//	                 model's Name)
//	instant  bool    stream each output at once instead of with its recorded
//	                 timing (default false)
//	speed    number  time scale of the recorded timing: 2 plays it twice as
//	                 fast (default 1)
//
// Each line of the file is one generation:
//
//	{"prompt_id": "refund-001", "model": "gpt-x", "sample": 0, "output": "...",
//	 "ttft_ms": 420, "latency_ms": 2310, "tokens_in": 118, "tokens_out": 240,
//	 "finish_reason": "stop", "error_kind": "", "error": ""}
//
// prompt_id and model are required; sample defaults to 0; other fields are
// optional, and unknown fields are ignored. Lines are keyed by (prompt_id,
// model, sample); a key given twice is an error. A line with an error_kind
// (one of ringside.ErrorKinds) replays as that failure after its output, if
// any. Missing token counts are estimated from the text and marked so.
//
// The recorded timing is kept: the first delta comes at ttft_ms, the rest of
// the text follows in a few chunks spread evenly up to latency_ms, and the
// Result reports the recorded times whatever the speed.
package replay

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/provider/internal/stream"
)

// chunks is how many deltas a recorded output is replayed in: enough that a
// judge sees it stream, few enough that it costs nothing.
const chunks = 8

// Replay is one model's recorded outputs. It is safe for concurrent use.
type Replay struct {
	model   ringside.Model
	file    string
	name    string
	instant bool
	speed   float64
	lines   map[key]record
	opts    stream.Options
}

type key struct {
	prompt string
	sample int
}

// New loads m's outputs from the file in m.Options["file"]. Errors name the
// model and the option, or the file, line and field at fault.
func New(m ringside.Model, opts stream.Options) (*Replay, error) {
	r := &Replay{model: m, name: m.Name, speed: 1, opts: opts.WithDefaults()}
	for k, v := range m.Options {
		var ok bool
		switch k {
		case "file":
			r.file, ok = v.(string)
			ok = ok && r.file != ""
		case "model":
			r.name, ok = v.(string)
			ok = ok && r.name != ""
		case "instant":
			r.instant, ok = v.(bool)
		case "speed":
			r.speed, ok = toFloat(v)
			ok = ok && r.speed > 0
		default:
			return nil, ringside.FieldError("options."+k, "model %q: not an option of provider replay (file, model, instant, speed)", m.Name)
		}
		if !ok {
			return nil, ringside.FieldError("options."+k, "model %q: %v is not a valid value", m.Name, v)
		}
	}
	if r.file == "" {
		return nil, ringside.FieldError("options.file", "model %q: required for provider replay", m.Name)
	}
	lines, err := load(r.file, r.name)
	if err != nil {
		return nil, err
	}
	if len(lines) == 0 {
		return nil, ringside.FieldError("options.model", "model %q: %s has no line for model %q", m.Name, r.file, r.name)
	}
	r.lines = lines
	return r, nil
}

func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	return 0, false
}

// Stream replays the recorded output for (req.PromptID, req.Sample). A
// generation the file does not have is a bad_response error naming both.
func (r *Replay) Stream(ctx context.Context, req ringside.Request, emit func(ringside.Delta)) (ringside.Result, error) {
	rec, ok := r.lines[key{req.PromptID, req.Sample}]
	if !ok {
		return ringside.Result{}, stream.Errorf(ringside.ErrKindBadResponse,
			"replay: %s has no output for prompt %q sample %d of model %q", r.file, req.PromptID, req.Sample, r.name)
	}
	speed := r.speed
	if r.instant {
		speed = 0
	}
	pace := stream.NewPacer(ctx, r.opts, speed)
	ttft, total := rec.ttft(), rec.latency()
	res := ringside.Result{FinishReason: rec.FinishReason, TTFT: total, Total: total}
	var text strings.Builder
	parts := split(rec.Output, chunks)
	for i, part := range parts {
		at := ttft
		if len(parts) > 1 {
			at += (total - ttft) * time.Duration(i) / time.Duration(len(parts)-1)
		}
		if err := pace.Until(at); err != nil {
			res.Text, res.Total = text.String(), at
			return res, err
		}
		if i == 0 {
			res.TTFT = at
		}
		text.WriteString(part)
		emit(ringside.Delta{Text: part, Elapsed: at})
	}
	if err := pace.Until(total); err != nil {
		res.Text = text.String()
		return res, err
	}
	res.Text = text.String()
	res.TokensIn, res.TokensOut = rec.tokens(req.Messages)
	res.TokensEstimated = rec.TokensIn == nil || rec.TokensOut == nil
	if rec.ErrorKind != "" {
		msg := rec.Error
		if msg == "" {
			msg = "replayed failure"
		}
		return res, &ringside.GenerationError{Kind: rec.ErrorKind, Err: fmt.Errorf("%s", msg)}
	}
	return res, nil
}

// split cuts s into at most n pieces of similar length at spaces, so that
// no word is broken across deltas.
func split(s string, n int) []string {
	if s == "" {
		return nil
	}
	var out []string
	size := (len(s) + n - 1) / n
	for len(s) > 0 {
		if len(out) == n-1 || len(s) <= size {
			out = append(out, s)
			break
		}
		cut := strings.IndexByte(s[size:], ' ')
		if cut < 0 {
			out = append(out, s)
			break
		}
		cut += size + 1
		out = append(out, s[:cut])
		s = s[cut:]
	}
	return out
}
