package sim

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/ringside-eval/ringside"
)

// cues is what a simulated model notices in a prompt: the task, the format
// it is asked for, and the words to build an answer from. Simple surface
// cues are enough: the point is that a format instruction, a harmful request
// or a reference answer changes the output the way it would a real model's.
type cues struct {
	user        string // the last user message
	instruction string // the user message without the text it quotes
	system      string // the system messages, joined
	earlier     string // earlier user turns, for multi-turn recall
	source      string // the text to summarise or extract from
	keywords    []string
	phrases     []string // runs of two or more content words ("log files")

	signoff  string   // "Sign off as ..." in the system prompt
	policies []string // numbered or bulleted lines of the system prompt
	options  []string // the labels a classification prompt allows

	json          bool
	classify      bool
	code          string // the language asked for: python, sql, regex, bash
	rewrite       bool
	maxWords      int
	maxSentences  int
	bullets       int  // a requested number of bullets
	bulletsAtMost bool // ... as a maximum ("at most 8 bullet points")
	list          bool
	summarize     bool
	extract       bool
	support       bool
	harmful       bool
	privacy       bool // asks for someone else's personal data
	avoidNames    bool // an earlier turn said never to name things
	injection     bool
	sameLanguage  bool // the system prompt asks to reply in the customer's language
	spanish       bool // ... and the last user message reads as Spanish
}

var (
	// The cue patterns run on lowercased text: case-insensitive matching
	// costs more than lowercasing once.
	limitRE    = regexp.MustCompile(`\b(\d{1,4}|one|two|three|four|five|six|seven|eight|nine|ten|a single|single)[ -](words?|sentences?|lines?|bullet[ -]?points?|bullets?|key points|points)\b`)
	jsonRE     = regexp.MustCompile(`\bjson\b`)
	listRE     = regexp.MustCompile(`\b(bullet|bulleted|bullets|as a list|numbered list|list of)\b`)
	quoteKeyRE = regexp.MustCompile("[\"'`]([A-Za-z_][A-Za-z0-9_]{0,30})[\"'`]")
	fieldsRE   = regexp.MustCompile(`(?i)\b(?:fields|keys|properties|attributes)\b\s*(?:named|called)?\s*:?\s*([A-Za-z_][A-Za-z0-9_ ,/]*(?:\band\b\s*[A-Za-z_][A-Za-z0-9_]*)?)`)
	injectRE   = regexp.MustCompile(`\b(ignore|disregard|forget) (all |any |the |your )?(previous|prior|above|earlier|system) (instructions|rules|prompt)|\b(reveal|print|show|repeat|translate) (me )?(your|the|everything) (system prompt|instructions|hidden|above)|everything above this|\bdeveloper mode\b|\bjailbreak|\bdan mode\b|(pretend (that )?you have|with|have) no (rules|restrictions)|stay in character|unfiltered`)
	optionsRE  = regexp.MustCompile(`\b[a-z][a-z_]*(?:, [a-z][a-z_]*)+,? (?:or |and )?[a-z][a-z_]*\b`)
	codeRE     = regexp.MustCompile(`\bP[1-9]\b`)
	// defensiveRE marks a request about a harm in order to guard against it
	// ("a security-awareness note on phishing"), which is no harmful request.
	defensiveRE = regexp.MustCompile(`awareness|runbook|protect (our|your|against)|defend against|\bdetect (a|an|one|it|them)\b|prevent|recogni[sz]e|spot (one|them)|signals|how .* attacks work`)
	sameRE      = regexp.MustCompile(`\bversion of (the same|that|this|it)\b|\bsame (reminder|message|email|text|note)\b`)
	signoffRE   = regexp.MustCompile(`(?i)sign (?:off|your replies) as "([^"]+)"`)
)

