// Package battlefile reads and writes battle files: JSONL, one battle per
// line, compatible with the public Chatbot Arena battle data
// (docs/formats.md, "Battle record"). It also maps a record to and from the database rows an
// import writes and an export reads, so that what the file holds and what
// the database keeps of it are defined in one place.
//
// The package imports ringside and store; store does not import it back, and
// rank never sees a record (leaderboard.RecordBattle and
// leaderboard.AddRecordMeasures translate).
package battlefile

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/ringside-eval/ringside"
)

// Record is one line of a battle file: the public Chatbot Arena fields,
// ringside's optional ones, and every unknown field kept verbatim in Extra
// so that an export gives it back.
//
// Measured values are pointers because a missing value (unknown) and a zero
// (a free local model, an empty answer) must stay apart in summaries.
type Record struct {
	ModelA string
	ModelB string
	Winner ringside.Winner
	Judge  string
	// QuestionID is the prompt id. A numeric question_id (as in some public
	// files) is kept as its text and written back as a number.
	QuestionID string
	Tstamp     float64 // seconds since the epoch; 0 when absent
	Turn       int
	Anony      *bool

	BattleID     string
	Category     string
	Kind         string
	Tags         []string
	Dimensions   map[string]ringside.Winner
	Sample       int
	IdentityLeak bool

	LatencyMsA, LatencyMsB *float64
	TTFTMsA, TTFTMsB       *float64
	CostUSDA, CostUSDB     *float64
	TokensOutA, TokensOutB *int
	ErrorA, ErrorB         string

	// Extra holds the fields ringside does not know, as raw JSON.
	Extra map[string]json.RawMessage

	questionIDNumber bool
	// conv is conv_metadata's counts when the reader parsed them ahead
	// (ReadStyled), convReady says so.
	conv      [8]convCount
	convReady bool
}

// NumericQuestionID reports whether question_id was a JSON number in the
// file. A store that keeps QuestionID as text keeps this beside it, so that
// an export writes the number back and the file round-trips.
func (r *Record) NumericQuestionID() bool { return r.questionIDNumber }

// SetNumericQuestionID makes Append write QuestionID as a JSON number (when
// it is one in JSON's grammar; otherwise it stays a string).
func (r *Record) SetNumericQuestionID(on bool) { r.questionIDNumber = on }

// VoteWeightField is ringside's battle-record field for what an LLM vote
// counts for (a strong verdict given in both orders counts strong_weight
// times, as Arena-Hard repeats its A>>B verdicts). Export writes it when it
// is not 1; rank honours it for llm judges only, so that a third-party
// field of the same name cannot change a human leaderboard. It is not among
// the known fields: a record keeps it in Extra.
const VoteWeightField = "vote_weight"

// Weight is how many battles the record counts for: its vote_weight when
// an llm judge gave it, 1 otherwise.
func (r *Record) Weight() (int, error) {
	raw, ok := r.Extra[VoteWeightField]
	if !ok || !strings.HasPrefix(r.Judge, ringside.JudgeLLM+":") {
		return 1, nil
	}
	n, err := strconv.Atoi(string(raw))
	if err != nil || n < 0 {
		return 0, ringside.FieldError(VoteWeightField, "must be a whole number, 0 or more (is %s)", raw)
	}
	return n, nil
}

// Measured reports whether the record carries any measured value.
func (r *Record) Measured() bool {
	return r.LatencyMsA != nil || r.LatencyMsB != nil || r.TTFTMsA != nil || r.TTFTMsB != nil ||
		r.CostUSDA != nil || r.CostUSDB != nil || r.TokensOutA != nil || r.TokensOutB != nil ||
		r.ErrorA != "" || r.ErrorB != ""
}
