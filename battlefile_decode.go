package ringside

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// battleDecoder turns one line into a record. A hand-written scanner handles
// well-formed lines without allocating for the structure; anything it does
// not understand goes to encoding/json, which is slower but names the fault
// precisely. Both paths assign fields through setField, so they agree.
type battleDecoder struct {
	intern map[string]string
	slab   slab
}

func (d *battleDecoder) decode(line []byte, rec *BattleRecord) error {
	*rec = BattleRecord{}
	if d.decodeFast(line, rec) {
		return nil
	}
	*rec = BattleRecord{}
	return d.decodeSlow(line, rec)
}

func (d *battleDecoder) decodeFast(b []byte, rec *BattleRecord) bool {
	i := skipJSONSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipJSONSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return skipJSONSpace(b, i+1) == len(b) && finishBattleRecord(rec) == nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return false
		}
		kend, esc, ok := scanJSONString(b, i)
		if !ok {
			return false
		}
		key := b[i+1 : kend-1]
		if esc {
			var s string
			if json.Unmarshal(b[i:kend], &s) != nil {
				return false
			}
			key = []byte(s)
		}
		i = skipJSONSpace(b, kend)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipJSONSpace(b, i+1)
		vend, ok := skipJSONValue(b, i)
		if !ok {
			return false
		}
		if d.setField(rec, key, b[i:vend], true) != nil {
			return false
		}
		i = skipJSONSpace(b, vend)
		if i < len(b) && b[i] == ',' {
			i = skipJSONSpace(b, i+1)
			continue
		}
		if i < len(b) && b[i] == '}' {
			return skipJSONSpace(b, i+1) == len(b) && finishBattleRecord(rec) == nil
		}
		return false
	}
}

