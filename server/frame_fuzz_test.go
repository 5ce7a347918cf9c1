package server

import (
	"errors"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ringside-eval/ringside"
)

// Each bad frame is refused naming the field at fault.
func TestDecodeFrameNamesTheField(t *testing.T) {
	for _, tc := range []struct{ frame, field string }{
		{`{not json`, "frame"},
		{`[1, 2]`, "frame"},
		{`"next"`, "frame"},
		{``, "frame"},
		{`null`, "type"},
		{`{}`, "type"},
		{`{"battle_id": "x"}`, "type"},
		{`{"type": "dance"}`, "type"},
		{`{"type": 5}`, "type"},
		{`{"type": "vote", "battle_id": 7}`, "battle_id"},
		{`{"type": "vote", "winner": ["a"]}`, "winner"},
		{`{"type": "vote", "dimensions": ["a"]}`, "dimensions"},
		{`{"type": "vote", "dimensions": {"factual_accuracy": 1}}`, "dimensions"},
		{`{"type": "vote", "reason": {}}`, "reason"},
		{`{"type": "ask"}`, "text"},
		{`{"type": "ask", "text": " \n"}`, "text"},
		{`{"type": "ask", "text": ["x"]}`, "text"},
		{`{"type": "follow_up", "battle_id": "b", "text": ""}`, "text"},
	} {
		_, err := decodeFrame([]byte(tc.frame))
		var e *ringside.Error
		if !errors.As(err, &e) || e.Code != ringside.EINVALID || e.Field != tc.field {
			t.Errorf("%.60s: %v, want EINVALID naming %q", tc.frame, err, tc.field)
		}
	}
	for _, ok := range []string{`{"type":"next"}`, `{"type":"finish","extra":[1]}`, `{"type":"skip","battle_id":"b"}`, `{"type":"suggest"}`, `{"type":"ask","text":"hi"}`} {
		if _, err := decodeFrame([]byte(ok)); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}

// protocolFrames are the frames a judge sends in docs/protocol.md's
// session.
func protocolFrames(t testing.TB) []string {
	doc, err := os.ReadFile("../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for line := range strings.Lines(string(doc)) {
		if f, ok := strings.CutPrefix(strings.TrimSpace(line), "→ {"); ok {
			out = append(out, "{"+f)
		}
	}
	if len(out) < 2 {
		t.Fatalf("docs/protocol.md: %d judge frames found, want the session's", len(out))
	}
	return out
}

// FuzzDecodeFrame: whatever a judge sends, decoding does not panic; a
// refusal is EINVALID naming the field at fault without echoing the frame;
// a vote that decodes either validates or is refused naming a field, as
// the engine checks it (ringside.Vote.Validate).
func FuzzDecodeFrame(f *testing.F) {
	for _, s := range protocolFrames(f) {
		f.Add(s)
	}
	for _, s := range []string{
		`{"type":"next"}`, `{"type":"finish"}`, `{"type":"skip","battle_id":"x"}`,
		`{"type": "vote", "winner": "a"}`, `{"type":"vote","battle_id":"b","winner":"bothbad"}`,
		`{"type":"vote","battle_id":"b","winner":"a","dimensions":{"charm":"a"}}`,
		`{"type":"vote","battle_id":"b","winner":"a","dimensions":{"factual_accuracy":"c"}}`,
		`{"type":"vote","battle_id":"b","winner":"c"}`, `{"type":"vote","battle_id":"b","winner":"tie","reason":"x"}`,
		`{"type":"vote","battle_id":"b","winner":"a","dimensions":{"x":null}}`, `{"type":"vote","dimensions":{"a":{"b":1}}}`,
		`{"type":"ask","text":"How do refunds work?"}`, `{"type":"ask","text":"  "}`, `{"type":"ask"}`,
		`{"type":"follow_up","battle_id":"b","text":"And in Germany?"}`, `{"type":"follow_up","battle_id":"b","text":7}`,
		`{"type":"suggest"}`,
		`{not json`, `[1, 2]`, `{"type": 5}`, `{"battle_id": "x"}`, `{"type": "dance"}`, `null`, "{\"type\":\"vote\",\"winner\":\"\xff\"}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, frame string) {
		in, err := decodeFrame([]byte(frame))
		if err != nil {
			var e *ringside.Error
			if !errors.As(err, &e) || e.Code != ringside.EINVALID || e.Field == "" {
				t.Fatalf("%q: %v, want EINVALID naming a field", frame, err)
			}
			msg := ringside.ErrorMessage(err)
			if !strings.HasPrefix(msg, e.Field+": ") || !utf8.ValidString(msg) || len(msg) > 200 {
				t.Fatalf("%q: message %q does not start with its field, or is not short valid text", frame, msg)
			}
			return
		}
		switch in.Type {
		case frameNext, frameSkip, frameFinish, frameSuggest:
			return
		case frameAsk, frameFollowUp:
			if strings.TrimSpace(in.Text) == "" {
				t.Fatalf("%q: a question without text decoded", frame)
			}
			return
		case frameVote:
		default:
			t.Fatalf("%q: decoded with type %q", frame, in.Type)
		}
		v := ringside.Vote{BattleID: in.BattleID, JudgeID: "judge", Winner: ringside.Winner(in.Winner), Reason: in.Reason}
		for dim, w := range in.Dimensions {
			if v.Dimensions == nil {
				v.Dimensions = map[string]ringside.Winner{}
			}
			v.Dimensions[dim] = ringside.Winner(w)
		}
		if err := v.Validate(); err != nil {
			var e *ringside.Error
			if !errors.As(err, &e) || e.Code != ringside.EINVALID || e.Field == "" {
				t.Fatalf("%q: vote refused with %v, want EINVALID naming a field", frame, err)
			}
		}
	})
}
