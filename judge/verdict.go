package judge

import (
	"regexp"
	"strings"

	"github.com/ringside-eval/ringside"
)

// Label is an LLM judge's verdict on the two responses as it saw them:
// A is the one shown first.
type Label string

// The five-point scale.
const (
	AMuchBetter Label = "A>>B"
	ABetter     Label = "A>B"
	Same        Label = "A=B"
	BBetter     Label = "B>A"
	BMuchBetter Label = "B>>A"
)

// Labels lists the scale from A's best to B's best.
var Labels = []Label{AMuchBetter, ABetter, Same, BBetter, BMuchBetter}

// Strong reports whether the label is a strong preference (A>>B, B>>A).
func (l Label) Strong() bool { return l == AMuchBetter || l == BMuchBetter }

// Winner maps the label to a battle's sides. When swapped, the judge was
// shown side b as A, so its A is the battle's b.
func (l Label) Winner(swapped bool) ringside.Winner {
	w := ringside.WinnerTie
	switch l {
	case AMuchBetter, ABetter:
		w = ringside.WinnerA
	case BBetter, BMuchBetter:
		w = ringside.WinnerB
	}
	if swapped {
		switch w {
		case ringside.WinnerA:
			w = ringside.WinnerB
		case ringside.WinnerB:
			w = ringside.WinnerA
		}
	}
	return w
}

// labelPattern matches a label written loosely: "A >> B", "a>b", "A = B",
// "A==B".
const labelPattern = `([AB])\s*(>>|>|==?)\s*([AB])`

var (
	// verdictLineRE finds the "Verdict: [[A>B]]" line the default prompt
	// asks for: brackets optional, Markdown bold tolerated, and words
	// before the colon allowed ("My final verdict is: A>B").
	verdictLineRE = regexp.MustCompile(`(?im)^[^\n]*?\bverdict\b[^\n:]*:[\s*_]*\[*\s*` + labelPattern + `\s*\]*`)
	// bracketRE finds a bracketed label anywhere, for judges that give one
	// without the "Verdict:" line (the arena-hard style).
	bracketRE   = regexp.MustCompile(`\[\[\s*` + labelPattern + `\s*\]\]`)
	rationaleRE = regexp.MustCompile(`(?i)rationale[\s*_]*:[\s*_]*`)
)

// ParseVerdict reads a judge's answer: the label on its last "Verdict:" line,
// or else the bracketed label ([[A>B]]) if the answer gives exactly one
// distinct such label, and the rationale (the text after "Rationale:", or the
// answer without its verdict line). ok is false when no label can be read,
// or bracketed labels disagree: a guess would be worse than a retry.
func ParseVerdict(text string) (label Label, rationale string, ok bool) {
	if ms := verdictLineRE.FindAllStringSubmatch(text, -1); len(ms) > 0 {
		label, ok = makeLabel(ms[len(ms)-1][1:])
	} else {
		var seen Label
		for _, m := range bracketRE.FindAllStringSubmatch(text, -1) {
			l, lok := makeLabel(m[1:])
			if !lok || (seen != "" && l != seen) {
				return "", "", false
			}
			seen = l
		}
		label, ok = seen, seen != ""
	}
	if !ok {
		return "", "", false
	}
	return label, extractRationale(text), true
}

// makeLabel turns the three captured parts into a label: "A", ">", "B".
// "B<A"-style and self-comparisons ("A>A") are not labels.
func makeLabel(parts []string) (Label, bool) {
	left, op, right := strings.ToUpper(parts[0]), parts[1], strings.ToUpper(parts[2])
	if left == right {
		return "", false
	}
	if op == "==" {
		op = "="
	}
	if op == "=" {
		// "B=A" means the same as "A=B".
		return Same, true
	}
	l := Label(left + op + right)
	for _, known := range Labels {
		if l == known {
			return l, true
		}
	}
	return "", false
}

// maxRationale bounds a stored rationale; the raw answer is kept whole.
const maxRationale = 2000

// extractRationale takes the text between "Rationale:" and the verdict line,
// or, without that heading, everything but the verdict line.
func extractRationale(text string) string {
	end := len(text)
	if locs := verdictLineRE.FindAllStringIndex(text, -1); len(locs) > 0 {
		end = locs[len(locs)-1][0]
	}
	var r string
	if loc := rationaleRE.FindStringIndex(text); loc != nil && loc[1] <= end {
		r = text[loc[1]:end]
	} else {
		r = verdictLineRE.ReplaceAllString(text, "")
	}
	r = strings.TrimSpace(r)
	if r == "" {
		// The verdict and its reasons share one line; keep them all.
		r = strings.TrimSpace(text)
	}
	if runes := []rune(r); len(runes) > maxRationale {
		r = string(runes[:maxRationale]) + "…"
	}
	return r
}
