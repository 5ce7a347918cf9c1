package battlefile

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ringside-eval/ringside"
)

// field is one field ringside reads and writes itself. The list below is
// the only list of them: the decoder, the writer and the import's extra
// fields all follow it, so a new field cannot be known to one and not to
// the others.
type field struct {
	name string
	// prefix is `,"name":`, what the writer puts before the value.
	prefix string
	// set assigns the field from its raw JSON value.
	set func(d *decoder, r *Record, key, raw []byte) error
	// value appends the value as JSON; ok is false when the record leaves
	// the field out (a zero optional value).
	value func(r *Record, b []byte) (_ []byte, ok bool, err error)
	// columnless reports that an imported battle has no column for the
	// field's value, so the import keeps it among the battle's extra
	// fields and the export puts it back in place. nil: it has a column.
	columnless func(r *Record) bool
	// measured marks a side's measurement (latency, cost, tokens, error),
	// which the leaderboard's measurements read back from imports.
	measured bool
}

// fields are in the order the writer writes them: the public Chatbot Arena
// fields first, then ringside's.
var fields = []field{
	{name: "model_a", set: func(d *decoder, r *Record, key, raw []byte) (err error) {
		r.ModelA, err = d.str(key, raw, true)
		return err
	}, value: stringValue(func(r *Record) *string { return &r.ModelA })},
	{name: "model_b", set: func(d *decoder, r *Record, key, raw []byte) (err error) {
		r.ModelB, err = d.str(key, raw, true)
		return err
	}, value: stringValue(func(r *Record) *string { return &r.ModelB })},
	{name: "winner", set: setWinner, value: func(r *Record, b []byte) ([]byte, bool, error) {
		return appendJSONString(b, r.Winner.ArenaWinner()), true, nil
	}},
	{name: "judge", set: func(d *decoder, r *Record, key, raw []byte) (err error) {
		r.Judge, err = d.str(key, raw, true)
		return err
	}, value: stringValue(func(r *Record) *string { return &r.Judge })},
	{name: "question_id", set: setQuestionID, value: questionIDValue, columnless: (*Record).NumericQuestionID},
	{name: "tstamp", set: func(d *decoder, r *Record, key, raw []byte) (err error) {
		r.Tstamp, _, err = rawNumber(key, raw)
		return err
	}, value: func(r *Record, b []byte) ([]byte, bool, error) {
		return appendJSONFloat(b, r.Tstamp), r.Tstamp != 0, nil
	}, columnless: always},
	{name: "turn", set: setInt(func(r *Record) *int { return &r.Turn }), value: intValue(func(r *Record) *int { return &r.Turn }), columnless: always},
	{name: "anony", set: setAnony, value: func(r *Record, b []byte) ([]byte, bool, error) {
		if r.Anony == nil {
			return b, false, nil
		}
		return strconv.AppendBool(b, *r.Anony), true, nil
	}, columnless: always},
	{name: "battle_id", set: setString(func(r *Record) *string { return &r.BattleID }, false), value: stringValue(func(r *Record) *string { return &r.BattleID })},
	{name: "category", set: setString(func(r *Record) *string { return &r.Category }, true), value: stringValue(func(r *Record) *string { return &r.Category })},
	{name: "kind", set: setKind, value: stringValue(func(r *Record) *string { return &r.Kind })},
	{name: "tags", set: func(d *decoder, r *Record, _, raw []byte) (err error) {
		r.Tags, err = d.tags(raw)
		return err
	}, value: tagsValue},
	{name: "dimensions", set: func(d *decoder, r *Record, _, raw []byte) (err error) {
		r.Dimensions, err = d.dimensions(raw)
		return err
	}, value: dimensionsValue},
	{name: "sample", set: setInt(func(r *Record) *int { return &r.Sample }), value: intValue(func(r *Record) *int { return &r.Sample })},
	{name: "identity_leak", set: func(d *decoder, r *Record, key, raw []byte) (err error) {
		r.IdentityLeak, _, err = rawBool(key, raw)
		return err
	}, value: func(r *Record, b []byte) ([]byte, bool, error) {
		return append(b, "true"...), r.IdentityLeak, nil
	}},
	measureField("latency_ms_a", func(r *Record) **float64 { return &r.LatencyMsA }),
	measureField("latency_ms_b", func(r *Record) **float64 { return &r.LatencyMsB }),
	measureField("ttft_ms_a", func(r *Record) **float64 { return &r.TTFTMsA }),
	measureField("ttft_ms_b", func(r *Record) **float64 { return &r.TTFTMsB }),
	measureField("cost_usd_a", func(r *Record) **float64 { return &r.CostUSDA }),
	measureField("cost_usd_b", func(r *Record) **float64 { return &r.CostUSDB }),
	countField("tokens_out_a", func(r *Record) **int { return &r.TokensOutA }),
	countField("tokens_out_b", func(r *Record) **int { return &r.TokensOutB }),
	{name: "error_a", set: setString(func(r *Record) *string { return &r.ErrorA }, false), value: stringValue(func(r *Record) *string { return &r.ErrorA }), columnless: always, measured: true},
	{name: "error_b", set: setString(func(r *Record) *string { return &r.ErrorB }, false), value: stringValue(func(r *Record) *string { return &r.ErrorB }), columnless: always, measured: true},
}