func (d *battleDecoder) decodeSlow(line []byte, rec *BattleRecord) error {
	syntax := func(err error) error {
		if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
			return Errorf(EINVALID, "invalid JSON: the line ends inside the battle object")
		}
		return Errorf(EINVALID, "invalid JSON: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return syntax(err)
	}
	if delim, ok := tok.(json.Delim); !ok || delim != '{' {
		return Errorf(EINVALID, "a battle must be a JSON object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return syntax(err)
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return FieldError(key, "%s", ErrorMessage(syntax(err)))
		}
		if err := d.setField(rec, []byte(key), raw, false); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return syntax(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Errorf(EINVALID, "invalid JSON: data after the battle object")
	}
	return finishBattleRecord(rec)
}

// finishBattleRecord checks what a record must have once all fields are read.
func finishBattleRecord(r *BattleRecord) error {
	switch {
	case r.ModelA == "":
		return FieldError("model_a", "required")
	case r.ModelB == "":
		return FieldError("model_b", "required")
	case r.Winner == "":
		return FieldError("winner", "required")
	case r.ModelA == r.ModelB:
		return FieldError("model_b", "a battle needs two different models (both are %q)", r.ModelA)
	}
	return nil
}

// setField assigns one field from its raw JSON value. fast is set on the
// scanner's path, where raw of an unknown field has not been validated yet.
func (d *battleDecoder) setField(r *BattleRecord, key, raw []byte, fast bool) error {
	var err error
	switch string(key) {
	case "model_a":
		r.ModelA, err = d.str(key, raw, true)
	case "model_b":
		r.ModelB, err = d.str(key, raw, true)
	case "winner":
		switch string(raw) { // the spellings of nearly every line, without a string
		case `"model_a"`:
			r.Winner = WinnerA
		case `"model_b"`:
			r.Winner = WinnerB
		case `"tie"`:
			r.Winner = WinnerTie
		case `"tie (bothbad)"`:
			r.Winner = WinnerBothBad
		default:
			var s string
			if s, err = d.str(key, raw, true); err == nil && s != "" {
				r.Winner, err = ParseArenaWinner(s)
			}
		}
	case "judge":
		r.Judge, err = d.str(key, raw, true)
	case "question_id":
		if len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9') {
			if !isJSONNumber(raw) {
				return FieldError("question_id", "must be a string or a number")
			}
			r.QuestionID, r.questionIDNumber = string(raw), true
		} else {
			var ok bool
			if r.QuestionID, ok = d.strValue(raw, false); !ok {
				err = FieldError("question_id", "must be a string or a number")
			}
			r.questionIDNumber = false
		}
	case "tstamp":
		r.Tstamp, _, err = rawNumber(key, raw)
	case "turn":
		r.Turn, _, err = rawInt(key, raw)
	case "anony":
		var b, ok bool
		if b, ok, err = rawBool(key, raw); ok {
			r.Anony = d.slab.bool(b)
		} else {
			r.Anony = nil
		}
	case "battle_id":
		r.BattleID, err = d.str(key, raw, false)
	case "category":
		r.Category, err = d.str(key, raw, true)
	case "kind":
		if r.Kind, err = d.str(key, raw, true); err == nil && r.Kind != "" && !slices.Contains(Kinds, r.Kind) {
			err = FieldError("kind", "%q is not one of typical, edge, adversarial", r.Kind)
		}
	case "tags":
		r.Tags, err = d.tags(raw)
	case "dimensions":
		r.Dimensions, err = d.dimensions(raw)
	case "sample":
		r.Sample, _, err = rawInt(key, raw)
	case "identity_leak":
		r.IdentityLeak, _, err = rawBool(key, raw)
	case "latency_ms_a":
		r.LatencyMsA, err = d.measure(key, raw)
	case "latency_ms_b":
		r.LatencyMsB, err = d.measure(key, raw)
	case "ttft_ms_a":
		r.TTFTMsA, err = d.measure(key, raw)
	case "ttft_ms_b":
		r.TTFTMsB, err = d.measure(key, raw)
	case "cost_usd_a":
		r.CostUSDA, err = d.measure(key, raw)
	case "cost_usd_b":
		r.CostUSDB, err = d.measure(key, raw)
	case "tokens_out_a":
		r.TokensOutA, err = d.count(key, raw)
	case "tokens_out_b":
		r.TokensOutB, err = d.count(key, raw)
	case "error_a":
		r.ErrorA, err = d.str(key, raw, false)
	case "error_b":
		r.ErrorB, err = d.str(key, raw, false)
	default:
		if fast && !json.Valid(raw) {
			return FieldError(string(key), "invalid JSON")
		}
		if r.Extra == nil {
			r.Extra = map[string]json.RawMessage{}
		}
		r.Extra[string(key)] = append(json.RawMessage(nil), raw...)
	}
	return err
}

// str reads a JSON string (null reads as ""). Values of fields with few
// distinct values (model names, judges, categories) are interned, so a
// million-line file holds each name once.
func (d *battleDecoder) str(key, raw []byte, intern bool) (string, error) {
	s, ok := d.strValue(raw, intern)
	if !ok {
		return "", FieldError(string(key), "must be a string")
	}
	return s, nil
}

