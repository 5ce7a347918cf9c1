package replay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/provider/internal/stream"
)

// maxLine bounds one line of a replay file; an output of a long-context
// prompt can be long, but not this long.
const maxLine = 16 << 20

// record is one line of a replay file.
type record struct {
	PromptID     string  `json:"prompt_id"`
	Model        string  `json:"model"`
	Sample       int     `json:"sample"`
	Output       string  `json:"output"`
	TTFTMs       float64 `json:"ttft_ms"`
	LatencyMs    float64 `json:"latency_ms"`
	TokensIn     *int    `json:"tokens_in"`
	TokensOut    *int    `json:"tokens_out"`
	FinishReason string  `json:"finish_reason"`
	ErrorKind    string  `json:"error_kind"`
	Error        string  `json:"error"`
	line         int
}

func (r record) ttft() time.Duration {
	return time.Duration(r.TTFTMs * float64(time.Millisecond))
}

// latency is the recorded total, never before the first token.
func (r record) latency() time.Duration {
	return max(time.Duration(r.LatencyMs*float64(time.Millisecond)), r.ttft())
}

// tokens are the recorded counts, estimated where the file has none.
func (r record) tokens(input []ringside.Message) (in, out int) {
	in, out = stream.EstimateInputTokens(input), stream.EstimateTokens(r.Output)
	if r.TokensIn != nil {
		in = *r.TokensIn
	}
	if r.TokensOut != nil {
		out = *r.TokensOut
	}
	return in, out
}

// load reads the file's lines for the model named name. Every line is
// checked, not only that model's, so that a broken file is found whichever
// model reads it first.
func load(file, name string) (map[key]record, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, ringside.FieldError("options.file", "%v", err)
	}
	defer f.Close()
	out := map[key]record{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		rec, err := parseLine(line)
		if err != nil {
			return nil, ringside.FieldError(fieldOf(err), "%s:%d: %v", file, n, err)
		}
		rec.line = n
		if rec.Model != name {
			continue
		}
		k := key{rec.PromptID, rec.Sample}
		if prev, dup := out[k]; dup {
			return nil, ringside.FieldError("prompt_id", "%s:%d: prompt %q sample %d of model %q is also on line %d",
				file, n, rec.PromptID, rec.Sample, name, prev.line)
		}
		out[k] = rec
	}
	if err := sc.Err(); err != nil {
		return nil, ringside.FieldError("options.file", "%s: %v", file, err)
	}
	return out, nil
}

// lineError is a problem with one field of a line.
type lineError struct {
	field string
	msg   string
}

func (e *lineError) Error() string { return e.field + ": " + e.msg }

func fieldOf(err error) string {
	var le *lineError
	if errors.As(err, &le) {
		return le.field
	}
	return "line"
}

func parseLine(line []byte) (record, error) {
	var r record
	if err := json.Unmarshal(line, &r); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return r, &lineError{te.Field, fmt.Sprintf("want a %s, got a JSON %s", te.Type, te.Value)}
		}
		return r, &lineError{"line", fmt.Sprintf("not a JSON object: %v", err)}
	}
	switch {
	case r.PromptID == "":
		return r, &lineError{"prompt_id", "required"}
	case r.Model == "":
		return r, &lineError{"model", "required"}
	case r.Sample < 0:
		return r, &lineError{"sample", "must not be negative"}
	case r.TTFTMs < 0:
		return r, &lineError{"ttft_ms", "must not be negative"}
	case r.LatencyMs < 0:
		return r, &lineError{"latency_ms", "must not be negative"}
	case r.LatencyMs > 0 && r.LatencyMs < r.TTFTMs:
		return r, &lineError{"latency_ms", fmt.Sprintf("%g is less than ttft_ms %g", r.LatencyMs, r.TTFTMs)}
	case r.TokensIn != nil && *r.TokensIn < 0:
		return r, &lineError{"tokens_in", "must not be negative"}
	case r.TokensOut != nil && *r.TokensOut < 0:
		return r, &lineError{"tokens_out", "must not be negative"}
	case r.ErrorKind != "" && !slices.Contains(ringside.ErrorKinds, r.ErrorKind):
		return r, &lineError{"error_kind", fmt.Sprintf("%q is not one of %v", r.ErrorKind, ringside.ErrorKinds)}
	}
	return r, nil
}
