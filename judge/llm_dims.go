package judge

import (
	"regexp"
	"strings"

	"github.com/ringside-eval/ringside"
)

// Dimension is one dimension a judging prompt asks a verdict on. It prints
// as its name, so a template can write {{.}} or {{.Name}}.
type Dimension struct {
	Name string
	// Description says what the dimension means to a judge model; empty
	// for a dimension ringside does not know (a custom one).
	Description string
}

func (d Dimension) String() string { return d.Name }

// dimensionDescriptions explains the default dimensions to a judge model.
// Each asks about one thing only, so that a verdict on one dimension does
// not repeat the overall verdict.
var dimensionDescriptions = map[string]string{
	ringside.DimInstructionFollowing: "does the answer do what was asked and respect every stated constraint (length, language, tone, the instructions in the system prompt)?",
	ringside.DimFactualAccuracy:      "are the facts, numbers, names, dates and steps right, with nothing invented?",
	ringside.DimFormatCompliance:     "is the output in the form asked for (bare JSON when JSON is asked for, the fields and structure required, a list, a table)?",
	ringside.DimLongContext:          "does the answer use the details given in a long prompt, document or conversation correctly, without losing or mixing them up?",
	ringside.DimMultiTurn:            "does the answer stay consistent with the earlier turns: the facts established there, the user's corrections and the assistant's own statements?",
}

// promptDimensions gives the names their descriptions.
func promptDimensions(names []string) []Dimension {
	if len(names) == 0 {
		return nil
	}
	out := make([]Dimension, len(names))
	for i, n := range names {
		out[i] = Dimension{Name: n, Description: dimensionDescriptions[n]}
	}
	return out
}

// dimensionLineRE matches one dimension's verdict line, "format_compliance:
// [[A>B]]", with the looseness of the verdict line: brackets optional,
// Markdown bold or a list bullet tolerated, and the name written with
// spaces or hyphens for underscores ("Format compliance: A>B").
func dimensionLineRE(name string) *regexp.Regexp {
	parts := strings.Split(regexp.QuoteMeta(name), "_")
	return regexp.MustCompile(`(?im)^[ \t*_-]*` + strings.Join(parts, `[_ \t-]`) +
		`[ \t*_]*:[ \t*_]*\[*[ \t]*` + labelPattern + `[ \t]*\]*[^\n]*\n?`)
}

// ParseDimensionVerdicts reads the verdict lines of the named dimensions in
// a judge's answer, and returns the answer without them, for ParseVerdict:
// a dimension line is never taken for the overall verdict, and does not end
// up in the rationale. A dimension written on several lines takes the last,
// as the verdict does; one without a readable label is left out of labels.
func ParseDimensionVerdicts(text string, names []string) (labels map[string]Label, rest string) {
	rest = text
	for _, name := range names {
		re := dimensionLineRE(name)
		ms := re.FindAllStringSubmatch(rest, -1)
		if len(ms) == 0 {
			continue
		}
		if l, ok := makeLabel(ms[len(ms)-1][1:]); ok {
			if labels == nil {
				labels = map[string]Label{}
			}
			labels[name] = l
		}
		rest = re.ReplaceAllString(rest, "")
	}
	return labels, rest
}

// combineDimensions merges the dimension labels of the two orders as
// Combine merges the overall ones. A dimension read in one order only is
// left out: half a verdict cannot be told apart from position bias.
func combineDimensions(first, swapped map[string]Label) map[string]ringside.Winner {
	var out map[string]ringside.Winner
	for name, l1 := range first {
		l2, ok := swapped[name]
		if !ok {
			continue
		}
		if out == nil {
			out = map[string]ringside.Winner{}
		}
		out[name], _ = Combine(l1, l2, 1)
	}
	return out
}
