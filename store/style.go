package store

import (
	"database/sql"
	"regexp"
	"strings"
)

// MarkdownCounts are the Markdown elements of one response as FastChat
// counts them for style control (count_markdown_elements, after
// remove_pattern has emptied the code blocks): headers per level h1..h6,
// list items ordered and unordered, bold spans ** and __.
type MarkdownCounts struct {
	Headers              [6]int
	Ordered, Unordered   int
	BoldStar, BoldUnders int
}

// The same regular expressions as FastChat's, in RE2: \s and \d are
// ASCII here where Python's also match other Unicode spaces and digits.
var (
	mdCodeBlock = regexp.MustCompile("```([^`]*)```")
	mdHeaders   = [6]*regexp.Regexp{
		regexp.MustCompile(`(?m)^#{1}\s`), regexp.MustCompile(`(?m)^#{2}\s`), regexp.MustCompile(`(?m)^#{3}\s`),
		regexp.MustCompile(`(?m)^#{4}\s`), regexp.MustCompile(`(?m)^#{5}\s`), regexp.MustCompile(`(?m)^#{6}\s`),
	}
	mdOrdered   = regexp.MustCompile(`(?m)^\s*\d+\.\s`)
	mdUnordered = regexp.MustCompile(`(?m)^\s*[-*+]\s`)
	mdBoldStar  = regexp.MustCompile(`\*\*[^*\n]+\*\*`)
	mdBoldUnder = regexp.MustCompile(`__[^_\n]+__`)
)

// CountMarkdown counts text's Markdown elements outside code blocks. Like
// FastChat's remove_pattern, it deletes what lies between each pair of
// ``` fences (every occurrence of that text, in order), leaving the fences.
func CountMarkdown(text string) MarkdownCounts {
	for _, m := range mdCodeBlock.FindAllStringSubmatch(text, -1) {
		if m[1] != "" {
			text = strings.ReplaceAll(text, m[1], "")
		}
	}
	var c MarkdownCounts
	if !strings.ContainsAny(text, "#-*+_0123456789") {
		return c // nothing that could match; most plain answers
	}
	for h, re := range mdHeaders {
		c.Headers[h] = len(re.FindAllStringIndex(text, -1))
	}
	c.Ordered = len(mdOrdered.FindAllStringIndex(text, -1))
	c.Unordered = len(mdUnordered.FindAllStringIndex(text, -1))
	c.BoldStar = len(mdBoldStar.FindAllStringIndex(text, -1))
	c.BoldUnders = len(mdBoldUnder.FindAllStringIndex(text, -1))
	return c
}

// Sums are the three totals style control uses: headers, lists, bold.
func (c MarkdownCounts) Sums() (headers, lists, bold int) {
	for _, n := range c.Headers {
		headers += n
	}
	return headers, c.Ordered + c.Unordered, c.BoldStar + c.BoldUnders
}

// CountWords is the number of whitespace-separated words: the length of a
// response whose provider reported no token count.
func CountWords(text string) int { return len(strings.Fields(text)) }

// styleCols are one side's generation columns of a rank query with style.
type styleCols struct {
	id, output    sql.RawBytes
	tokens        sql.NullInt64
	cost, latency sql.NullFloat64
}

// genStyle is one generation's control features and which are known.
type genStyle struct {
	x     [6]float64
	known uint8
}

// genCacheLimit bounds the generations whose counts a reader keeps: a
// generation is in several battles, each judged by several judges.
const genCacheLimit = 1 << 18

// style fills v's style fields from both sides' generations, or keeps an
// imported battle's extra fields for the caller to read.
func (in *interner) style(v *RankVote, sa, sb *styleCols, extra []byte) error {
	v.StyleA, v.StyleB, v.StyleKnown, v.ImportExtra = [6]float64{}, [6]float64{}, 0, ""
	if len(extra) > 0 {
		v.ImportExtra = string(extra)
		return nil
	}
	if len(sa.id) == 0 || len(sb.id) == 0 {
		return nil
	}
	a, b := in.genStyle(sa), in.genStyle(sb)
	v.StyleA, v.StyleB, v.StyleKnown = a.x, b.x, a.known&b.known
	return nil
}

func (in *interner) genStyle(c *styleCols) genStyle {
	if g, ok := in.gens[string(c.id)]; ok {
		return g
	}
	mc := CountMarkdown(string(c.output))
	h, l, b := mc.Sums()
	g := genStyle{x: [6]float64{float64(c.tokens.Int64), float64(h), float64(l), float64(b), c.cost.Float64, c.latency.Float64},
		known: 0b1111}
	if g.x[0] == 0 {
		g.x[0] = float64(CountWords(string(c.output)))
	}
	if c.cost.Valid {
		g.known |= 1 << 4
	}
	if c.latency.Float64 > 0 { // zero: not measured
		g.known |= 1 << 5
	}
	if in.gens == nil {
		in.gens = map[string]genStyle{}
	}
	if len(in.gens) < genCacheLimit {
		in.gens[string(c.id)] = g
	}
	return g
}
