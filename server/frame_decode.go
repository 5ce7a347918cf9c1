package server

import (
	"encoding/json"
	"errors"

	"github.com/ringside-eval/ringside"
)

// decodeFrame reads a frame a judge sent. A refusal is EINVALID naming the
// field at fault: "frame" when the frame is not a JSON object, else the
// field ("dimensions" for a dimension's winner: the error names no key, so
// nothing of the frame is echoed back). What the fields hold
// (a winner, a configured dimension, a reason's length) is the engine's to
// check; the frame is returned whenever it parsed, so a refusal can name
// its battle.
func decodeFrame(data []byte) (inMsg, error) {
	var in inMsg
	if err := json.Unmarshal(data, &in); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return in, ringside.FieldError(te.Field, "has the wrong type (want %s)", jsonKind(te))
		}
		return in, ringside.FieldError("frame", "not a JSON object")
	}
	switch in.Type {
	case frameNext, frameVote, frameSkip, frameFinish, frameSuggest:
		return in, nil
	case frameAsk, frameFollowUp:
		return in, checkText(in.Text)
	case "":
		return in, ringside.FieldError("type", "missing")
	}
	return in, ringside.FieldError("type", "unknown frame type (want vote, skip, next, finish, ask, follow_up or suggest)")
}

// jsonKind names what a field should have been, in JSON's words.
func jsonKind(te *json.UnmarshalTypeError) string {
	if te.Type == nil {
		return "another type"
	}
	switch te.Type.Kind().String() {
	case "string":
		return "a string"
	case "map", "struct":
		return "an object"
	}
	return te.Type.String()
}
