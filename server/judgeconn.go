package server

import (
	"github.com/gorilla/websocket"
	"github.com/ringside-eval/ringside/judging"
)

// A conn is the judging engine's connection to a judge: each call becomes
// one frame of docs/protocol.md, queued without blocking.
var _ judging.Conn = (*conn)(nil)

func toProgress(p judging.Progress) progress { return progress{Done: p.Done, Quota: p.Quota} }

func (c *conn) Hello(h judging.Hello) {
	c.enqueue(encode(helloMsg{Type: frameHello, Judge: h.Judge, Anonymous: h.Anonymous,
		Progress: toProgress(h.Progress), Dimensions: h.Dimensions, Reveal: h.Reveal}))
}

func (c *conn) Battle(b judging.Battle) {
	c.enqueue(encode(battleMsg{Type: frameBattle, BattleID: b.ID, Messages: b.Messages,
		Dimensions: b.Dimensions, Progress: toProgress(b.Progress), Resumed: b.Resumed, Chat: toChatView(b.Chat)}))
}

func (c *conn) Delta(battleID, side, text string) bool {
	return c.enqueue(encode(deltaMsg{Type: frameDelta, BattleID: battleID, Side: side, Text: text}))
}

// End of a void battle carries the one generic text, whatever failed.
func (c *conn) End(battleID, side string, void bool) bool {
	m := endMsg{Type: frameEnd, BattleID: battleID, Side: side}
	if void {
		m.Error, m.Void = voidMessage, true
	}
	return c.enqueue(encode(m))
}

func (c *conn) Open(battleID string) bool {
	return c.enqueue(encode(openMsg{Type: frameOpen, BattleID: battleID}))
}

func (c *conn) Voted(v judging.Voted) {
	m := votedMsg{Type: frameVoted, BattleID: v.BattleID, Winner: v.Winner, Dimensions: v.Dimensions,
		Duplicate: v.Duplicate, Progress: toProgress(v.Progress), Changeable: v.Changeable, Corrected: v.Corrected,
		Turn: v.Turn}
	if v.Reveal != nil {
		m.Reveal = &reveal{A: v.Reveal.A, B: v.Reveal.B}
	}
	c.enqueue(encode(m))
}

func (c *conn) Done(d judging.Done) {
	m := doneMsg{Type: frameDone, Reason: d.Reason, Progress: toProgress(d.Progress)}
	for _, r := range d.Reveals {
		m.Reveals = append(m.Reveals, revealedMsg{BattleID: r.BattleID, A: r.A, B: r.B, Winner: r.Winner})
	}
	c.enqueue(encode(m))
}

func (c *conn) Error(code, message, battleID string) {
	c.enqueue(errorFrame(code, message, battleID))
}

// Close tells the judge why, where the page needs to know, and closes with
// the matching code.
func (c *conn) Close(why judging.Ending) {
	switch why {
	case judging.Replaced:
		c.enqueue(errorFrame(codeReplaced, "this judge connected again elsewhere", ""))
		c.close(closeReplaced, "connected elsewhere")
	case judging.Revoked:
		c.enqueue(errorFrame(codeUnauthorized, "invite revoked", ""))
		c.close(closeUnauthorized, "invite revoked")
	default:
		c.close(websocket.CloseGoingAway, "server shutting down")
	}
}
