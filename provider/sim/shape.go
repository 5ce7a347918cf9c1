package sim

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// fillers pad a rambling answer and push a non-compliant one past its
// limit. %s is a keyword of the prompt.
var fillers = []string{
	"Before going further, it's worth stepping back to look at the bigger picture around %s.",
	"There are many factors at play here, and every situation is a little different.",
	"It's also important to remember that %s can mean different things to different people.",
	"Of course, there are always exceptions, and it's a good idea to consider them carefully before making a final decision.",
	"In many cases, the best approach is to start small, see what works, and adjust from there.",
	"Many people find that paying attention to %s early on saves a lot of time later.",
	"That said, it's worth keeping an open mind, because circumstances can change.",
	"All in all, %s is a topic with more nuance than it first appears.",
	"Another thing to keep in mind is how %s fits into the wider context.",
	"Ultimately, the right choice depends on your specific goals and constraints.",
}

func (w *composer) filler() string {
	f := fillers[w.r.IntN(len(fillers))]
	if strings.Contains(f, "%s") {
		f = strings.Replace(f, "%s", w.kw(w.r.IntN(6)), 1)
	}
	return f
}

// fillers is a paragraph of n filler sentences.
func (w *composer) fillers(n int) string {
	pad := make([]string, n)
	for i := range pad {
		pad[i] = w.filler()
	}
	return strings.Join(pad, " ")
}

// padded wraps an answer in an eager opening, a paragraph of filler and an
// offer of more.
func (w *composer) padded(text string) string {
	return w.pick("Great question! ", "Thanks for asking! ", "That's a really interesting question. ") +
		text + "\n\n" + w.fillers(3+w.r.IntN(4)) + "\n\n" +
		"I hope this helps! If you have any further questions about " + w.kw(0) + ", feel free to ask — I'm always happy to go into more detail."
}

// shape applies the prompt's format instructions: followed, or broken.
func (w *composer) shape(text string) string {
	c := w.c
	if c.list {
		n := c.bullets
		switch {
		case w.d.follow && n == 0:
			text = w.bulletize(text, 0)
		case w.d.follow:
			text = w.bulletize(text, n)
		case n > 0 && w.r.IntN(2) == 0:
			text = w.bulletize(text, n+2)
		default:
			text = strings.Join(sentences(text), " ") // a paragraph where a list was asked for
		}
	}
	if c.maxSentences > 0 && !c.list {
		ss := sentences(text)
		if w.d.follow && len(ss) > c.maxSentences {
			text = strings.Join(ss[:c.maxSentences], " ")
		}
		for !w.d.follow && len(sentences(text)) <= c.maxSentences {
			text += " " + w.filler()
		}
	}
	if c.maxWords > 0 {
		if w.d.follow {
			text = trimWords(text, c.maxWords)
		}
		for !w.d.follow && float64(countWords(text)) <= 1.3*float64(c.maxWords) {
			text += " " + w.filler()
		}
	}
	return text
}

// chatter are the openers and closings the composer adds around an answer.
const chatter = "Here's how I'd approach it|Good question|Hope that helps|Let me know if|Great question|Thanks for asking|That's a really interesting question|I hope this helps"

var bulletRE = regexp.MustCompile(`^(?:[-*•]|\d+[.)])\s+`)

// bulletize makes a list of n bullets (any number when n is 0) from the
// sentences of text, adding bullets on the prompt's keywords when it has
// too few.
func (w *composer) bulletize(text string, n int) string {
	var items []string
	for _, s := range sentences(text) {
		s = bulletRE.ReplaceAllString(s, "")
		if strings.HasSuffix(s, ",") || strings.HasSuffix(s, ":") || len(strings.Fields(s)) < 3 || anyCue(s, chatter) {
			continue // greetings, openers and sign-offs make poor bullets
		}
		items = append(items, s)
	}
	if n == 0 {
		n = min(max(len(items), 3), 5)
	}
	// Too few sentences: more of the source's, then (for a short list
	// only) bullets on the prompt's topics.
	for _, s := range sentences(w.c.source) {
		if len(items) >= n {
			break
		}
		s = bulletRE.ReplaceAllString(s, "")
		if countWords(s) >= 4 && !slices.Contains(items, s) && !suspicious(s) && w.c.source != w.c.user {
			items = append(items, s)
		}
	}
	want := n
	if w.c.bulletsAtMost {
		want = min(n, 3) // "at most": fewer is fine, padding is not
	}
	for i := 0; len(items) < want; i++ {
		items = append(items, "Consider "+w.kw(i)+" and how it affects the outcome.")
	}
	n = min(n, len(items))
	var b strings.Builder
	for i, it := range items[:n] {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("- " + it)
	}
	return b.String()
}

// trimWords keeps whole sentences while they fit in n words, or the first
// n words when not even one does.
func trimWords(text string, n int) string {
	if countWords(text) <= n {
		return text
	}
	var kept []string
	words := 0
	for _, s := range sentences(text) {
		c := countWords(s)
		if words+c > n {
			break
		}
		kept = append(kept, s)
		words += c
	}
	if len(kept) > 0 {
		return strings.Join(kept, " ")
	}
	f := strings.Fields(text)[:n]
	return strings.TrimRight(strings.Join(f, " "), ",;:") + "."
}

var (
	numRE   = regexp.MustCompile(`\d+(?:[.,]\d+)?`)
	flipper = []struct{ from, to string }{
		{"Yes", "No"}, {"No,", "Yes,"}, {" yes", " no"}, {" no ", " yes "}, {"true", "false"}, {"false", "true"},
		{" cannot ", " can "}, {" can't ", " can "}, {" can ", " cannot "}, {" is ", " is not "}, {" are ", " are not "},
		{" will ", " will not "}, {" should ", " should not "}, {" does ", " does not "}, {" was ", " was not "},
	}
)

// perturb makes a plausible wrong version of a right answer: a number
// changed, a yes/no or a verb flipped; failing all, a vague non-answer.
func perturb(s string, r *rand.Rand) string {
	for _, loc := range numRE.FindAllStringIndex(s, -1) {
		if loc[1] < len(s) && isLetter(s[loc[1]]) {
			continue // "1st", "24L": changing them reads as a typo, not a mistake
		}
		return s[:loc[0]] + otherNumber(s[loc[0]:loc[1]], r) + s[loc[1]:]
	}
	for _, f := range flipper {
		if i := strings.Index(s, f.from); i >= 0 {
			return s[:i] + f.to + s[i+len(f.from):]
		}
	}
	return "It depends on a number of factors, so there isn't a single clear answer here."
}

// otherNumber is a different number of the same shape.
func otherNumber(num string, r *rand.Rand) string {
	intPart, frac, _ := strings.Cut(num, ".")
	if strings.Contains(intPart, ",") {
		intPart, frac, _ = strings.Cut(num, ",")
	}
	n, err := strconv.Atoi(intPart)
	if err != nil {
		return num + "0"
	}
	m := n + 1 + r.IntN(3)
	if n >= 10 {
		m = n + (1+r.IntN(9))*pow10(len(intPart)-2)
	}
	out := strconv.Itoa(m)
	if frac != "" {
		out += num[len(intPart):len(intPart)+1] + frac
	}
	return out
}

func pow10(n int) int {
	p := 1
	for range max(n, 0) {
		p *= 10
	}
	return p
}
