package ringside

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Hygiene for JSON read from outside files. encoding/json quietly turns
// invalid UTF-8 and lone UTF-16 surrogates ("\ud800") into U+FFFD, and names
// Go types in its errors; a file's author should instead learn which line
// and field to fix, in words.

// CheckJSONText returns a FieldError naming the first string of one JSON
// value that holds invalid UTF-8 or a lone surrogate escape; a line with
// neither costs a scan. Syntax errors are left for the decoder to report.
func CheckJSONText(text []byte) error {
	// Most lines have neither invalid UTF-8 nor a surrogate escape
	// ("\ud800"): they skip the decoding below.
	if utf8.Valid(text) && !bytes.Contains(text, []byte(`\ud`)) && !bytes.Contains(text, []byte(`\uD`)) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	var stack []jsonFrame
	var start int64
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		end := dec.InputOffset()
		raw := text[start:end]
		start = end
		if s, ok := tok.(string); ok {
			if msg := badJSONString(raw); msg != "" {
				field := jsonPath(stack)
				if n := len(stack); n > 0 && stack[n-1].wantKey {
					msg = fmt.Sprintf("the key %q: %s", strings.ToValidUTF8(s, "?"), msg)
				}
				if field == "" {
					return errors.New(msg)
				}
				return FieldError(field, "%s", msg)
			}
		}
		n := len(stack)
		switch {
		case tok == json.Delim('}') || tok == json.Delim(']'):
			stack = valueDone(stack[:n-1])
		case n > 0 && stack[n-1].wantKey:
			stack[n-1].key, _ = tok.(string)
			stack[n-1].wantKey = false
		case tok == json.Delim('{'):
			stack = append(stack, jsonFrame{obj: true, wantKey: true})
		case tok == json.Delim('['):
			stack = append(stack, jsonFrame{})
		default:
			stack = valueDone(stack)
		}
	}
}

// jsonFrame is an open object (the key being read) or array (the index).
type jsonFrame struct {
	obj     bool
	wantKey bool
	key     string
	index   int
}

func valueDone(stack []jsonFrame) []jsonFrame {
	if n := len(stack); n > 0 {
		if stack[n-1].obj {
			stack[n-1].wantKey = true
		} else {
			stack[n-1].index++
		}
	}
	return stack
}

// jsonPath writes the open frames as a field: messages[1].content.
func jsonPath(stack []jsonFrame) string {
	var b strings.Builder
	for _, f := range stack {
		switch {
		case f.obj && f.wantKey:
			// reading a key: the path is the object's
		case f.obj:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(f.key)
		default:
			fmt.Fprintf(&b, "[%d]", f.index)
		}
	}
	return b.String()
}

// badJSONString says what is wrong with a raw string token (with the
// whitespace and punctuation before it), or "".
func badJSONString(raw []byte) string {
	if !utf8.Valid(raw) {
		return "not valid UTF-8"
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		i++
		if i >= len(raw) || raw[i] != 'u' || i+4 >= len(raw) {
			continue
		}
		r, err := strconv.ParseUint(string(raw[i+1:i+5]), 16, 16)
		if err != nil {
			continue
		}
		switch {
		case r >= 0xdc00 && r <= 0xdfff:
			return fmt.Sprintf(`\u%04x is half of a UTF-16 surrogate pair, without its first half`, r)
		case r >= 0xd800 && r <= 0xdbff:
			next := raw[i+5:]
			if len(next) < 6 || next[0] != '\\' || next[1] != 'u' {
				return fmt.Sprintf(`\u%04x is half of a UTF-16 surrogate pair, without its second half`, r)
			}
			lo, err := strconv.ParseUint(string(next[2:6]), 16, 16)
			if err != nil || lo < 0xdc00 || lo > 0xdfff {
				return fmt.Sprintf(`\u%04x is half of a UTF-16 surrogate pair, without its second half`, r)
			}
			i += 6 // the low half is part of this pair
		}
		i += 4
	}
	return ""
}

// jsonFieldError turns encoding/json's errors into ones that name the field
// and the expected value in words.
func jsonFieldError(err error) error {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		// Fields of the embedded Prompt are reported as "Prompt.tags".
		field := strings.TrimPrefix(te.Field, "Prompt.")
		msg := fmt.Sprintf("want %s, got %s", jsonWant(te.Type), jsonGot(te.Value))
		if field == "" {
			return errors.New(msg)
		}
		return FieldError(field, "%s", msg)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("invalid JSON: the line ends before the value does")
	case errors.As(err, &se):
		return fmt.Errorf("invalid JSON at byte %d: %s", se.Offset, strings.TrimPrefix(err.Error(), "json: "))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return FieldError(name, "unknown field")
	}
	return err
}

// jsonWant names what a Go type is written as in JSON.
func jsonWant(t reflect.Type) string {
	if t == nil {
		return "another value"
	}
	switch t.Kind() {
	case reflect.Pointer:
		return jsonWant(t.Elem())
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 && t.Kind() == reflect.Slice {
			return "a JSON value" // json.RawMessage
		}
		return "an array of " + jsonPlural(t.Elem())
	case reflect.Map:
		return "an object"
	case reflect.Struct:
		return "an object (a " + jsonNoun(t) + ")"
	}
	return "another value"
}

func jsonPlural(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "strings"
	case reflect.Struct:
		return jsonNoun(t) + "s"
	case reflect.Slice, reflect.Array:
		return "arrays"
	case reflect.Map:
		return "objects"
	case reflect.Bool:
		return "booleans"
	}
	return "numbers"
}

// jsonNoun turns a type's name into a word: Message → message.
func jsonNoun(t reflect.Type) string {
	if t.Name() == "" {
		return "object"
	}
	return strings.ToLower(t.Name())
}

// jsonGot words encoding/json's description of the value found ("number
// 1.5", "array").
func jsonGot(v string) string {
	kind, rest, _ := strings.Cut(v, " ")
	article := "a "
	if kind == "array" || kind == "object" {
		article = "an "
	}
	if kind == "bool" {
		kind = "boolean"
	}
	if rest != "" {
		return article + kind + " (" + rest + ")"
	}
	return article + kind
}
