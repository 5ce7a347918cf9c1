package battlefile

import (
	"strconv"
	"strings"
)

// conv_metadata's keys that StyleCounts reads, in the order of its result
// (a then b for tokens, headers, lists and bold).
var convKeys = [8]string{
	"sum_assistant_a_tokens", "sum_assistant_b_tokens",
	"header_count_a", "header_count_b", "list_count_a", "list_count_b",
	"bold_count_a", "bold_count_b",
}

// fastConvCounts reads conv_metadata as FastChat writes it (an object of
// numbers, nulls and flat objects of numbers) without reflection: a
// controlled `rank` reads a million of them, and encoding/json took most of
// its reading time. It gives up (ok false) on anything else — escapes, other
// value kinds, keys encoding/json would match case-insensitively, a repeated
// key or level — and StyleCounts then decodes with encoding/json, which also
// produces the errors; on what it accepts the two agree (tested).
func fastConvCounts(raw []byte) (out [8]convCount, ok bool) {
	p := convParser{b: raw}
	if !p.byte('{') {
		return out, false
	}
	if p.byte('}') {
		return out, p.end()
	}
	var seen uint8
	for {
		key, good := p.key()
		if !good {
			return out, false
		}
		slot := convSlot(key)
		if slot < 0 {
			for _, k := range convKeys {
				if strings.EqualFold(string(key), k) {
					return out, false
				}
			}
		}
		c, good := p.value()
		if !good {
			return out, false
		}
		if slot >= 0 {
			if out[slot] != (convCount{}) || seen&(1<<slot) != 0 {
				return out, false // a repeated key: encoding/json's reading is odd
			}
			seen |= 1 << slot
			out[slot] = c
		}
		if p.byte('}') {
			return out, p.end()
		}
		if !p.byte(',') {
			return out, false
		}
	}
}

// convSlot is key's index in convKeys, or -1.
func convSlot(key []byte) int {
	for x, k := range convKeys {
		if string(key) == k {
			return x
		}
	}
	return -1
}

type convParser struct {
	b []byte
	i int
}

func (p *convParser) space() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\t' || p.b[p.i] == '\n' || p.b[p.i] == '\r') {
		p.i++
	}
}

// byte consumes c (after white space) if it comes next.
func (p *convParser) byte(c byte) bool {
	p.space()
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *convParser) end() bool {
	p.space()
	return p.i == len(p.b)
}

// key reads a string without escapes and the colon after it.
func (p *convParser) key() ([]byte, bool) {
	if !p.byte('"') {
		return nil, false
	}
	start := p.i
	for p.i < len(p.b) && jsonStringPlain[p.b[p.i]] {
		p.i++
	}
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return nil, false
	}
	key := p.b[start:p.i]
	p.i++
	return key, p.byte(':')
}

// value reads a number, null (not known), or a flat object of numbers
// (summed, each level once).
func (p *convParser) value() (convCount, bool) {
	p.space()
	if string(p.b[p.i:min(p.i+4, len(p.b))]) == "null" {
		p.i += 4
		return convCount{}, true
	}
	if !p.byte('{') {
		n, ok := p.number()
		return convCount{n: n, ok: true}, ok
	}
	c := convCount{ok: true}
	if p.byte('}') {
		return c, true
	}
	var seenBuf [8][]byte
	seen := seenBuf[:0]
	for {
		key, ok := p.key()
		if !ok {
			return c, false
		}
		for _, s := range seen {
			if string(s) == string(key) {
				return c, false // encoding/json keeps the last; not worth the detour
			}
		}
		seen = append(seen, key)
		n, ok := p.number()
		if !ok {
			return c, false
		}
		c.n += n
		if p.byte('}') {
			return c, true
		}
		if !p.byte(',') {
			return c, false
		}
	}
}

// number reads a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *convParser) number() (float64, bool) {
	p.space()
	b, start := p.b, p.i
	digits := func() bool {
		at := p.i
		for p.i < len(b) && b[p.i] >= '0' && b[p.i] <= '9' {
			p.i++
		}
		return p.i > at
	}
	if p.i < len(b) && b[p.i] == '-' {
		p.i++
	}
	if p.i < len(b) && b[p.i] == '0' {
		p.i++
	} else if !digits() {
		return 0, false
	}
	if p.i < len(b) && b[p.i] == '.' {
		p.i++
		if !digits() {
			return 0, false
		}
	}
	if p.i < len(b) && (b[p.i] == 'e' || b[p.i] == 'E') {
		p.i++
		if p.i < len(b) && (b[p.i] == '+' || b[p.i] == '-') {
			p.i++
		}
		if !digits() {
			return 0, false
		}
	}
	if n, ok := plainCount(b[start:p.i]); ok {
		return n, true
	}
	n, err := strconv.ParseFloat(string(b[start:p.i]), 64)
	return n, err == nil
}

// plainCount reads a token of at most 15 digits, FastChat's usual count,
// without strconv (exact in a float64, as ParseFloat's result).
func plainCount(tok []byte) (float64, bool) {
	if len(tok) > 15 {
		return 0, false
	}
	n := 0.0
	for _, c := range tok {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + float64(c-'0')
	}
	return n, true
}
