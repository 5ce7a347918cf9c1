package ringside

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"math"
	"sort"
	"strconv"
	"unicode/utf8"
)

// knownBattleFields are the keys AppendBattleRecord writes itself; Extra
// entries under these names are not written.
var knownBattleFields = map[string]bool{
	"model_a": true, "model_b": true, "winner": true, "judge": true, "question_id": true,
	"tstamp": true, "turn": true, "anony": true, "battle_id": true, "category": true,
	"kind": true, "tags": true, "dimensions": true, "sample": true, "identity_leak": true,
	"latency_ms_a": true, "latency_ms_b": true, "ttft_ms_a": true, "ttft_ms_b": true,
	"cost_usd_a": true, "cost_usd_b": true, "tokens_out_a": true, "tokens_out_b": true,
	"error_a": true, "error_b": true,
}

// AppendBattleRecord appends r to dst as one JSON line (with its newline),
// winners in the arena spelling, ringside's fields after the public ones and
// Extra last in key order. Zero values of optional fields are left out.
func AppendBattleRecord(dst []byte, r *BattleRecord) ([]byte, error) {
	if r.ModelA == "" {
		return dst, FieldError("model_a", "required")
	}
	if r.ModelB == "" {
		return dst, FieldError("model_b", "required")
	}
	if err := r.Winner.Validate(); err != nil {
		return dst, err
	}
	b := append(dst, `{"model_a":`...)
	b = appendJSONString(b, r.ModelA)
	b = appendJSONString(append(b, `,"model_b":`...), r.ModelB)
	b = appendJSONString(append(b, `,"winner":`...), r.Winner.ArenaWinner())
	str := func(key, v string) {
		if v != "" {
			b = appendJSONString(append(append(append(b, ",\""...), key...), "\":"...), v)
		}
	}
	raw := func(key string, v []byte) {
		b = append(append(append(append(b, ",\""...), key...), "\":"...), v...)
	}
	flt := func(key string, f *float64) {
		if f != nil {
			raw(key, appendJSONFloat(nil, *f))
		}
	}
	num := func(key string, n *int) {
		if n != nil {
			raw(key, strconv.AppendInt(nil, int64(*n), 10))
		}
	}
	str("judge", r.Judge)
	if r.questionIDNumber && isJSONNumber([]byte(r.QuestionID)) {
		raw("question_id", []byte(r.QuestionID))
	} else {
		str("question_id", r.QuestionID)
	}
	for _, f := range []*float64{&r.Tstamp, r.LatencyMsA, r.LatencyMsB, r.TTFTMsA, r.TTFTMsB, r.CostUSDA, r.CostUSDB} {
		if f != nil && (math.IsNaN(*f) || math.IsInf(*f, 0)) {
			return dst, Errorf(EINVALID, "battle %s: a measured value is not finite", r.BattleID)
		}
	}
	if r.Tstamp != 0 {
		flt("tstamp", &r.Tstamp)
	}
	if r.Turn != 0 {
		num("turn", &r.Turn)
	}
	if r.Anony != nil {
		raw("anony", strconv.AppendBool(nil, *r.Anony))
	}
	str("battle_id", r.BattleID)
	str("category", r.Category)
	str("kind", r.Kind)
	if r.Tags != nil {
		b = append(b, `,"tags":[`...)
		for i, t := range r.Tags {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, t)
		}
		b = append(b, ']')
	}
	if r.Dimensions != nil {
		names := make([]string, 0, len(r.Dimensions))
		for name := range r.Dimensions {
			names = append(names, name)
		}
		sort.Strings(names)
		b = append(b, `,"dimensions":{`...)
		for i, name := range names {
			w := r.Dimensions[name]
			if err := w.Validate(); err != nil {
				return dst, FieldError("dimensions."+name, "%q is not one of a, b, tie, bothbad", string(w))
			}
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(append(appendJSONString(b, name), ':'), w.ArenaWinner())
		}
		b = append(b, '}')
	}
	if r.Sample != 0 {
		num("sample", &r.Sample)
	}
	if r.IdentityLeak {
		raw("identity_leak", []byte("true"))
	}
	flt("latency_ms_a", r.LatencyMsA)
	flt("latency_ms_b", r.LatencyMsB)
	flt("ttft_ms_a", r.TTFTMsA)
	flt("ttft_ms_b", r.TTFTMsB)
	flt("cost_usd_a", r.CostUSDA)
	flt("cost_usd_b", r.CostUSDB)
	num("tokens_out_a", r.TokensOutA)
	num("tokens_out_b", r.TokensOutB)
	str("error_a", r.ErrorA)
	str("error_b", r.ErrorB)
	keys := make([]string, 0, len(r.Extra))
	for k := range r.Extra {
		if !knownBattleFields[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := r.Extra[k]
		if !json.Valid(v) {
			return dst, FieldError(k, "extra field is not valid JSON")
		}
		b = append(appendJSONString(append(b, ','), k), ':')
		if bytes.ContainsAny(v, "\r\n") {
			var c bytes.Buffer
			_ = json.Compact(&c, v) // valid, checked above
			v = c.Bytes()
		}
		b = append(b, v...)
	}
	return append(b, "}\n"...), nil
}

// BattleWriter writes a battle file. Call Flush at the end.
type BattleWriter struct {
	w   *bufio.Writer
	buf []byte
}

// NewBattleWriter returns a writer of battle records to w.
func NewBattleWriter(w io.Writer) *BattleWriter {
	return &BattleWriter{w: bufio.NewWriterSize(w, 64<<10)}
}

// Write writes one record as one line. Invalid records return an EINVALID
// error and write nothing.
func (bw *BattleWriter) Write(r *BattleRecord) error {
	var err error
	if bw.buf, err = AppendBattleRecord(bw.buf[:0], r); err != nil {
		return err
	}
	_, err = bw.w.Write(bw.buf)
	return err
}

// Flush writes what is buffered to the underlying writer.
func (bw *BattleWriter) Flush() error { return bw.w.Flush() }

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
