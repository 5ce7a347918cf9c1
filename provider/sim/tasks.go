package sim

import (
	"regexp"
	"slices"
	"strings"
)

// label answers a classification prompt with one of its labels: the
// reference when right, another label when wrong. Not following the format
// means a sentence around the label, which a strict check rejects.
func (w *composer) label() string {
	right := w.ref
	if right == "" && len(w.c.options) > 0 {
		right = w.c.options[w.r.IntN(len(w.c.options))]
	}
	ans := right
	if !w.d.correct {
		ans = w.otherLabel(right)
	}
	if w.d.follow {
		return ans
	}
	return w.pick("The label is: ", "Category: ", "I'd classify this as ") + ans + "."
}

// otherLabel is a wrong label: one a hidden instruction in the data asked
// for (a model taken in by it), or another of the allowed ones.
func (w *composer) otherLabel(right string) string {
	if m := injectedOutputRE.FindStringSubmatch(w.c.source); m != nil {
		return m[1]
	}
	var others []string
	for _, o := range w.c.options {
		if o != right {
			others = append(others, o)
		}
	}
	if len(others) == 0 {
		return perturb(right, w.r)
	}
	return others[w.r.IntN(len(others))]
}

var injectedOutputRE = regexp.MustCompile(`(?i)\boutput ([A-Z][A-Z0-9_]{3,})\b`)

// rewritten rewrites the quoted text: its own sentences with the informal
// or legalistic bits smoothed, wrapped as an email when an email is asked
// for. Keeping the source's sentences keeps its facts and placeholders; a
// wrong rewrite alters one of them.
func (w *composer) rewritten() string {
	lower := strings.ToLower(w.c.instruction)
	src := strings.Trim(w.c.source, "\"“” \n")
	if i := strings.Index(src, ": \""); i >= 0 && i < 40 {
		src = strings.Trim(src[i+2:], "\"“” \n") // Note: "..."
	}
	var lines []string
	for _, s := range sentences(src) {
		s = strings.TrimSpace(ticketRE.ReplaceAllString(bulletRE.ReplaceAllString(s, ""), ""))
		if s = smooth(s); s != "" {
			lines = append(lines, capitalize(s))
		}
	}
	if w.c.maxWords > 0 && w.d.follow {
		lines = factDense(lines, w.c.maxWords)
	}
	sep := " "
	if w.c.list {
		sep = "\n" // one bullet per line of the source
	}
	body := strings.Join(lines, sep)
	if !w.d.correct {
		body = perturb(body, w.r)
	}
	if w.c.list || greetingRE.MatchString(src) {
		return body // shape makes the bullets; a letter keeps its own greeting
	}
	if !strings.Contains(lower, "email") && !strings.Contains(lower, "announcement") && !strings.Contains(lower, "letter") {
		return body
	}
	var b strings.Builder
	if strings.Contains(lower, "subject") {
		b.WriteString("Subject: " + capitalize(w.kw(0)) + "\n\n")
	}
	to := "all"
	if m := titleNameRE.FindString(w.c.instruction); m != "" {
		to = m
	}
	b.WriteString("Dear " + to + ",\n\n")
	if strings.Contains(lower, "empath") || strings.Contains(lower, "polite") {
		b.WriteString("Thank you for your patience, and I'm sorry for the inconvenience. ")
	}
	b.WriteString(body + "\n\n" + w.pick("Kind regards,", "Best regards,", "With thanks,") + "\nThe team")
	return b.String()
}

// factDense keeps the sentences richest in facts (numbers, codes, names)
// that fit in n words, in their original order: shortening drops the
// padding first.
func factDense(lines []string, n int) []string {
	type scored struct {
		i     int
		facts float64
	}
	var order []scored
	for i, l := range lines {
		f := len(numRE.FindAllString(l, -1)) + len(prefixRE.FindAllString(l, -1))
		order = append(order, scored{i, float64(f) / float64(countWords(l)+1)})
	}
	slices.SortStableFunc(order, func(a, b scored) int {
		switch {
		case a.facts > b.facts:
			return -1
		case a.facts < b.facts:
			return 1
		}
		return 0
	})
	keep := map[int]bool{}
	words := 0
	for _, o := range order {
		if c := countWords(lines[o.i]); words+c <= n {
			keep[o.i] = true
			words += c
		}
	}
	var out []string
	for i, l := range lines {
		if keep[i] {
			out = append(out, l)
		}
	}
	return out
}

var (
	greetingRE  = regexp.MustCompile(`^(Dear|Hi|Hello)\b`)
	ticketRE    = regexp.MustCompile(`\b[A-Z]{2,5}-\d+:\s*`)
	titleNameRE = regexp.MustCompile(`\b(?:Ms|Mr|Mrs|Dr)\.? [A-Z][a-z]+`)
	// smoothing replaces slang and legalese with plain words.
	smoothing = strings.NewReplacer(
		"Notwithstanding anything to the contrary herein, ", "", "shall be entitled to", "is entitled to",
		"provided that", "as long as", "in respect of", "for", "failing which", "otherwise",
		"yo team!! ", "", "(well, on the company lol)", "(courtesy of the company)", "We would like to let you know that ", "", " bc ", " because ", "screwed up", "had a problem", "Obviously ", "",
		" lol", "", "(well, on the company)", "(courtesy of the company)", "We hereby inform you that ", "",
		"you are advised to", "please", "gonna", "going to", "🎉", "")
)

func smooth(s string) string { return strings.TrimSpace(smoothing.Replace(s)) }

