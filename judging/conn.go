package judging

import "github.com/ringside-eval/ringside"

// Conn is one judge's connection as the engine sees it: what the engine
// tells the judge, in domain terms. The server's websocket turns each call
// into a frame (docs/protocol.md); tests record them. Nothing the engine
// passes before a vote identifies a model: Battle carries the prompt, Delta
// the text, End only whether the battle is void, never why.
//
// The methods must not block: a connection that cannot keep up closes
// itself. Those that stream report whether the message was queued, so the
// engine stops streaming to a connection that is gone.
type Conn interface {
	Hello(Hello)
	Battle(Battle)
	Delta(battleID, side, text string) bool
	// End says a side was shown in full; with void, that a side failed and
	// the battle is void.
	End(battleID, side string, void bool) bool
	// Open says voting on the battle is open.
	Open(battleID string) bool
	Voted(Voted)
	Done(Done)
	// Chat offers the judge a chat battle: the judge writes the question.
	Chat(ChatOffer)
	// Turn starts a follow-up turn of the chat battle being shown; the
	// Delta, End and Open that follow are the new turn's.
	Turn(ChatTurn) bool
	// Suggestion answers the judge's request for a question.
	Suggestion(text string)
	// Error refuses what the judge asked; message is safe to show.
	Error(code, message, battleID string)
	// Close ends the connection for why.
	Close(why Ending)
}

// Ending is why the engine closes a connection.
type Ending int

const (
	// Replaced: the judge connected again elsewhere.
	Replaced Ending = iota + 1
	// Revoked: the judge's invite was revoked.
	Revoked
	// ShuttingDown: the server is stopping.
	ShuttingDown
)

// CodeRateLimited is the error code of a deal refused because an anonymous
// judge asked for too many battles.
const CodeRateLimited = "rate_limited"

// Progress is the votes a judge has cast, and the battles asked of them
// (Quota 0: no quota).
type Progress struct {
	Done, Quota int
}

// Hello greets a judge on every connection.
type Hello struct {
	Judge      string
	Anonymous  bool
	Progress   Progress
	Dimensions []string
	Reveal     string // config.RevealAfterVote, ...
}

// Battle is a battle dealt to a judge: its prompt, never its models.
// Resumed is set when it is the battle the judge was shown already, sent
// again from the start.
type Battle struct {
	ID         string
	Messages   []ringside.Message
	Dimensions []string
	Progress   Progress
	Resumed    bool
	// Chat is set for a chat battle: its turns so far.
	Chat *ChatView
}

// Reveal names the models of a battle; it is sent only after the vote.
type Reveal struct {
	A, B string
}

// Voted acknowledges a committed vote. Duplicate is set when the vote was
// already recorded, and this is its result. Reveal is set under the
// after_vote policy only. Changeable says the judge may still correct the
// vote (until they take the next battle; never once the models were
// shown); Corrected, that this acknowledges a correction.
type Voted struct {
	BattleID   string
	Winner     ringside.Winner
	Dimensions map[string]ringside.Winner
	Duplicate  bool
	Reveal     *Reveal
	Progress   Progress
	Changeable bool
	Corrected  bool
	// Turn is the turn a chat battle was voted at (0 for other battles).
	Turn int
}

// Reasons a session is done.
const (
	DoneQuota    = "quota"
	DoneEmpty    = "empty"
	DoneFinished = "finished"
)

// Revealed is one voted battle with its models, for the after_session
// policy.
type Revealed struct {
	BattleID string
	A, B     string
	Winner   ringside.Winner
}

// Done ends a session: Reason is DoneQuota, DoneEmpty or DoneFinished.
type Done struct {
	Reason   string
	Progress Progress
	Reveals  []Revealed
}

// VoteRequest is a vote as the judge sent it, checked by the engine.
type VoteRequest struct {
	BattleID   string
	Winner     string
	Dimensions map[string]string
	Reason     string
	// Correction asks to replace the judge's last vote (see correct).
	Correction bool
}

// sides maps a side index to its name.
var sides = [2]string{"a", "b"}