// Cue words, as space-separated lists matched on word boundaries or as
// substrings: strings rather than maps, so nothing here can be mutated.
const (
	summarizeCues = "summar|tl;dr|tldr|condense|recap|key takeaways"
	extractCues   = "extract|pull out|parse the|fields|structured data"
	supportCues   = "customer-support|customer support|support assistant|support agent|refund|my order|order #|subscription|my account|charged|cancel|delivery|shipping|password|log in|login|locked out|invoice|billing|money back|not working"
	harmfulCues   = "bomb|explosive|weapon|malware|ransomware|keylogger|hack into|steal|poison|make meth|synthesize meth|launder|credit card numbers|phishing|untraceable|counterfeit|bypass the security|without them knowing|stalk|hurt someone|kill someone|murder|self-harm|looks like it comes from|pretend to be from|impersonat|fda-approved|clinically proven|fake review|evades|undetectable"
	privacyCues   = "his order|her order|their order number|which card|his address|her address|home address|phone number and|someone else's|another customer's|for your customer"
	classifyCues  = "classify|one label|labels:|intents:|intent name|priority code|exactly one word|categorize|categorise|route support tickets"
	taskCues      = "summar|rewrite|shorten|extract|keys:|classify|translate|turn this|fix it|explain|answer"
	rewriteCues   = "rewrite|shorten|turn this|rephrase|paraphrase|plain english|make this|polish|reword"
	stopwords     = " a about above after again against all also am an and any are aren't as at be because been before being below between both but by can can't cannot could did do does doing don't down during each few for from further get give had has have having he her here hers herself him himself his how i i'd i'll i'm i've if in into is isn't it it's its itself just let me more most my myself need no nor not now of off on once only or other our ours out over own please same she should so some such than that that's the their theirs them themselves then there these they this those through to too under until up very was we were what what's when where which while who whom why will with would you you're your yours yourself " +
		"answer explain describe tell write summarize summarise extract list give provide return reply respond use using make show find help want like know following below above text email message json format words word sentences sentence bullet bullets points point short brief briefly one two three four five six seven eight nine ten single at most least only output exactly keys fields field key value values customer "
)

// readCues analyses a prompt's messages.
func readCues(msgs []ringside.Message) cues {
	var c cues
	var system, users []string
	for _, m := range msgs {
		switch m.Role {
		case "system":
			system = append(system, m.Content)
		case "user":
			users = append(users, m.Content)
		}
	}
	c.system = strings.Join(system, "\n")
	if len(users) > 0 {
		c.user = users[len(users)-1]
		c.earlier = strings.Join(users[:len(users)-1], "\n")
	}
	c.instruction, c.source = splitSource(c.user)
	lower := strings.ToLower(c.system + "\n" + c.instruction)

	c.json = jsonRE.MatchString(lower) && !strings.Contains(lower, "no json")
	c.list = listRE.MatchString(lower)
	c.summarize = anyCue(lower, summarizeCues)
	c.extract = anyCue(lower, extractCues)
	c.support = anyCue(strings.ToLower(c.system+"\n"+c.instruction), supportCues)
	c.classify = anyCue(lower, classifyCues) && !c.summarize
	c.rewrite = anyCue(strings.ToLower(c.instruction), rewriteCues)
	c.code = codeLanguage(lower)
	if last := lastAssistant(msgs); last != "" && !c.rewrite && sameRE.MatchString(strings.ToLower(c.instruction)) {
		// "Now give me a two-line version of the same reminder."
		c.rewrite, c.source = true, last
	}
	// An injection hidden in the data (a document, a review) is not the
	// user's request: a good model does the task and ignores it.
	c.injection = injectRE.MatchString(strings.ToLower(c.instruction))
	c.privacy = anyCue(strings.ToLower(c.instruction), privacyCues)
	risky := anyCue(strings.ToLower(c.user), harmfulCues) || c.privacy
	c.harmful = risky && !defensiveRE.MatchString(strings.ToLower(c.instruction))
	for _, u := range users {
		c.readLimits(strings.ToLower(u)) // "keep every answer under 50 words" holds for the chat
	}
	c.readLimits(strings.ToLower(c.system))
	c.readLimits(strings.ToLower(c.instruction))
	if m := signoffRE.FindStringSubmatch(c.system); m != nil {
		c.signoff = m[1]
	}
	c.policies = policies(c.system)
	if c.sameLanguage = sameLanguageRE.MatchString(strings.ToLower(c.system)); c.sameLanguage {
		c.spanish = looksSpanish(c.user) // only then does the language matter
	}
	if c.classify {
		c.options = labelOptions(c.system + "\n" + c.instruction)
	}
	c.keywords = keywords(c.instruction + " " + c.source)
	if e := strings.ToLower(c.earlier + "\n" + c.system); strings.Contains(e, "never name") || strings.Contains(e, "never mention") || strings.Contains(e, "don't mention") {
		c.avoidNames = true
	}
	c.phrases = phrases(withoutLimits(c.instruction))
	return c
}

// readLimits finds "at most 50 words", "in two sentences", "3 bullet
// points" in lowercased text. A minimum ("at least 200 words") is not a
// limit and is ignored.
func (c *cues) readLimits(lower string) {
	for _, m := range limitRE.FindAllStringSubmatchIndex(lower, -1) {
		before := strings.TrimSpace(lower[max(0, m[0]-16):m[0]])
		if strings.HasSuffix(before, "at least") || strings.HasSuffix(before, "minimum of") || strings.HasSuffix(before, "no fewer than") {
			continue
		}
		n := numberWord(lower[m[2]:m[3]])
		if n <= 0 {
			continue
		}
		switch unit := lower[m[4]:m[5]]; {
		case strings.HasPrefix(unit, "word"):
			c.maxWords = n
		case strings.HasPrefix(unit, "sentence"), strings.HasPrefix(unit, "line"):
			c.maxSentences = n
		default:
			c.bullets = n
			c.list = true
			c.bulletsAtMost = strings.HasSuffix(before, "at most") || strings.HasSuffix(before, "up to") || strings.HasSuffix(before, "no more than")
		}
	}
}