// code answers a coding prompt in its language: a small, plausible
// program built from the names in the prompt. Following the format means
// what the prompt asks about fences (none when it says so); a wrong answer
// has the bug people most often make in that kind of code.
func (w *composer) code() string {
	lower := strings.ToLower(w.c.system + "\n" + w.c.user)
	var src, note string
	switch w.c.code {
	case "python":
		src, note = w.python(lower), "It walks the input once, so it runs in linear time."
	case "sql":
		src, note = w.sql(lower), "The aggregate goes in SELECT and every other selected column in GROUP BY."
	case "regex":
		src, note = w.regex(), "The word boundaries stop it matching inside longer IDs."
	default:
		src, note = w.bash(lower), "The first command signals the children, the second the parent."
	}
	noFences := strings.Contains(lower, "no code fences") || strings.Contains(lower, "no markdown") ||
		strings.Contains(lower, "only python source")
	if noFences == w.d.follow {
		return src
	}
	return "```" + w.c.code + "\n" + src + "\n```\n\n" + note
}

func (w *composer) python(lower string) string {
	name, args, ret := "solve", "items: list", ""
	if m := pySigRE.FindStringSubmatch(w.c.user); m != nil {
		name, args, ret = m[1], m[2], m[3]
	}
	param := strings.TrimSpace(strings.Split(strings.Split(args, ",")[0], ":")[0])
	var b strings.Builder
	imports := ""
	if strings.Contains(lower, "slug") || strings.Contains(lower, "hyphen") {
		imports = "import re\n\n\n"
	}
	b.WriteString(imports + "def " + name + "(" + args + ")" + ret + ":\n")
	b.WriteString("    \"\"\"" + docLine(w.c.instruction) + "\n")
	if strings.Contains(lower, "doctest") {
		b.WriteString("\n    >>> " + name + "([...])\n    [...]\n")
	}
	b.WriteString("    \"\"\"\n")
	switch {
	case imports != "":
		lowerCall := ".lower()"
		if !w.d.correct {
			lowerCall = ""
		}
		b.WriteString("    slug = re.sub(r\"[^a-z0-9]+\", \"-\", " + param + lowerCall + ")\n    return slug.strip(\"-\")")
	default:
		key := "item.strip().lower()"
		if !w.d.correct {
			key = "item.strip()"
		}
		b.WriteString("    seen = set()\n    result = []\n    for item in " + param + ":\n        key = " + key +
			"\n        if key not in seen:\n            seen.add(key)\n            result.append(item)\n    return result")
	}
	return b.String()
}

// docLine is a docstring's first line from the request: what follows
// "that" in "Write a function f(x) that removes ...", up to a comma.
func docLine(instruction string) string {
	s := firstSentence(instruction)
	if _, after, ok := strings.Cut(s, " that "); ok {
		s = after
	}
	s, _, _ = strings.Cut(s, ",")
	s, _, _ = strings.Cut(s, " (")
	return capitalize(strings.TrimRight(firstWords(s, 14), ".…:")) + "."
}

var pySigRE = regexp.MustCompile(`\b([a-z_][a-z0-9_]*)\(([^()]*)\)(\s*->\s*[\w\[\], ]+?)?(?:\s|:|$)`)

func (w *composer) sql(lower string) string {
	status := "completed"
	if m := quotedRE.FindStringSubmatch(w.c.user); m != nil {
		status = m[1]
	}
	limit := ""
	if m := topRE.FindStringSubmatch(lower); m != nil {
		limit = "\nLIMIT " + m[1]
	}
	year := ""
	if m := yearRE.FindString(w.c.user); m != "" {
		next := []byte(m)
		next[3]++
		year = "\n  AND o.created_at >= '" + m + "-01-01' AND o.created_at < '" + string(next) + "-01-01'"
	}
	where := "\nWHERE o.status = '" + status + "'" + year
	if !w.d.correct {
		where = year // the filter forgotten
		if where != "" {
			where = "\nWHERE" + strings.TrimPrefix(where, "\n  AND")
		}
	}
	if strings.Contains(lower, "number of") || countRE.MatchString(lower) {
		return "SELECT c.name, COUNT(*) AS completed_orders\nFROM customers c\nJOIN orders o ON o.customer_id = c.id" +
			where + "\nGROUP BY c.name;"
	}
	return "SELECT c.name, c.country, SUM(o.total_usd) AS total_spend\nFROM customers c\nJOIN orders o ON o.customer_id = c.id" +
		where + "\nGROUP BY c.name, c.country\nORDER BY total_spend DESC" + limit + ";"
}

var (
	countRE  = regexp.MustCompile(`\bcount\b`)
	quotedRE = regexp.MustCompile(`'([a-z_]+)'`)
	topRE    = regexp.MustCompile(`\btop (\d+)\b`)
	yearRE   = regexp.MustCompile(`\b20\d\d\b`)
	prefixRE = regexp.MustCompile(`\b[A-Z]{2,4}\b`)
	digitsRE = regexp.MustCompile(`(\d+) (?:or|to) (\d+) digits|(\d+) digits`)
)

func (w *composer) regex() string {
	prefix := prefixRE.FindString(w.c.user)
	digits := `\d+`
	if m := digitsRE.FindStringSubmatch(w.c.user); m != nil {
		if m[1] != "" {
			digits = `\d{` + m[1] + `,` + m[2] + `}`
		} else {
			digits = `\d{` + m[3] + `}`
		}
	}
	if !w.d.correct {
		return "`" + prefix + "-" + digits + "`" // no boundaries: matches inside longer IDs
	}
	return "`\\b" + prefix + "-" + digits + "\\b`"
}

func (w *composer) bash(lower string) string {
	if strings.Contains(lower, "kill") {
		if !w.d.correct {
			return `kill -9 "$PID"`
		}
		return `pkill -TERM -P "$PID"; kill -TERM "$PID"`
	}
	return `find . -type f -name '*.log' -mtime +7 -print -delete`
}
