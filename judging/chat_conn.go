package judging

// The messages of chat battles (judging.source "chat"); see Conn.

// ChatOffer asks the judge for a question. Draft is the question of a
// conversation that was just voided, for the judge to try again.
type ChatOffer struct {
	Dimensions     []string
	Progress       Progress
	MaxPromptChars int
	MaxTurns       int
	Draft          string
}

// ChatView is a chat battle as a Battle carries it: the turn being shown
// (its question is the Battle's last message) and the turns before it,
// answered in full.
type ChatView struct {
	Turn     int
	MaxTurns int
	Earlier  []ChatExchange
}

// ChatExchange is one finished turn: the question and both answers.
type ChatExchange struct {
	Question string
	A, B     string
}

// ChatTurn starts turn Turn of a chat battle with the judge's question.
type ChatTurn struct {
	BattleID string
	Turn     int
	Question string
}
