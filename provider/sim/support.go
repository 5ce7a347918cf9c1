package sim

import (
	"slices"
	"strings"
)

// supportActions are what a support agent does, by the request's cue.
var supportActions = []struct{ cue, action string }{
	{"refund|charged|money back", "I've issued a refund of {amount} to your original payment method; it should appear within 5 to 7 business days."},
	{"cancel", "I've cancelled your subscription effective today, so you won't be charged again."},
	{"password|log in|login|locked", "You can reset your password from the sign-in page with \"Forgot password\"; the link we email you is valid for 24 hours."},
	{"deliver|shipping|order|package|parcel", "I've checked order {order}: it's with the courier and should arrive within 2 business days."},
	{"invoice|billing", "I've sent a corrected invoice to the email address on your account."},
	{"", "I've passed this to the right team, and they'll get back to you within 1 business day."},
}

// supportReply is a customer-support answer: acknowledgement, what the
// policies say about the request (or an action fitting it), next steps and
// a sign-off; in Spanish when asked to reply in a Spanish-writing
// customer's language and following instructions (spanish.go).
func (w *composer) supportReply() string {
	if w.spanishReply() {
		return w.supportReplyES()
	}
	greeting := "Hi"
	if name := customerName(w.c.user); name != "" {
		greeting += " " + name
	}
	var b strings.Builder
	b.WriteString(greeting + ",\n\n")
	b.WriteString(w.pick("Thanks for reaching out, and I'm sorry for the trouble.", "Thank you for contacting us, and sorry about this.", "Thanks for getting in touch."))
	if s := firstSentence(w.c.source); startsFirstPerson(s) {
		b.WriteString(" I understand " + lowerFirst(reflect(strings.TrimRight(s, ".!?"))) + ".")
	}
	b.WriteString("\n\n" + w.supportAction())
	if rc := w.recall(); rc != "" {
		b.WriteString(" " + rc)
	}
	if w.d.ramble && !w.brief() {
		b.WriteString("\n\n" + w.fillers(3+w.r.IntN(3)))
	}
	b.WriteString("\n\n" + w.pick("If anything else comes up, just reply to this message.", "Let me know if there's anything else I can help with.", "If you have any other questions, we're here to help."))
	signoff := "The Support Team"
	if w.c.signoff != "" && w.d.follow {
		signoff = w.c.signoff
	}
	b.WriteString("\n\n" + w.pick("Best regards,", "Kind regards,", "Thanks,") + "\n" + signoff)
	return b.String()
}

// supportAction is the substance of a support reply: the reference, or the
// system prompt's policies that bear on the request, or an action that fits
// its cue; a vague request gets a question back.
func (w *composer) supportAction() string {
	if w.ref != "" {
		return w.core(w.ref)
	}
	if pol := relevant(w.c.policies, w.c.user, 2); len(pol) > 0 {
		return w.pick("Here's how it works: ", "Good news: ", "") + w.core(strings.Join(pol, " "))
	}
	lower := strings.ToLower(w.c.user)
	chosen := -1
	for i, a := range supportActions {
		if a.cue != "" && anyCue(lower, a.cue) {
			chosen = i
			break
		}
	}
	if chosen < 0 && countWords(w.c.user) < 8 {
		return "Could you tell me a bit more: which product or order is this about, and what happens when you try?"
	}
	if chosen < 0 {
		chosen = len(supportActions) - 1
	}
	fill := func(s string) string {
		amount := moneyRE.FindString(w.c.user)
		if amount == "" {
			amount = "the full amount"
		}
		order := orderRE.FindString(w.c.user)
		if order == "" {
			order = "on your account"
		}
		return strings.NewReplacer("{amount}", amount, "{order}", order).Replace(s)
	}
	if !w.d.correct {
		// Without a reference, a wrong answer takes the wrong action.
		chosen = (chosen + 1 + w.r.IntN(len(supportActions)-1)) % len(supportActions)
	}
	return fill(supportActions[chosen].action)
}

// relevant are up to n of the policies that share the most words with the
// request (at least two), best first. Rules addressed to the assistant
// ("Never promise...") are not for the customer's eyes.
func relevant(policies []string, request string, n int) []string {
	words := map[string]bool{}
	for _, k := range keywords(request) {
		if len(k) >= 4 {
			words[stem(k)] = true
		}
	}
	// Customers and policies name the same things differently.
	for _, syn := range strings.Split(synonyms, "|") {
		from, to, _ := strings.Cut(syn, ":")
		if words[from] {
			for _, t := range strings.Fields(to) {
				words[t] = true
			}
		}
	}
	type scored struct {
		s     string
		score int
	}
	var hits []scored
	for _, p := range policies {
		if anyCue(strings.ToLower(p), "never |always |do not |don't |offer to ") {
			continue
		}
		score := 0
		for _, k := range keywords(p) {
			if words[stem(k)] {
				score++
			}
		}
		if score >= 2 {
			hits = append(hits, scored{p, score})
		}
	}
	slices.SortStableFunc(hits, func(a, b scored) int { return b.score - a.score })
	var out []string
	for i := 0; i < len(hits) && i < n; i++ {
		out = append(out, hits[i].s)
	}
	return out
}

// synonyms map a stemmed customer word to policy words.
const synonyms = "money:refund return|back:return|arriv:deliver|late:deliver promis|worn:unworn|cancel:cancell|charg:bill refund"

// stem is a crude stem, enough to match "returned" with "return" and
// "refunds" with "refund".
func stem(w string) string {
	w = strings.ToLower(w)
	for _, suf := range []string{"ing", "ed", "es", "s"} {
		if len(w) > len(suf)+3 && strings.HasSuffix(w, suf) {
			return w[:len(w)-len(suf)]
		}
	}
	return w
}
