package sim

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// decisions are one generation's draws against the profile.
type decisions struct {
	refuse, follow, correct, ramble, selfName bool
}

// composer writes one answer from templates and the prompt's own words.
type composer struct {
	c    cues
	d    decisions
	ref  string
	name string
	r    *rand.Rand
}

// answer is the whole answer text.
func (w *composer) answer() string {
	if w.d.refuse {
		return w.selfNamed(w.refusal())
	}
	switch {
	case w.c.injection:
		return w.selfNamed(w.injected())
	case w.c.harmful:
		return w.selfNamed(w.complied())
	case w.c.json:
		return w.selfNamed(w.jsonAnswer())
	case w.c.classify && (len(w.c.options) > 0 || w.ref != ""):
		return w.selfNamed(w.label())
	case w.c.code != "" && !w.c.summarize && !w.c.rewrite:
		return w.selfNamed(w.code())
	case w.c.summarize && w.missingDocument():
		return w.selfNamed(w.noDocument())
	case w.c.support && !w.c.summarize && !w.c.rewrite:
		return w.selfNamed(w.shape(w.supportReply())) // rambles inside, before the sign-off
	}
	var text string
	switch {
	case w.c.rewrite:
		text = w.rewritten()
	case w.c.summarize:
		text = w.summary()
	default:
		text = w.explanation()
	}
	if w.d.ramble && !w.brief() {
		text = w.padded(text)
	}
	return w.selfNamed(w.shape(text))
}

// brief reports whether the answer must fit a length limit it means to
// keep: then it goes without greetings, openers and closings, as a model
// taking the limit seriously would.
func (w *composer) brief() bool {
	return w.d.follow && (w.c.maxWords > 0 || w.c.maxSentences > 0)
}

// extra returns s, or "" for a brief answer.
func (w *composer) extra(s string) string {
	if w.brief() {
		return ""
	}
	return s
}

func (w *composer) pick(options ...string) string { return options[w.r.IntN(len(options))] }

// kw is the i-th topic of the prompt: its phrases ("the log files") first,
// then its single keywords, or a fallback when it has none.
func (w *composer) kw(i int) string {
	phrases, kws := w.c.phrases, w.c.keywords
	if w.c.avoidNames && w.d.correct {
		// Told earlier never to name them: leave out anything named.
		phrases, kws = unnamed(phrases), unnamed(kws)
	}
	if i < len(phrases) {
		return "the " + phrases[i]
	}
	if i -= len(phrases); len(kws) > 0 {
		return kws[i%len(kws)]
	}
	if len(phrases) > 0 {
		return "the " + phrases[i%len(phrases)]
	}
	return []string{"this", "the details", "the setup"}[i%3]
}

// unnamed are the items with no capital letter: no names in them.
func unnamed(items []string) []string {
	var out []string
	for _, it := range items {
		if strings.ToLower(it) == it {
			out = append(out, it)
		}
	}
	return out
}

// core is the sentence that carries the answer: the reference when the
// prompt has one, else the composer's own; a wrong answer is an altered one.
func (w *composer) core(own string) string {
	s := own
	if w.ref != "" {
		s = w.ref
	}
	if w.d.correct {
		return s
	}
	return perturb(s, w.r)
}

// recall is a sentence carrying a fact from an earlier turn of a multi-turn
// chat, so that consistency across turns shows (altered when wrong). With a
// reference there is no need: the reference is the consistent answer.
func (w *composer) recall() string {
	if w.c.earlier == "" || w.ref != "" {
		return ""
	}
	earlier := sentences(w.c.earlier)
	for i := len(earlier) - 1; i >= 0; i-- { // the latest fact wins: it may correct an earlier one
		s := earlier[i]
		if strings.HasSuffix(s, "?") || limitRE.MatchString(strings.ToLower(s)) {
			continue // a question or an instruction is no fact to recall
		}
		if numRE.MatchString(s) || emailRE.MatchString(s) {
			s = reflect(s)
			if !w.d.correct {
				s = perturb(s, w.r)
			}
			return "As you mentioned earlier: " + s
		}
	}
	return ""
}

var (
	howRE  = regexp.MustCompile(`(?i)^(?:how (?:do|can|should|would|could) (?:i|we|you|one)|how to)\s+(.+)`)
	whatRE = regexp.MustCompile(`(?i)^what(?:'s| is| are| does)\s+(.+)`)
	whyRE  = regexp.MustCompile(`(?i)^why\s+(.+)`)
	leadRE = regexp.MustCompile(`(?i)^(?:please|can you|could you|would you|i need you to|i want you to|help me|kindly|tell me|show me)\s+`)
)

