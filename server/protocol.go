package server

import (
	"encoding/json"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/judging"
)

// The judges' websocket speaks JSON text frames, each with a "type". The
// frames and every field are documented in docs/protocol.md; keep the two
// in step. Nothing sent before a judge's vote may name or hint at a model:
// these types carry no model name, provider, id, price, token count,
// timing or per-model error text, and the tests read every frame to check.

// Frame types, server to judge.
const (
	frameHello  = "hello"
	frameBattle = "battle"
	frameDelta  = "delta"
	frameEnd    = "end"
	frameOpen   = "open"
	frameVoted  = "voted"
	frameDone   = "done"
	frameError  = "error"
)

// Frame types, judge to server.
const (
	frameVote   = "vote"
	frameSkip   = "skip"
	frameNext   = "next"
	frameFinish = "finish"
)

// Error codes of error frames: the domain's (ringside.ECONFLICT... as the
// engine reports them), plus the protocol's own.
const (
	codeInvalid      = ringside.EINVALID
	codeUnauthorized = ringside.EUNAUTHORIZED
	codeTooLarge     = "too_large"
	codeRateLimited  = judging.CodeRateLimited
	codeReplaced     = "replaced"
)

// Close codes beyond the standard ones (1001 going away, 1009 too big),
// in the private range: the page reconnects after each except where said.
const (
	closeUnauthorized = 4001 // no valid invite: the page does not reconnect
	closeReplaced     = 4002 // the judge connected again elsewhere: the page does not reconnect
	closeTooSlow      = 4003 // the send buffer overflowed
)

// voidMessage is what a judge is told when a side fails. It names no model
// and no provider: the side is random, the cause is not shown.
const voidMessage = "one response failed to generate; this battle is void"

type progress struct {
	Done  int `json:"done"`
	Quota int `json:"quota"` // 0: no quota
}

type helloMsg struct {
	Type       string   `json:"type"`
	Judge      string   `json:"judge"`
	Anonymous  bool     `json:"anonymous,omitempty"`
	Progress   progress `json:"progress"`
	Dimensions []string `json:"dimensions"`
	Reveal     string   `json:"reveal_policy"`
}

type battleMsg struct {
	Type       string             `json:"type"`
	BattleID   string             `json:"battle_id"`
	Messages   []ringside.Message `json:"messages"`
	Dimensions []string           `json:"dimensions"`
	Progress   progress           `json:"progress"`
	Resumed    bool               `json:"resumed,omitempty"`
	Chat       *chatView          `json:"chat,omitempty"`
}

type deltaMsg struct {
	Type     string `json:"type"`
	BattleID string `json:"battle_id"`
	Side     string `json:"side"`
	Text     string `json:"text"`
}

type endMsg struct {
	Type     string `json:"type"`
	BattleID string `json:"battle_id"`
	Side     string `json:"side"`
	Error    string `json:"error,omitempty"`
	Void     bool   `json:"void,omitempty"`
}

type openMsg struct {
	Type     string `json:"type"`
	BattleID string `json:"battle_id"`
}

// reveal names the models of a battle; it is sent only after the vote.
type reveal struct {
	A string `json:"a"`
	B string `json:"b"`
}

type votedMsg struct {
	Type       string                     `json:"type"`
	BattleID   string                     `json:"battle_id"`
	Winner     ringside.Winner            `json:"winner"`
	Dimensions map[string]ringside.Winner `json:"dimensions,omitempty"`
	Duplicate  bool                       `json:"duplicate,omitempty"`
	Reveal     *reveal                    `json:"reveal,omitempty"`
	Progress   progress                   `json:"progress"`
	Changeable bool                       `json:"changeable,omitempty"`
	Corrected  bool                       `json:"corrected,omitempty"`
	Turn       int                        `json:"turn,omitempty"`
}

type revealedMsg struct {
	BattleID string          `json:"battle_id"`
	A        string          `json:"a"`
	B        string          `json:"b"`
	Winner   ringside.Winner `json:"winner"`
}

type doneMsg struct {
	Type     string        `json:"type"`
	Reason   string        `json:"reason"` // judging.DoneQuota, ...
	Progress progress      `json:"progress"`
	Reveals  []revealedMsg `json:"reveals,omitempty"`
}

type errorMsg struct {
	Type     string `json:"type"`
	Code     string `json:"code"`
	Message  string `json:"message"`
	BattleID string `json:"battle_id,omitempty"`
}

// inMsg is any frame a judge sends; which fields matter depends on Type.
type inMsg struct {
	Type       string            `json:"type"`
	BattleID   string            `json:"battle_id"`
	Winner     string            `json:"winner"`
	Dimensions map[string]string `json:"dimensions"`
	Reason     string            `json:"reason"`
	Correction bool              `json:"correction"`
	// Text is the question of ask and follow_up.
	Text string `json:"text"`
}

// encode marshals a server frame. The frames are plain structs of strings,
// so this cannot fail; a failure would be a bug, and panics loudly.
func encode(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("server: encoding a frame: " + err.Error())
	}
	return b
}

func errorFrame(code, message, battleID string) []byte {
	return encode(errorMsg{Type: frameError, Code: code, Message: message, BattleID: battleID})
}
