package rank

import (
	"encoding/json"
	"strings"

	"github.com/ringside-eval/ringside"
)

// Control features (Options.Controls): what a style- or cost-controlled
// leaderboard holds constant. See docs/style-control.md.
const (
	ControlLength  = "length"
	ControlHeaders = "headers"
	ControlLists   = "lists"
	ControlBold    = "bold"
	ControlCost    = "cost"
	ControlLatency = "latency"
	// ControlStyle names Chatbot Arena's style set: length, headers, lists, bold.
	ControlStyle = "style"
)

// Controls lists the control features in their fixed order: a Style's
// arrays and the coefficients of a leaderboard follow it.
var Controls = []string{ControlLength, ControlHeaders, ControlLists, ControlBold, ControlCost, ControlLatency}

// NumControls is len(Controls).
const NumControls = 6

func controlIndex(name string) int {
	for f, c := range Controls {
		if c == name {
			return f
		}
	}
	return -1
}

// ParseControls reads a comma-separated list of control features ("style"
// standing for length, headers, lists and bold) and returns them in the
// order of Controls, each once. "" and "none" mean no control.
func ParseControls(s string) ([]string, error) {
	var want [NumControls]bool
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(strings.ToLower(part))
		switch part {
		case "", "none":
			continue
		case ControlStyle:
			for f := 0; f < 4; f++ {
				want[f] = true
			}
			continue
		}
		f := controlIndex(part)
		if f < 0 {
			return nil, ringside.FieldError("control", "%q is not one of style, %s", part, strings.Join(Controls, ", "))
		}
		want[f] = true
	}
	var out []string
	for f, w := range want {
		if w {
			out = append(out, Controls[f])
		}
	}
	return out, nil
}

// Style is what one battle's two responses measure on the control
// features, indexed like Controls. A feature counts only when it is known
// for both sides (its bit in Known).
type Style struct {
	A, B  [NumControls]float64
	Known uint8
}

// Set records feature f (an index into Controls) for both sides.
func (s *Style) Set(f int, a, b float64) {
	s.A[f], s.B[f] = a, b
	s.Known |= 1 << f
}

// Has reports whether feature f is known.
func (s *Style) Has(f int) bool { return s.Known&(1<<f) != 0 }

// diff is the normalised difference of the model: (a − b)/(a + b), and 0
// when both are 0 (or the sum is not positive).
func (s *Style) diff(f int) float64 {
	a, b := s.A[f], s.B[f]
	if !(a+b > 0) {
		return 0
	}
	return (a - b) / (a + b)
}

// ConvMetadata is FastChat's per-battle style metadata as its battle files
// (and ringside's export) carry it under "conv_metadata": token sums and
// Markdown counts per side, the counts as objects keyed by level (h1..h6,
// ordered/unordered, **/__).
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

// convCount is one FastChat count: an object of counts per level, summed,
// or (older files) a plain number.
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

// StyleOfRecord gathers what a battle record says about its two responses:
// conv_metadata's token sums and Markdown counts, else ringside's
// tokens_out_a/b for length; cost_usd_a/b; latency_ms_a/b. Nil when it says
// nothing. A malformed conv_metadata is an error naming the field.
func StyleOfRecord(r *ringside.BattleRecord) (*Style, error) {
	var s Style
	if raw, ok := r.Extra["conv_metadata"]; ok && len(raw) > 0 && string(raw) != "null" {
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
			return nil, ringside.FieldError("conv_metadata", "%v", err)
		}
		for f, p := range [4][2]convCount{{cm.SumA, cm.SumB}, {cm.HA, cm.HB}, {cm.LA, cm.LB}, {cm.BA, cm.BB}} {
			if p[0].ok && p[1].ok {
				s.Set(f, p[0].n, p[1].n)
			}
		}
	}
	if !s.Has(0) && r.TokensOutA != nil && r.TokensOutB != nil {
		s.Set(0, float64(*r.TokensOutA), float64(*r.TokensOutB))
	}
	if r.CostUSDA != nil && r.CostUSDB != nil {
		s.Set(4, *r.CostUSDA, *r.CostUSDB)
	}
	if r.LatencyMsA != nil && r.LatencyMsB != nil {
		s.Set(5, *r.LatencyMsA, *r.LatencyMsB)
	}
	if s.Known == 0 {
		return nil, nil
	}
	return &s, nil
}
