package server

import (
	"strings"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/judging"
)

// The frames of chat battles (docs/protocol.md, "Chat battles"). Like every
// frame before a vote, they carry the judge's own questions and the blinded
// answers, never a model.

// Frame types of chat battles.
const (
	frameChat       = "chat"       // server: write a question
	frameTurn       = "turn"       // server: a follow-up turn starts
	frameSuggestion = "suggestion" // server: a question drawn for the judge
	frameAsk        = "ask"        // judge: the first question
	frameFollowUp   = "follow_up"  // judge: a further question
	frameSuggest    = "suggest"    // judge: "give me one"
)

type chatMsg struct {
	Type           string   `json:"type"`
	Dimensions     []string `json:"dimensions"`
	Progress       progress `json:"progress"`
	MaxPromptChars int      `json:"max_prompt_chars"`
	MaxTurns       int      `json:"max_turns"`
	Draft          string   `json:"draft,omitempty"`
}

type chatExchange struct {
	Question string `json:"question"`
	A        string `json:"a"`
	B        string `json:"b"`
}

type chatView struct {
	Turn     int            `json:"turn"`
	MaxTurns int            `json:"max_turns"`
	Earlier  []chatExchange `json:"earlier"`
}

type turnMsg struct {
	Type     string `json:"type"`
	BattleID string `json:"battle_id"`
	Turn     int    `json:"turn"`
	Question string `json:"question"`
}

type suggestionMsg struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

func toChatView(v *judging.ChatView) *chatView {
	if v == nil {
		return nil
	}
	out := &chatView{Turn: v.Turn, MaxTurns: v.MaxTurns, Earlier: []chatExchange{}}
	for _, e := range v.Earlier {
		out.Earlier = append(out.Earlier, chatExchange{Question: e.Question, A: e.A, B: e.B})
	}
	return out
}

func (c *conn) Chat(o judging.ChatOffer) {
	c.enqueue(encode(chatMsg{Type: frameChat, Dimensions: o.Dimensions, Progress: toProgress(o.Progress),
		MaxPromptChars: o.MaxPromptChars, MaxTurns: o.MaxTurns, Draft: o.Draft}))
}

func (c *conn) Turn(t judging.ChatTurn) bool {
	return c.enqueue(encode(turnMsg{Type: frameTurn, BattleID: t.BattleID, Turn: t.Turn, Question: t.Question}))
}

func (c *conn) Suggestion(text string) {
	c.enqueue(encode(suggestionMsg{Type: frameSuggestion, Text: text}))
}

// checkText refuses a question that is not there; its length and the
// configured rules are the engine's to check.
func checkText(text string) error {
	if strings.TrimSpace(text) == "" {
		return ringside.FieldError("text", "missing: write a question")
	}
	return nil
}
