package battlefile

import (
	"encoding/json"

	"github.com/ringside-eval/ringside"
)

// ConvMetadata is FastChat's per-battle style metadata as its battle files
// (and ringside's export) carry it under "conv_metadata": token sums and
// Markdown counts per side, the counts as objects keyed by level (h1..h6,
// ordered/unordered, **/__). It stays among a record's Extra fields, so a
// file's own conv_metadata goes back out as it came.
type ConvMetadata struct {
	SumAssistantATokens *float64       `json:"sum_assistant_a_tokens,omitempty"`
	SumAssistantBTokens *float64       `json:"sum_assistant_b_tokens,omitempty"`
	HeaderCountA        map[string]int `json:"header_count_a,omitempty"`
	HeaderCountB        map[string]int `json:"header_count_b,omitempty"`
	ListCountA          map[string]int `json:"list_count_a,omitempty"`
	ListCountB          map[string]int `json:"list_count_b,omitempty"`
	BoldCountA          map[string]int `json:"bold_count_a,omitempty"`
	BoldCountB          map[string]int `json:"bold_count_b,omitempty"`
}

// StyleCount is one of conv_metadata's measures for both sides: A and B,
// when Known (given for both).
type StyleCount struct {
	A, B  float64
	Known bool
}

// StyleCounts reads the record's conv_metadata: the token sums, then the
// header, list and bold counts (each summed over its levels). A record
// without conv_metadata knows none; a malformed one is an error naming the
// field.
func (r *Record) StyleCounts() (tokens, headers, lists, bold StyleCount, err error) {
	c, ok := r.conv, r.convReady
	if !ok {
		raw, has := r.Extra["conv_metadata"]
		if !has || len(raw) == 0 || string(raw) == "null" {
			return
		}
		if c, ok = fastConvCounts(raw); !ok {
			if c, err = decodeConvCounts(raw); err != nil {
				return
			}
		}
	}
	pair := func(a, b convCount) StyleCount { return StyleCount{A: a.n, B: b.n, Known: a.ok && b.ok} }
	return pair(c[0], c[1]), pair(c[2], c[3]), pair(c[4], c[5]), pair(c[6], c[7]), nil
}

// parseConvAhead parses conv_metadata for StyleCounts on the goroutine
// that decoded the record (ReadStyled). What the fast path declines (a
// malformed value included) is left for StyleCounts, which reports it.
func (r *Record) parseConvAhead() {
	if raw, ok := r.Extra["conv_metadata"]; ok {
		r.conv, r.convReady = fastConvCounts(raw)
	}
}

// decodeConvCounts is fastConvCounts by encoding/json, for what the fast
// path declines; its errors name the field.
func decodeConvCounts(raw []byte) ([8]convCount, error) {
	var cm struct {
		SumA convCount `json:"sum_assistant_a_tokens"`
		SumB convCount `json:"sum_assistant_b_tokens"`
		HA   convCount `json:"header_count_a"`
		HB   convCount `json:"header_count_b"`
		LA   convCount `json:"list_count_a"`
		LB   convCount `json:"list_count_b"`
		BA   convCount `json:"bold_count_a"`
		BB   convCount `json:"bold_count_b"`
	}
	if err := json.Unmarshal(raw, &cm); err != nil {
		return [8]convCount{}, ringside.FieldError("conv_metadata", "%v", err)
	}
	return [8]convCount{cm.SumA, cm.SumB, cm.HA, cm.HB, cm.LA, cm.LB, cm.BA, cm.BB}, nil
}

// convCount is one FastChat count: an object of counts per level, summed,
// or a plain number.
type convCount struct {
	n  float64
	ok bool
}

func (c *convCount) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	if len(b) > 0 && b[0] == '{' {
		var m map[string]float64
		if err := json.Unmarshal(b, &m); err != nil {
			return err
		}
		for _, v := range m {
			c.n += v
		}
		c.ok = true
		return nil
	}
	c.ok = true
	return json.Unmarshal(b, &c.n)
}