func (d *battleDecoder) strValue(raw []byte, intern bool) (string, bool) {
	if string(raw) == "null" {
		return "", true
	}
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	end, esc, ok := scanJSONString(raw, 0)
	if !ok || end != len(raw) {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	if esc && (bytes.IndexByte(body, '\\') >= 0 || !utf8.Valid(body)) {
		// encoding/json unescapes and replaces invalid UTF-8 with U+FFFD.
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return s, true
	}
	if !intern {
		return string(body), true
	}
	if s, ok := d.intern[string(body)]; ok {
		return s, true
	}
	s := string(body)
	if len(d.intern) < 1<<16 {
		d.intern[s] = s
	}
	return s, true
}

func (d *battleDecoder) tags(raw []byte) ([]string, error) {
	if string(raw) == "null" {
		return nil, nil
	}
	bad := FieldError("tags", "must be a list of strings")
	if len(raw) < 2 || raw[0] != '[' {
		return nil, bad
	}
	var tags []string
	i := skipJSONSpace(raw, 1)
	if i < len(raw) && raw[i] == ']' {
		return []string{}, nil
	}
	for i < len(raw) {
		end, ok := skipJSONValue(raw, i)
		if !ok {
			return nil, bad
		}
		s, ok := d.strValue(raw[i:end], true)
		if !ok || raw[i] != '"' {
			return nil, bad
		}
		tags = append(tags, s)
		i = skipJSONSpace(raw, end)
		if i < len(raw) && raw[i] == ']' && skipJSONSpace(raw, i+1) == len(raw) {
			return tags, nil
		}
		if i >= len(raw) || raw[i] != ',' {
			return nil, bad
		}
		i = skipJSONSpace(raw, i+1)
	}
	return nil, bad
}

func (d *battleDecoder) dimensions(raw []byte) (map[string]Winner, error) {
	if string(raw) == "null" {
		return nil, nil
	}
	bad := FieldError("dimensions", "must be an object of dimension: winner")
	if len(raw) < 2 || raw[0] != '{' {
		return nil, bad
	}
	dims := map[string]Winner{}
	i := skipJSONSpace(raw, 1)
	if i < len(raw) && raw[i] == '}' {
		return dims, nil
	}
	for i < len(raw) {
		kend, ok := skipJSONValue(raw, i)
		if !ok || raw[i] != '"' {
			return nil, bad
		}
		name, ok := d.strValue(raw[i:kend], true)
		if !ok {
			return nil, bad
		}
		i = skipJSONSpace(raw, kend)
		if i >= len(raw) || raw[i] != ':' {
			return nil, bad
		}
		i = skipJSONSpace(raw, i+1)
		vend, ok := skipJSONValue(raw, i)
		if !ok {
			return nil, bad
		}
		v, ok := d.strValue(raw[i:vend], true)
		if !ok || raw[i] != '"' {
			return nil, FieldError("dimensions."+name, "must be a string")
		}
		w, err := ParseArenaWinner(v)
		if err != nil {
			return nil, FieldError("dimensions."+name, "%q is not one of model_a, model_b, tie, tie (bothbad), both_bad", v)
		}
		dims[name] = w
		i = skipJSONSpace(raw, vend)
		if i < len(raw) && raw[i] == '}' && skipJSONSpace(raw, i+1) == len(raw) {
			return dims, nil
		}
		if i >= len(raw) || raw[i] != ',' {
			return nil, bad
		}
		i = skipJSONSpace(raw, i+1)
	}
	return nil, bad
}

// rawNumber reads a JSON number; ok is false for null.
func rawNumber(key, raw []byte) (f float64, ok bool, err error) {
	if string(raw) == "null" {
		return 0, false, nil
	}
	if !isJSONNumber(raw) {
		return 0, false, FieldError(string(key), "must be a number")
	}
	if f, ok = smallInt(raw); !ok {
		f, err = strconv.ParseFloat(string(raw), 64)
	}
	if err != nil || math.IsInf(f, 0) {
		return 0, false, FieldError(string(key), "%s is out of range", raw)
	}
	return f, true, nil
}

// smallInt reads the common case of a short unsigned integer without
// strconv.
func smallInt(raw []byte) (float64, bool) {
	if len(raw) > 15 {
		return 0, false
	}
	n := 0
	for _, c := range raw {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = 10*n + int(c-'0')
	}
	return float64(n), true
}

// rawInt reads a whole number. 1.0 is accepted because pandas writes
// integer columns with missing values as floats.
func rawInt(key, raw []byte) (int, bool, error) {
	f, ok, err := rawNumber(key, raw)
	if !ok || err != nil {
		return 0, false, err
	}
	if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false, FieldError(string(key), "must be a whole number (is %s)", raw)
	}
	return int(f), true, nil
}

