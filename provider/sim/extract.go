package sim

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
)

var (
	emailRE = regexp.MustCompile(`[\w.+-]+@[\w-]+(?:\.[\w-]+)+`)
	moneyRE = regexp.MustCompile(`[$€£]\s?\d[\d,]*(?:\.\d+)?|\d[\d,]*(?:\.\d+)?\s?(?:USD|EUR|GBP|dollars|euros)`)
	orderRE = regexp.MustCompile(`#\s?[A-Z0-9-]{3,}|\b[A-Z]{2,5}-\d{3,}\b|\b\d{5,}\b`)
	dateRE  = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}/\d{1,2}/\d{2,4}\b|\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.? \d{1,2}(?:st|nd|rd|th)?(?:, \d{4})?\b|\b(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|yesterday|today|tomorrow)\b`)
	phoneRE = regexp.MustCompile(`\+?\d[\d ().-]{7,}\d`)
	nameRE  = regexp.MustCompile(`(?i:my name is|name:|regards,|thanks,|thank you,|cheers,|from:)\s*([A-Z][a-z]+(?: [A-Z][a-z]+)?)`)
)

const (
	negativeCues = "angry|upset|disappointed|frustrat|terrible|awful|broken|damaged|unacceptable|still hasn't|never arrived|charged twice|worst|not working|doesn't work|complain"
	positiveCues = "thank|great|love|excellent|happy|amazing|wonderful|pleased|fantastic"
)

// jsonAnswer answers a prompt that asks for JSON: the reference when it is
// JSON, else an object with the keys the prompt asks for, filled from its
// text. Following the format means bare valid JSON; not following it means
// JSON wrapped in prose, or JSON that does not parse.
func (w *composer) jsonAnswer() string {
	var body []byte
	if w.ref != "" && json.Valid([]byte(w.ref)) {
		body = []byte(w.ref)
		if !w.d.correct {
			body = []byte(perturb(w.ref, w.r))
			if !json.Valid(body) {
				body = []byte(w.ref)
			}
		}
	} else {
		body = w.object()
	}
	var out bytes.Buffer
	if w.r.IntN(3) == 0 {
		_ = json.Compact(&out, body)
	} else {
		_ = json.Indent(&out, body, "", "  ")
	}
	text := out.String()
	if w.d.follow {
		return text
	}
	switch w.r.IntN(3) {
	case 0:
		text = w.pick("Sure! Here's the JSON you asked for:", "Here is the extracted data:", "Of course. Here's the result:") +
			"\n\n```json\n" + text + "\n```"
		if w.d.ramble {
			text = w.padded(text)
		}
		return text
	case 1:
		// A trailing comma, the commonest way hand-written JSON breaks.
		if i := strings.LastIndex(text, "}"); i > 0 {
			return strings.TrimRight(text[:i], " \n") + ",\n}" + text[i+1:]
		}
	}
	// Python-style quotes: looks like JSON, is not.
	if broken := strings.ReplaceAll(text, `"`, `'`); !json.Valid([]byte(broken)) {
		return broken
	}
	return "Here you go: " + text // a bare number or literal stays valid; break it with prose
}

// object builds a JSON object with the keys the prompt asks for, in order.
func (w *composer) object() []byte {
	keys := w.c.jsonKeys()
	if len(keys) == 0 {
		keys = []string{"summary", "sentiment", "topics"}
	}
	wrong := -1
	if !w.d.correct {
		wrong = w.r.IntN(len(keys))
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		v := w.value(k)
		if i == wrong {
			v = w.wrongValue(v)
		}
		vb, _ := json.Marshal(v)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// value fills a key from the prompt's text, guessing the kind of value from
// the key's name.
func (w *composer) value(key string) any {
	text := w.c.source
	k := strings.ToLower(key)
	find := func(re *regexp.Regexp) any {
		if s := re.FindString(text); s != "" {
			return strings.TrimSpace(s)
		}
		return nil
	}
	has := func(parts ...string) bool {
		for _, p := range parts {
			if strings.Contains(k, p) {
				return true
			}
		}
		return false
	}
	switch {
	case has("email", "mail"):
		return find(emailRE)
	case has("phone", "tel"):
		return find(phoneRE)
	case has("date", "when", "day", "time"):
		return find(dateRE)
	case has("amount", "price", "total", "cost", "refund", "fee"):
		return find(moneyRE)
	case has("order", "invoice", "ticket", "reference", "id", "number"):
		return find(orderRE)
	case has("name", "customer", "person", "sender", "author", "contact"):
		if n := customerName(text); n != "" {
			return n
		}
		return nil
	case has("sentiment", "tone", "mood"):
		return sentiment(text)
	case has("topics", "tags", "keywords", "categories", "entities", "items"):
		var out []string
		for i := 0; i < min(3, len(w.c.keywords)); i++ {
			out = append(out, strings.ToLower(w.c.keywords[i]))
		}
		return out
	case has("urgent", "is_", "has_", "needs_", "requires"):
		return sentiment(text) == "negative"
	case has("quantity", "count"):
		if n := numRE.FindString(text); n != "" {
			return json.Number(n)
		}
		return nil
	case has("summary", "description", "issue", "problem", "reason", "request", "intent", "category", "topic"):
		return strings.TrimRight(firstWords(firstSentence(text), 20), ".…")
	}
	return w.kw(len(key))
}

// wrongValue is a plausible mistake for a value.
func (w *composer) wrongValue(v any) any {
	switch x := v.(type) {
	case string:
		if p := perturb(x, w.r); !strings.HasPrefix(p, "It depends") {
			return p
		}
		return nil
	case bool:
		return !x
	case json.Number:
		return json.Number(otherNumber(string(x), w.r))
	case []string:
		if len(x) > 1 {
			return x[:1]
		}
	}
	return "unknown"
}

func sentiment(text string) string {
	l := strings.ToLower(text)
	switch {
	case anyCue(l, negativeCues):
		return "negative"
	case anyCue(l, positiveCues):
		return "positive"
	}
	return "neutral"
}

// customerName finds a person's name in the text: "my name is Ana Ruiz",
// a sign-off ("Thanks,\nAna").
func customerName(text string) string {
	if m := nameRE.FindStringSubmatch(text); m != nil {
		return m[1]
	}
	return ""
}
