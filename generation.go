package ringside

import (
	"slices"
	"time"
)

// Error kinds of a failed generation. A failure costs one generation (and the
// battles that need it), never the process.
const (
	ErrKindTimeout     = "timeout"
	ErrKindRateLimit   = "rate_limit"
	ErrKindServer      = "server_error"
	ErrKindBadResponse = "bad_response"
	ErrKindCancelled   = "cancelled"
	// ErrKindAuth is a 401 or 403: the key is wrong or lacks the
	// permission. ErrKindUnreachable is a server that could not be reached
	// at all (connection refused, no such host). Both are the operator's
	// to fix, not the model's doing: see OperatorError.
	ErrKindAuth        = "auth"
	ErrKindUnreachable = "unreachable"
)

// ErrorKinds lists the generation error kinds.
var ErrorKinds = []string{ErrKindTimeout, ErrKindRateLimit, ErrKindServer, ErrKindBadResponse, ErrKindCancelled,
	ErrKindAuth, ErrKindUnreachable}

// OperatorError reports whether a failure of this kind is the operator's
// problem (a wrong key, a wrong address) rather than the model's behaviour:
// it says nothing of the model, so it never counts in a model's error rate,
// and calling the model again will fail the same way until someone fixes
// the configuration.
func OperatorError(kind string) bool {
	return kind == ErrKindAuth || kind == ErrKindUnreachable
}

// Generation is one model's output for one prompt and sample number.
type Generation struct {
	ID       string `json:"id"`
	RunID    string `json:"run_id,omitempty"`
	PromptID string `json:"prompt_id"`
	// PromptSet is the set the prompt is in: ids are unique within a set.
	PromptSet string `json:"prompt_set,omitempty"`
	Model     string `json:"model"`
	Sample    int    `json:"sample"`
	Output    string `json:"output"`
	// Timing in milliseconds from the moment the request was sent.
	TTFTMs    float64 `json:"ttft_ms"`
	LatencyMs float64 `json:"latency_ms"`
	TokensIn  int     `json:"tokens_in"`
	TokensOut int     `json:"tokens_out"`
	// TokensEstimated is set when the provider sent no usage and the counts
	// were estimated from the text.
	TokensEstimated bool      `json:"tokens_estimated,omitempty"`
	CostUSD         float64   `json:"cost_usd"`
	FinishReason    string    `json:"finish_reason,omitempty"`
	ErrorKind       string    `json:"error_kind,omitempty"`
	Error           string    `json:"error,omitempty"`
	CreatedAt       time.Time `json:"created_at"`
}

// Failed reports whether the generation ended in an error.
func (g *Generation) Failed() bool { return g.ErrorKind != "" }

// Validate checks a generation's fields.
func (g *Generation) Validate() error {
	if g.PromptID == "" {
		return FieldError("prompt_id", "required")
	}
	if g.Model == "" {
		return FieldError("model", "required")
	}
	if g.Sample < 0 {
		return FieldError("sample", "must not be negative")
	}
	if g.ErrorKind != "" && !slices.Contains(ErrorKinds, g.ErrorKind) {
		return FieldError("error_kind", "%q is not one of %v", g.ErrorKind, ErrorKinds)
	}
	if g.TTFTMs < 0 || g.LatencyMs < 0 || g.TokensIn < 0 || g.TokensOut < 0 || g.CostUSD < 0 {
		return FieldError("latency_ms", "timings, token counts and cost must not be negative")
	}
	return nil
}
