package sim

import (
	"math"
	"regexp"
	"strings"
)

// summary picks the source's most representative sentences (by how
// common their words are in the source), in their original order. A wrong
// summary alters a fact, or repeats an instruction hidden in the text as if
// it were content.
func (w *composer) summary() string {
	var src []string
	for _, s := range sentences(tagRE.ReplaceAllString(w.c.source, " ")) {
		s = speakerRE.ReplaceAllString(bulletRE.ReplaceAllString(s, ""), "")
		if countWords(s) < 4 || (countWords(s) < 12 && !strings.ContainsAny(s[len(s)-1:], ".!?")) {
			continue // too short to say anything, or a heading
		}
		if suspicious(s) {
			if !w.d.correct {
				return s // taken in by an instruction hidden in the text
			}
			continue
		}
		src = append(src, s)
	}
	n := 2
	switch {
	case w.c.maxSentences > 0:
		n = w.c.maxSentences
	case w.c.bullets > 0:
		n = w.c.bullets
	case len(src) > 8:
		n = 3
	}
	freq := map[string]int{}
	for _, s := range src {
		for _, k := range keywords(s) {
			freq[strings.ToLower(k)]++
		}
	}
	score := func(s string) float64 {
		total := 0
		kws := keywords(s)
		for _, k := range kws {
			total += freq[strings.ToLower(k)]
		}
		return float64(total) / math.Sqrt(float64(len(kws)+1))
	}
	chosen := map[int]bool{}
	for len(chosen) < min(n, len(src)) {
		best, bestScore := -1, -1.0
		for i, s := range src {
			if sc := score(s); !chosen[i] && sc > bestScore {
				best, bestScore = i, sc
			}
		}
		chosen[best] = true
	}
	var picked []string
	for i, s := range src {
		if chosen[i] {
			picked = append(picked, s)
		}
	}
	sep := " "
	if w.c.list {
		sep = "\n" // keeps a title-like line from merging with the next
	}
	own := strings.Join(picked, sep)
	if own == "" {
		own = "The text is about " + w.kw(0) + " and " + w.kw(1) + "."
	}
	own = w.core(own)
	if lines := labelledLinesRE.FindAllStringSubmatch(w.c.system+"\n"+w.c.instruction, -1); len(lines) > 0 && w.d.follow {
		return w.labelledLines(lines, own)
	}
	if w.c.list {
		return own // shape makes the bullets
	}
	return w.extra(w.pick("", "In short: ", "Summary: ", "Key points: ")) + own
}

// labelledLines fills a format the prompt spells out line by line
// ("Summary: <one sentence>", "Sentiment: positive|neutral|negative").
func (w *composer) labelledLines(lines [][]string, summary string) string {
	var out []string
	for _, l := range lines {
		label, value := l[1], l[2]
		switch strings.ToLower(label) {
		case "summary":
			value = firstSentence(summary)
		case "sentiment", "tone":
			value = sentiment(w.c.source)
		default:
			if opts := strings.Split(value, "|"); len(opts) > 1 {
				value = opts[0]
			} else {
				value = w.kw(len(out))
			}
		}
		out = append(out, label+": "+value)
	}
	return strings.Join(out, "\n")
}

// missingDocument reports a request to summarise a document that is not
// there ("the attached report").
func (w *composer) missingDocument() bool {
	l := strings.ToLower(w.c.user)
	return w.c.source == w.c.user && (strings.Contains(l, "attached") || strings.Contains(l, "below")) && countWords(w.c.user) < 60
}

// noDocument says so when right, and makes a summary up when wrong.
func (w *composer) noDocument() string {
	if w.d.correct {
		return "I don't see the document: the attachment doesn't seem to have come through. Could you paste the text here?"
	}
	return "- Revenue grew 12% quarter over quarter, to $4.2M.\n- Churn fell from 3.4% to 3.1%.\n- Headcount is flat at 48."
}

var (
	tagRE           = regexp.MustCompile(`<[^>]*>`)
	speakerRE       = regexp.MustCompile(`^(?:[A-Z][a-z]+:|\d+(?:\.\d+)+)\s+`)
	labelledLinesRE = regexp.MustCompile(`"([A-Z][a-z]+): ([^"]+)"`)
)

// suspicious reports a sentence that talks to the model rather than about
// the subject: an instruction hidden in a document.
func suspicious(s string) bool {
	l := strings.ToLower(s)
	return anyCue(l, "note to|assistant|ignore |instruction|http://|https://|<!--|send the|include the user")
}