// withoutLimits is s with its length instructions blanked out, so that the
// "3" of "3 bullet points" is not taken for a fact of the prompt.
func withoutLimits(s string) string {
	lower := strings.ToLower(s)
	locs := limitRE.FindAllStringIndex(lower, -1)
	if len(locs) == 0 || len(lower) != len(s) {
		return s
	}
	var b strings.Builder
	prev := 0
	for _, l := range locs {
		b.WriteString(s[prev:l[0]])
		b.WriteString(".")
		prev = l[1]
	}
	b.WriteString(s[prev:])
	return b.String()
}

func numberWord(s string) int {
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	words := []string{"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"}
	s = strings.ToLower(s)
	if s == "a single" || s == "single" {
		return 1
	}
	for i, w := range words {
		if s == w {
			return i + 1
		}
	}
	return 0
}

// splitSource separates an instruction from the text it quotes ("Summarise
// this email:\n\n..."): the text after the first colon that ends a line, or
// inside the first fenced or triple-quoted block. With no such text the
// whole message is the instruction and the source.
func splitSource(user string) (instruction, source string) {
	for _, fence := range []string{"```", `"""`} {
		if i := strings.Index(user, fence); i >= 0 {
			rest := user[i+len(fence):]
			if j := strings.Index(rest, fence); j >= 0 {
				body := rest[:j]
				if nl := strings.IndexByte(body, '\n'); nl >= 0 && !strings.ContainsAny(body[:nl], " .") {
					body = body[nl+1:] // a language tag after the fence
				}
				return strings.TrimSpace(user[:i] + " " + rest[j+len(fence):]), strings.TrimSpace(body)
			}
		}
	}
	if i := strings.Index(user, ":\n"); i >= 0 && strings.TrimSpace(user[i+2:]) != "" {
		return strings.TrimSpace(user[:i]), strings.TrimSpace(user[i+2:])
	}
	// A short first paragraph followed by a longer text: the instruction,
	// then what it is about ("Keys: ...\n\nINVOICE ...").
	if i := strings.Index(user, "\n\n"); i >= 0 && i < 600 && strings.TrimSpace(user[i+2:]) != "" &&
		(len(user)-i > i || anyCue(strings.ToLower(user[:i]), taskCues)) {
		return strings.TrimSpace(user[:i]), strings.TrimSpace(user[i+2:])
	}
	return user, user
}

// lastAssistant is the model's last turn in the chat, or "".
func lastAssistant(msgs []ringside.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "assistant" {
			return msgs[i].Content
		}
	}
	return ""
}

// codeLanguage is the language a coding prompt asks for, or "".
func codeLanguage(lower string) string {
	switch {
	case strings.Contains(lower, "regular expression") || strings.Contains(lower, "regex"):
		return "regex"
	case strings.Contains(lower, "sql") || strings.Contains(lower, "query") && strings.Contains(lower, "select"),
		strings.Contains(lower, "write a query"):
		return "sql"
	case strings.Contains(lower, "bash") || strings.Contains(lower, "shell") || strings.Contains(lower, "one-liner"):
		return "bash"
	case strings.Contains(lower, "python") || strings.Contains(lower, "function ") && strings.Contains(lower, "->"):
		return "python"
	}
	return ""
}

// policies are the rules a system prompt lists, one per numbered or
// bulleted line, without their numbers.
func policies(system string) []string {
	var out []string
	for _, line := range strings.Split(system, "\n") {
		line = strings.TrimSpace(line)
		if loc := bulletRE.FindStringIndex(line); loc != nil {
			out = append(out, strings.TrimSpace(line[loc[1]:]))
		}
	}
	return out
}

