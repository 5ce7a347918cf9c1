package battlefile

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"math"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/ringside-eval/ringside"
)

// Append appends r to dst as one JSON line (with its newline), winners in
// the arena spelling, ringside's fields after the public ones and Extra
// last in key order. Zero values of optional fields are left out.
func Append(dst []byte, r *Record) ([]byte, error) {
	if r.ModelA == "" {
		return dst, ringside.FieldError("model_a", "required")
	}
	if r.ModelB == "" {
		return dst, ringside.FieldError("model_b", "required")
	}
	if err := r.Winner.Validate(); err != nil {
		return dst, err
	}
	if err := finite(r); err != nil {
		return dst, err
	}
	b := dst
	for i := range fields {
		f := &fields[i]
		mark := len(b)
		var ok bool
		var err error
		if b, ok, err = f.value(r, append(b, f.prefix...)); err != nil {
			return dst, err
		} else if !ok {
			b = b[:mark]
		}
	}
	b[len(dst)] = '{' // model_a, always there, came with a comma
	b, err := appendExtra(b, r.Extra)
	if err != nil {
		return dst, err
	}
	return append(b, "}\n"...), nil
}

// appendExtra appends the unknown fields in key order. A value is written
// as read, only compacted when it spans lines, since a line is a record.
func appendExtra(b []byte, extra map[string]json.RawMessage) ([]byte, error) {
	keys := make([]string, 0, len(extra))
	for k := range extra {
		if fieldByName(k) == nil {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := extra[k]
		if !json.Valid(v) {
			return b, ringside.FieldError(k, "extra field is not valid JSON")
		}
		b = append(appendJSONString(append(b, ','), k), ':')
		if bytes.ContainsAny(v, "\r\n") {
			var c bytes.Buffer
			_ = json.Compact(&c, v) // valid, checked above
			v = c.Bytes()
		}
		b = append(b, v...)
	}
	return b, nil
}

// Writer writes a battle file. Call Flush at the end.
type Writer struct {
	w   *bufio.Writer
	buf []byte
}

// NewWriter returns a writer of battle records to w.
func NewWriter(w io.Writer) *Writer {
	return &Writer{w: bufio.NewWriterSize(w, 64<<10)}
}

// Write writes one record as one line. Invalid records return an EINVALID
// error and write nothing.
func (bw *Writer) Write(r *Record) error {
	var err error
	if bw.buf, err = Append(bw.buf[:0], r); err != nil {
		return err
	}
	_, err = bw.w.Write(bw.buf)
	return err
}

// Flush writes what is buffered to the underlying writer.
func (bw *Writer) Flush() error { return bw.w.Flush() }

// appendJSONString appends s as a JSON string: like encoding/json, but without
// escaping <, > and &, which are harmless in a data file.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(append(b, s[start:i]...), `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(append(b, s[start:]...), '"')
}

// appendJSONFloat formats f as encoding/json does.
func appendJSONFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