// fieldTable finds a field by its name's length and first and last bytes,
// so that the decoder, which looks up every key of every line, compares
// one name rather than searching. A new field whose name collides makes
// the package panic on start, which any test shows: change fieldHash.
var fieldTable = func() (t [256]*field) {
	for i := range fields {
		f := &fields[i]
		f.prefix = `,"` + f.name + `":`
		h := fieldHash(f.name)
		if t[h] != nil {
			panic("battlefile: fields " + t[h].name + " and " + f.name + " collide")
		}
		t[h] = f
	}
	return t
}()

func fieldHash[K string | []byte](key K) uint8 {
	return uint8(len(key) + 2*int(key[0]) + 4*int(key[len(key)-1]))
}

// fieldByName finds a known field, or returns nil.
func fieldByName[K string | []byte](key K) *field {
	if len(key) == 0 {
		return nil
	}
	if f := fieldTable[fieldHash(key)]; f != nil && f.name == string(key) {
		return f
	}
	return nil
}

// MeasuredFields names the fields of a side's measurements, for finding
// the imported battles that carry any (store.EachImportedMeasures).
func MeasuredFields() []string {
	var out []string
	for _, f := range fields {
		if f.measured {
			out = append(out, f.name)
		}
	}
	return out
}

func always(*Record) bool { return true }

func setString(p func(*Record) *string, intern bool) func(*decoder, *Record, []byte, []byte) error {
	return func(d *decoder, r *Record, key, raw []byte) (err error) {
		*p(r), err = d.str(key, raw, intern)
		return err
	}
}

func stringValue(p func(*Record) *string) func(*Record, []byte) ([]byte, bool, error) {
	return func(r *Record, b []byte) ([]byte, bool, error) {
		s := *p(r)
		return appendJSONString(b, s), s != "", nil
	}
}

func setInt(p func(*Record) *int) func(*decoder, *Record, []byte, []byte) error {
	return func(d *decoder, r *Record, key, raw []byte) (err error) {
		*p(r), _, err = rawInt(key, raw)
		return err
	}
}

func intValue(p func(*Record) *int) func(*Record, []byte) ([]byte, bool, error) {
	return func(r *Record, b []byte) ([]byte, bool, error) {
		n := *p(r)
		return strconv.AppendInt(b, int64(n), 10), n != 0, nil
	}
}

// measureField is a measured value of one side: optional, not negative,
// and without a column of its own.
func measureField(name string, p func(*Record) **float64) field {
	return field{name: name, columnless: always, measured: true,
		set: func(d *decoder, r *Record, key, raw []byte) (err error) {
			*p(r), err = d.measure(key, raw)
			return err
		},
		value: func(r *Record, b []byte) ([]byte, bool, error) {
			if f := *p(r); f != nil {
				return appendJSONFloat(b, *f), true, nil
			}
			return b, false, nil
		}}
}

