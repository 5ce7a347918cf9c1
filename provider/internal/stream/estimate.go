package stream

import (
	"unicode/utf8"

	"github.com/ringside-eval/ringside"
)

// Token estimates for servers that report no usage (and for the simulated
// models, which have no tokenizer). About four characters make a token in
// English text with the common BPE vocabularies; the estimate is marked as
// such wherever it is stored, so nobody mistakes it for a count.
const (
	charsPerToken = 4
	// perMessage is the few tokens a chat template adds around every message
	// (role and separators).
	perMessage = 4
)

// EstimateTokens is the estimated token count of s.
func EstimateTokens(s string) int {
	n := utf8.RuneCountInString(s)
	return (n + charsPerToken - 1) / charsPerToken
}

// EstimateInputTokens is the estimated token count of a chat's messages.
func EstimateInputTokens(msgs []ringside.Message) int {
	n := 0
	for _, m := range msgs {
		n += EstimateTokens(m.Content) + perMessage
	}
	return n
}

// Params are the generation parameters of req: its own, or the model's when
// the caller left them all unset, so that a caller forgetting to copy them
// does not silently run a model with the server's defaults.
func Params(req ringside.Request, m ringside.Model) ringside.Params {
	p := req.Params
	if p.Temperature == nil && p.TopP == nil && p.MaxTokens == 0 && p.Seed == nil && len(p.Stop) == 0 {
		return m.Params
	}
	return p
}
