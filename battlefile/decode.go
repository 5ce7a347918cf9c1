package battlefile

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/ringside-eval/ringside"
)

// decoder turns one line into a record. A hand-written scanner handles
// well-formed lines without allocating for the structure; anything it does
// not understand goes to encoding/json, which is slower but names the fault
// precisely. Both paths assign fields through setField, so they agree.
type decoder struct {
	intern map[string]string
	slab   slab
}

func newDecoder() *decoder { return &decoder{intern: map[string]string{}} }

func (d *decoder) decode(line []byte, rec *Record) error {
	*rec = Record{}
	// Decoding would quietly turn invalid UTF-8 and lone surrogates into
	// U+FFFD, in fields the export then writes back changed: the file's
	// author fixes them.
	if err := ringside.CheckJSONText(line); err != nil {
		return err
	}
	if d.decodeFast(line, rec) {
		return nil
	}
	*rec = Record{}
	return d.decodeSlow(line, rec)
}

func (d *decoder) decodeFast(b []byte, rec *Record) bool {
	i := skipJSONSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipJSONSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return skipJSONSpace(b, i+1) == len(b) && finish(rec) == nil
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
			return skipJSONSpace(b, i+1) == len(b) && finish(rec) == nil
		}
		return false
	}
}

func (d *decoder) decodeSlow(line []byte, rec *Record) error {
	syntax := func(err error) error {
		if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
			return ringside.Errorf(ringside.EINVALID, "invalid JSON: the line ends inside the battle object")
		}
		return ringside.Errorf(ringside.EINVALID, "invalid JSON: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return syntax(err)
	}
	if delim, ok := tok.(json.Delim); !ok || delim != '{' {
		return ringside.Errorf(ringside.EINVALID, "a battle must be a JSON object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return syntax(err)
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return ringside.FieldError(key, "%s", ringside.ErrorMessage(syntax(err)))
		}
		if err := d.setField(rec, []byte(key), raw, false); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return syntax(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return ringside.Errorf(ringside.EINVALID, "invalid JSON: data after the battle object")
	}
	return finish(rec)
}

// finish checks what a record must have once all fields are read.
func finish(r *Record) error {
	switch {
	case r.ModelA == "":
		return ringside.FieldError("model_a", "required")
	case r.ModelB == "":
		return ringside.FieldError("model_b", "required")
	case r.Winner == "":
		return ringside.FieldError("winner", "required")
	case r.ModelA == r.ModelB:
		return ringside.FieldError("model_b", "a battle needs two different models (both are %q)", r.ModelA)
	}
	return nil
}

// setField assigns one field from its raw JSON value. fast is set on the
// scanner's path, where raw of an unknown field has not been validated yet.
func (d *decoder) setField(r *Record, key, raw []byte, fast bool) error {
	if f := fieldByName(key); f != nil {
		return f.set(d, r, key, raw)
	}
	if fast && !json.Valid(raw) {
		return ringside.FieldError(string(key), "invalid JSON")
	}
	if r.Extra == nil {
		r.Extra = map[string]json.RawMessage{}
	}
	r.Extra[string(key)] = append(json.RawMessage(nil), raw...)
	return nil
}

// str reads a JSON string (null reads as ""). Values of fields with few
// distinct values (model names, judges, categories) are interned, so a
// million-line file holds each name once.
func (d *decoder) str(key, raw []byte, intern bool) (string, error) {
	s, ok := d.strValue(raw, intern)
	if !ok {
		return "", ringside.FieldError(string(key), "must be a string")
	}
	return s, nil
}

func (d *decoder) strValue(raw []byte, intern bool) (string, bool) {
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

func (d *decoder) tags(raw []byte) ([]string, error) {
	if string(raw) == "null" {
		return nil, nil
	}
	bad := ringside.FieldError("tags", "must be a list of strings")
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

func (d *decoder) dimensions(raw []byte) (map[string]ringside.Winner, error) {
	if string(raw) == "null" {
		return nil, nil
	}
	bad := ringside.FieldError("dimensions", "must be an object of dimension: winner")
	if len(raw) < 2 || raw[0] != '{' {
		return nil, bad
	}
	dims := map[string]ringside.Winner{}
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
			return nil, ringside.FieldError("dimensions."+name, "must be a string")
		}
		w, err := ringside.ParseArenaWinner(v)
		if err != nil {
			return nil, ringside.FieldError("dimensions."+name, "%q is not one of model_a, model_b, tie, tie (bothbad), both_bad", v)
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
		return 0, false, ringside.FieldError(string(key), "must be a number")
	}
	if f, ok = smallInt(raw); !ok {
		f, err = strconv.ParseFloat(string(raw), 64)
	}
	if err != nil || math.IsInf(f, 0) {
		return 0, false, ringside.FieldError(string(key), "%s is out of range", raw)
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
		return 0, false, ringside.FieldError(string(key), "must be a whole number (is %s)", raw)
	}
	return int(f), true, nil
}

func (d *decoder) measure(key, raw []byte) (*float64, error) {
	f, ok, err := rawNumber(key, raw)
	if !ok || err != nil {
		return nil, err
	}
	if f < 0 {
		return nil, ringside.FieldError(string(key), "must not be negative")
	}
	return d.slab.float(f), nil
}

func (d *decoder) count(key, raw []byte) (*int, error) {
	n, ok, err := rawInt(key, raw)
	if !ok || err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, ringside.FieldError(string(key), "must not be negative")
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
	return false, false, ringside.FieldError(string(key), "must be true or false")
}
