package ringside

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// vendorTerms are the vendors and product names a model is likely to call
// itself ("As ChatGPT, developed by OpenAI..."), in lower case. Any of them
// in a battle's output tells the judge something about who wrote it, or
// makes them think so, whichever models are in the battle: the public arena
// drops such battles from its rankings, and so does ringside by default.
// A term ending in a digit also matches with a suffix ("gpt-4" in "gpt-4o").
var vendorTerms = []string{
	"openai", "chatgpt", "chat-gpt", "gpt-3", "gpt3", "gpt-4", "gpt4", "gpt-5", "gpt5",
	"o1-mini", "o3-mini", "o4-mini",
	"anthropic", "claude",
	"deepmind", "gemini", "bard",
	"meta ai", "llama",
	"mistral", "mixtral", "qwen", "deepseek", "grok", "x.ai",
}

// NamesAModel reports whether a battle's outputs name a model: one of the
// battle's models by its name or provider id, or a well-known vendor or
// product. Judges must not learn who is who before voting, so such a battle
// is marked Battle.IdentityLeak (and left out of rankings by default). It is
// the one rule for that mark, applied when the outputs exist, so a battle's
// mark never depends on whether a judge was dealt it.
//
// A name the prompt itself contains does not count: a model asked about
// ChatGPT may say ChatGPT. Names shorter than three characters are not
// looked for, since they match ordinary words, and a name counts only as a
// whole word ("alpha" in "alphabet" is not a name). It scans with plain
// substring search, which stays fast on long outputs.
func NamesAModel(prompt []Message, outputs []string, models []Model) bool {
	var p strings.Builder
	for _, m := range prompt {
		p.WriteString(strings.ToLower(m.Content))
		p.WriteByte('\n')
	}
	promptText := p.String()
	var names []string
	for _, m := range models {
		for _, name := range []string{m.Name, m.ModelID} {
			if len(name) >= 3 {
				names = append(names, strings.ToLower(name))
			}
		}
	}
	for _, out := range outputs {
		low := strings.ToLower(out)
		for _, terms := range [][]string{names, vendorTerms} {
			for _, term := range terms {
				if containsWord(low, term) && !strings.Contains(promptText, term) {
					return true
				}
			}
		}
	}
	return false
}

// containsWord reports whether term occurs in s as a word: not preceded by a
// letter or digit, nor followed by a letter unless term ends in a digit (a
// version suffix: "gpt-4" in "gpt-4o").
func containsWord(s, term string) bool {
	for from := 0; ; {
		i := strings.Index(s[from:], term)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(term)
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[end:])
		startsWord := i == 0 || !(unicode.IsLetter(before) || unicode.IsDigit(before))
		last := term[len(term)-1]
		endsWord := end == len(s) || !unicode.IsLetter(after) || (last >= '0' && last <= '9')
		if startsWord && endsWord {
			return true
		}
		from = i + 1
	}
}
