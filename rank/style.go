package rank

import (
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