func (d *battleDecoder) measure(key, raw []byte) (*float64, error) {
	f, ok, err := rawNumber(key, raw)
	if !ok || err != nil {
		return nil, err
	}
	if f < 0 {
		return nil, FieldError(string(key), "must not be negative")
	}
	return d.slab.float(f), nil
}

func (d *battleDecoder) count(key, raw []byte) (*int, error) {
	n, ok, err := rawInt(key, raw)
	if !ok || err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, FieldError(string(key), "must not be negative")
	}
	return d.slab.int(n), nil
}

func rawBool(key, raw []byte) (b, ok bool, err error) {
	switch string(raw) {
	case "null":
		return false, false, nil
	case "true":
		return true, true, nil
	case "false":
		return false, true, nil
	}
	return false, false, FieldError(string(key), "must be true or false")
}

// slab hands out pointers for optional values from blocks, so that a
// million records with measurements cost thousands of allocations, not
// millions. Each pointer is distinct; a block lives while any is kept.
type slab struct {
	floats []float64
	ints   []int
	bools  []bool
}

func (s *slab) float(f float64) *float64 {
	if len(s.floats) == 0 {
		s.floats = make([]float64, 1024)
	}
	p := &s.floats[0]
	*p, s.floats = f, s.floats[1:]
	return p
}

func (s *slab) int(n int) *int {
	if len(s.ints) == 0 {
		s.ints = make([]int, 1024)
	}
	p := &s.ints[0]
	*p, s.ints = n, s.ints[1:]
	return p
}

func (s *slab) bool(b bool) *bool {
	if len(s.bools) == 0 {
		s.bools = make([]bool, 1024)
	}
	p := &s.bools[0]
	*p, s.bools = b, s.bools[1:]
	return p
}

func blankLine(b []byte) bool { return skipJSONSpace(b, 0) == len(b) }

func skipJSONSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanJSONString returns the index just past the string that opens at b[i]
// and whether it holds escapes or bytes beyond ASCII (which then need
// encoding/json's decoding). Escapes themselves are checked by whoever
// decodes the string; a raw control character makes the string malformed.
func scanJSONString(b []byte, i int) (end int, special, ok bool) {
	for i++; i < len(b); i++ {
		c := b[i]
		if jsonStringPlain[c] {
			continue
		}
		switch {
		case c == '"':
			return i + 1, special, true
		case c == '\\':
			special = true
			i++
		case c < 0x20:
			return 0, false, false
		default:
			special = true
		}
	}
	return 0, false, false
}

// jsonStringPlain marks the bytes a string scan passes over: printable
// ASCII other than '"' and '\\'.
var jsonStringPlain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// skipJSONValue returns the end of the JSON value that starts at b[i]. It only
// finds the extent; callers validate what they keep.
func skipJSONValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch c := b[i]; {
	case c == '"':
		end, _, ok := scanJSONString(b, i)
		return end, ok
	case c == '{' || c == '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				end, _, ok := scanJSONString(b, i)
				if !ok {
					return 0, false
				}
				i = end
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1, true
				}
			}
			i++
		}
		return 0, false
	case c == 't' || c == 'f' || c == 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if bytes.HasPrefix(b[i:], []byte(lit)) {
				return i + len(lit), true
			}
		}
		return 0, false
	case c == '-' || c >= '0' && c <= '9':
		j := i + 1
		for j < len(b) && (b[j] >= '0' && b[j] <= '9' || b[j] == '.' || b[j] == 'e' || b[j] == 'E' || b[j] == '+' || b[j] == '-') {
			j++
		}
		return j, true
	}
	return 0, false
}

// isJSONNumber reports whether b is exactly a number in JSON's grammar
// (no leading zeros, no leading '+', digits after '.' and 'e').
func isJSONNumber(b []byte) bool {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	digits := func() bool {
		start := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > start
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case !digits():
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	return i == len(b)
}