// countField is measureField for a whole number.
func countField(name string, p func(*Record) **int) field {
	return field{name: name, columnless: always, measured: true,
		set: func(d *decoder, r *Record, key, raw []byte) (err error) {
			*p(r), err = d.count(key, raw)
			return err
		},
		value: func(r *Record, b []byte) ([]byte, bool, error) {
			if n := *p(r); n != nil {
				return strconv.AppendInt(b, int64(*n), 10), true, nil
			}
			return b, false, nil
		}}
}

func setWinner(d *decoder, r *Record, key, raw []byte) error {
	switch string(raw) { // the spellings of nearly every line, without a string
	case `"model_a"`:
		r.Winner = ringside.WinnerA
	case `"model_b"`:
		r.Winner = ringside.WinnerB
	case `"tie"`:
		r.Winner = ringside.WinnerTie
	case `"tie (bothbad)"`:
		r.Winner = ringside.WinnerBothBad
	default:
		s, err := d.str(key, raw, true)
		if err == nil && s != "" {
			r.Winner, err = ringside.ParseArenaWinner(s)
		}
		return err
	}
	return nil
}

func setQuestionID(d *decoder, r *Record, _, raw []byte) error {
	if len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9') {
		if !isJSONNumber(raw) {
			return ringside.FieldError("question_id", "must be a string or a number")
		}
		r.QuestionID, r.questionIDNumber = string(raw), true
		return nil
	}
	var ok bool
	r.QuestionID, ok = d.strValue(raw, false)
	r.questionIDNumber = false
	if !ok {
		return ringside.FieldError("question_id", "must be a string or a number")
	}
	return nil
}

func questionIDValue(r *Record, b []byte) ([]byte, bool, error) {
	if r.questionIDNumber && isJSONNumber([]byte(r.QuestionID)) {
		return append(b, r.QuestionID...), true, nil
	}
	return appendJSONString(b, r.QuestionID), r.QuestionID != "", nil
}

func setAnony(d *decoder, r *Record, key, raw []byte) error {
	b, ok, err := rawBool(key, raw)
	r.Anony = nil
	if ok {
		r.Anony = d.slab.bool(b)
	}
	return err
}

func setKind(d *decoder, r *Record, key, raw []byte) (err error) {
	if r.Kind, err = d.str(key, raw, true); err == nil && r.Kind != "" && !slices.Contains(ringside.Kinds, r.Kind) {
		err = ringside.FieldError("kind", "%q is not one of %s", r.Kind, strings.Join(ringside.Kinds, ", "))
	}
	return err
}

func tagsValue(r *Record, b []byte) ([]byte, bool, error) {
	if r.Tags == nil {
		return b, false, nil
	}
	b = append(b, '[')
	for i, t := range r.Tags {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, t)
	}
	return append(b, ']'), true, nil
}

func dimensionsValue(r *Record, b []byte) ([]byte, bool, error) {
	if r.Dimensions == nil {
		return b, false, nil
	}
	names := make([]string, 0, len(r.Dimensions))
	for name := range r.Dimensions {
		names = append(names, name)
	}
	sort.Strings(names)
	b = append(b, '{')
	for i, name := range names {
		w := r.Dimensions[name]
		if err := w.Validate(); err != nil {
			return b, false, ringside.FieldError("dimensions."+name, "%q is not one of a, b, tie, bothbad", string(w))
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(append(appendJSONString(b, name), ':'), w.ArenaWinner())
	}
	return append(b, '}'), true, nil
}

// finite checks the record's floating-point values, which JSON cannot
// carry when they are NaN or infinite.
func finite(r *Record) error {
	for _, f := range []*float64{&r.Tstamp, r.LatencyMsA, r.LatencyMsB, r.TTFTMsA, r.TTFTMsB, r.CostUSDA, r.CostUSDB} {
		if f != nil && (math.IsNaN(*f) || math.IsInf(*f, 0)) {
			return ringside.Errorf(ringside.EINVALID, "battle %s: a measured value is not finite", r.BattleID)
		}
	}
	return nil
}