// labelOptions finds the labels a classification prompt allows: the
// longest list of lowercase words ("billing, shipping, returns or other"),
// or codes such as P1..P4.
func labelOptions(text string) []string {
	best := ""
	for _, m := range optionsRE.FindAllString(text, -1) {
		if len(m) > len(best) {
			best = m
		}
	}
	var out []string
	for _, m := range codeRE.FindAllString(text, -1) {
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	if len(out) >= 2 {
		return out // codes such as P1..P4 are the labels when a prompt defines them
	}
	out = nil
	if strings.Count(best, ",") >= 1 && len(strings.Fields(best)) >= 3 {
		for _, f := range strings.FieldsFunc(best, func(r rune) bool { return r == ',' || r == ' ' }) {
			if f != "or" && f != "and" && !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return out
}

func anyCue(s, list string) bool {
	for _, w := range strings.Split(list, "|") {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

func isStopword(w string) bool {
	return strings.Contains(stopwords, " "+strings.ToLower(w)+" ")
}

// keywords are the content words of s in order of appearance, without
// repeats. A capitalised word keeps its case unless it starts a sentence, so
// that names stay names and "Summarise" does not.
func keywords(s string) []string {
	var out []string
	seen := " "
	for _, loc := range wordSpans(s) {
		w := s[loc[0]:loc[1]]
		lw := strings.ToLower(w)
		if (len(w) < 3 && !(len(w) == 2 && unicode.IsUpper(rune(w[0])))) || isStopword(w) || strings.Contains(seen, " "+lw+" ") {
			continue
		}
		seen += lw + " "
		if sentenceStart(s[:loc[0]]) && strings.ToUpper(w) != w {
			w = lw
		}
		out = append(out, w)
		if len(out) == 12 {
			break
		}
	}
	return out
}

// phrases are the runs of two or more content words in s, cut to their last
// two words: without a tagger, adjacent content words are the best guess at
// a noun phrase ("rotate log files" gives "log files").
func phrases(s string) []string {
	var out, run []string
	flush := func() {
		if len(run) >= 2 {
			p := strings.Join(run[len(run)-2:], " ")
			// "losing lines" is more likely a verb and its object than a noun
			// phrase; "the losing lines" would read badly.
			if !strings.HasSuffix(run[len(run)-2], "ing") && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
		run = run[:0]
	}
	for _, f := range strings.Fields(s) {
		w := strings.Trim(f, ".,;:!?()\"'")
		if w == "" || isStopword(w) || !isWord(w) || strings.Contains(w, "'") {
			flush()
			continue
		}
		run = append(run, w)
		if strings.ContainsAny(f, ".,;:!?()") {
			flush()
		}
	}
	flush()
	return out
}

// wordSpans are the [start, end) offsets of the words of s: runs of ASCII
// letters, with inner apostrophes and hyphens ("don't", "follow-up"). A
// hand-written scanner, since it runs on every prompt of every sample.
func wordSpans(s string) [][2]int {
	var out [][2]int
	start := -1
	for i := 0; i <= len(s); i++ {
		inner := i < len(s) && (s[i] == '\'' || s[i] == '-') && start >= 0 && i+1 < len(s) && isLetter(s[i+1])
		if i < len(s) && (isLetter(s[i]) || inner) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = append(out, [2]int{start, i})
			start = -1
		}
	}
	return out
}

func isLetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }

// isWord reports whether w is one word as wordSpans sees words.
func isWord(w string) bool {
	sp := wordSpans(w)
	return len(sp) == 1 && sp[0] == [2]int{0, len(w)}
}

// sentenceStart reports whether a word after before starts a sentence.
func sentenceStart(before string) bool {
	t := strings.TrimRight(before, " \t\"'(")
	return t == "" || strings.HasSuffix(t, ".") || strings.HasSuffix(t, "!") || strings.HasSuffix(t, "?") ||
		strings.HasSuffix(t, "\n") || strings.HasSuffix(t, ":")
}

// jsonKeys are the keys a prompt asks for: quoted identifiers and "fields
// name, email and date" lists in the instruction.
func (c cues) jsonKeys() []string {
	var keys []string
	add := func(k string) {
		k = strings.TrimSpace(k)
		if k == "" || strings.EqualFold(k, "json") || strings.EqualFold(k, "and") || len(keys) == 8 {
			return
		}
		for _, have := range keys {
			if have == k {
				return
			}
		}
		keys = append(keys, k)
	}
	text := c.system + "\n" + c.instruction
	for _, m := range quoteKeyRE.FindAllStringSubmatch(text, -1) {
		add(m[1])
	}
	if len(keys) == 0 {
		for _, m := range fieldsRE.FindAllStringSubmatch(text, -1) {
			list := strings.NewReplacer(" and ", ",", "/", ",").Replace(m[1])
			for _, k := range strings.Split(list, ",") {
				if f := strings.Fields(k); len(f) == 1 {
					add(f[0])
				}
			}
		}
	}
	return keys
}

// sentences splits text into sentences, keeping their end punctuation.
func sentences(text string) []string {
	var out []string
	start := 0
	rs := []rune(text)
	for i, r := range rs {
		end := false
		switch {
		case r == '\n':
			end = true
		case r == '.' || r == '!' || r == '?':
			end = i+1 == len(rs) || unicode.IsSpace(rs[i+1])
		}
		if end {
			if s := strings.TrimSpace(string(rs[start : i+1])); s != "" && s != "." {
				out = append(out, s)
			}
			start = i + 1
		}
	}
	if s := strings.TrimSpace(string(rs[start:])); s != "" {
		out = append(out, s)
	}
	return out
}

func countWords(s string) int { return len(strings.Fields(s)) }