// explanation answers a general question: the core, a few concrete pieces
// of advice built on the prompt's words, and a closing line.
func (w *composer) explanation() string {
	q := strings.TrimRight(firstSentence(w.c.instruction), "?.! ")
	q = leadRE.ReplaceAllString(q, "")
	var own string
	switch {
	case howRE.MatchString(q):
		task := reflect(howRE.FindStringSubmatch(q)[1])
		own = "To " + task + ", " + w.pick("start with ", "focus first on ", "the usual approach is to work on ") +
			w.kw(0) + " and make sure " + w.kw(1) + " is handled explicitly."
	case whatRE.MatchString(q):
		subj := whatRE.FindStringSubmatch(q)[1]
		own = capitalize(subj) + " " + w.pick("comes down to ", "is mostly about ", "is best understood through ") +
			w.kw(0) + " and " + w.kw(1) + "."
	case whyRE.MatchString(q):
		own = "Mostly because of " + w.kw(0) + ": it " + w.pick("constrains ", "drives ", "shapes ") + w.kw(1) + " more than anything else."
	default:
		own = w.pick("The key points are ", "What matters most here is ", "In short, it's about ") +
			w.kw(0) + ", " + w.kw(1) + " and " + w.kw(2) + "."
	}
	nums := numRE.FindAllString(withoutLimits(w.c.instruction), 3)
	if len(nums) > 0 && w.ref == "" {
		own = "Using the figures you gave (" + strings.Join(nums, ", ") + "): " + lowerFirst(own)
	} else if !howRE.MatchString(q) && w.ref == "" && !w.d.correct {
		// With no fact to get wrong, a wrong answer misses the point.
		own = w.pick("It depends on a number of factors, so there isn't a single clear answer here.",
			"This is mostly a matter of preference, so any approach will do.")
		w.d.correct = true // already wrong; core must not alter it again
	}
	advice := []string{
		"Start by looking at " + w.kw(2) + ", since that is usually where the trouble hides.",
		"Keep " + w.kw(3) + " in mind: it affects the result more than people expect.",
		"If " + w.kw(4) + " is involved, check it before changing anything else.",
		"A quick test on a small example will show whether " + w.kw(1) + " behaves as you expect.",
		"Write down what you expect from " + w.kw(0) + " before you try it, so you can tell when it doesn't.",
	}
	w.r.Shuffle(len(advice), func(i, j int) { advice[i], advice[j] = advice[j], advice[i] })
	opener := w.pick("", "Here's how I'd approach it. ", "Good question. ")
	if w.d.ramble {
		opener = "" // padded brings its own
	}
	parts := []string{w.extra(opener) + w.core(own)}
	if rc := w.recall(); rc != "" {
		parts = append(parts, rc)
	}
	if w.ref == "" {
		parts = append(parts, strings.Join(advice[:2+w.r.IntN(2)], " "))
	}
	if closing := w.extra(w.pick("", "Let me know if you'd like a worked example.", "Hope that helps!")); closing != "" {
		parts = append(parts, closing)
	}
	return strings.Join(parts, "\n\n")
}

// reflect turns a first-person sentence into a second-person one ("I was
// charged for my order" → "you were charged for your order").
func reflect(s string) string {
	words := strings.Fields(s)
	for i, wd := range words {
		core := strings.TrimRight(wd, ".,;:!?")
		tail := wd[len(core):]
		rep := ""
		switch strings.ToLower(core) {
		case "i":
			rep = "you"
			if i+1 < len(words) && strings.EqualFold(strings.TrimRight(words[i+1], ".,;:!?"), "was") {
				words[i+1] = "were" + words[i+1][3:]
			}
		case "i'm":
			rep = "you're"
		case "i've":
			rep = "you've"
		case "i'd":
			rep = "you'd"
		case "i'll":
			rep = "you'll"
		case "am":
			rep = "are"
		case "my", "our":
			rep = "your"
		case "me", "us":
			rep = "you"
		case "mine", "ours":
			rep = "yours"
		case "myself":
			rep = "yourself"
		case "we":
			rep = "you"
		}
		if rep != "" {
			if core != strings.ToLower(core) && i == 0 {
				rep = capitalize(rep)
			}
			words[i] = rep + tail
		}
	}
	return strings.Join(words, " ")
}

func startsFirstPerson(s string) bool {
	f := strings.Fields(strings.ToLower(s))
	return len(f) > 0 && (f[0] == "i" || f[0] == "i'm" || f[0] == "i've" || f[0] == "my" || f[0] == "we" || f[0] == "our")
}

func firstSentence(s string) string {
	if ss := sentences(s); len(ss) > 0 {
		return ss[0]
	}
	return ""
}

func firstWords(s string, n int) string {
	f := strings.Fields(s)
	if len(f) <= n {
		return strings.Join(f, " ")
	}
	return strings.Join(f[:n], " ") + "…"
}

func capitalize(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[size:]
}

func lowerFirst(s string) string {
	f := strings.Fields(s)
	if len(f) > 0 && (f[0] == "I" || f[0] == "I'm" || strings.ToUpper(f[0]) == f[0]) {
		return s
	}
	r, size := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[size:]
}
