package ringside

import (
	"strings"
	"time"
)

// Winner is a judge's verdict on a battle, from the point of view of the sides
// as shown: "a" is the left output, "b" the right one.
type Winner string

const (
	WinnerA       Winner = "a"
	WinnerB       Winner = "b"
	WinnerTie     Winner = "tie"
	WinnerBothBad Winner = "bothbad"
)

// Validate reports whether w is one of the four verdicts.
func (w Winner) Validate() error {
	switch w {
	case WinnerA, WinnerB, WinnerTie, WinnerBothBad:
		return nil
	}
	return FieldError("winner", "%q is not one of a, b, tie, bothbad", string(w))
}

// Score is the outcome for side a under the rating conventions: a win 1, a
// loss 0, a tie of either kind ½.
func (w Winner) Score() float64 {
	switch w {
	case WinnerA:
		return 1
	case WinnerB:
		return 0
	}
	return 0.5
}

// ArenaWinner is w spelled as in the public Chatbot Arena battle files.
func (w Winner) ArenaWinner() string {
	switch w {
	case WinnerA:
		return "model_a"
	case WinnerB:
		return "model_b"
	case WinnerBothBad:
		return "tie (bothbad)"
	}
	return "tie"
}

// ParseArenaWinner reads a `winner` value of a battle file. It accepts the
// public arena spellings (model_a, model_b, tie, tie (bothbad), both_bad) and
// ringside's own (a, b, tie, bothbad).
func ParseArenaWinner(s string) (Winner, error) {
	switch strings.TrimSpace(s) {
	case "model_a", "a":
		return WinnerA, nil
	case "model_b", "b":
		return WinnerB, nil
	case "tie":
		return WinnerTie, nil
	case "tie (bothbad)", "both_bad", "bothbad":
		return WinnerBothBad, nil
	}
	return "", FieldError("winner", "%q is not one of model_a, model_b, tie, tie (bothbad), both_bad", s)
}

// Vote is one judge's verdict on one battle. A judge votes at most once per
// battle.
type Vote struct {
	ID         string            `json:"id"`
	BattleID   string            `json:"battle_id"`
	JudgeID    string            `json:"judge_id"`
	Winner     Winner            `json:"winner"`
	Dimensions map[string]Winner `json:"dimensions,omitempty"`
	Reason     string            `json:"reason,omitempty"`
	// DurationMs is the time from the end of streaming to the vote, when known.
	DurationMs int64     `json:"duration_ms,omitempty"`
	CreatedAt  time.Time `json:"created_at"`
}

// Validate checks the fields a vote must have. Dimension names are checked
// against the configured set by the caller, which knows it.
func (v *Vote) Validate() error {
	if v.BattleID == "" {
		return FieldError("battle_id", "required")
	}
	if v.JudgeID == "" {
		return FieldError("judge_id", "required")
	}
	if err := v.Winner.Validate(); err != nil {
		return err
	}
	for dim, w := range v.Dimensions {
		if err := w.Validate(); err != nil {
			return FieldError("dimensions."+dim, "%q is not one of a, b, tie, bothbad", string(w))
		}
	}
	if v.DurationMs < 0 {
		return FieldError("duration_ms", "must not be negative")
	}
	return nil
}
