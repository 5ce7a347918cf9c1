package sim

// refusal declines. Declining a harmful or injected request is right;
// declining an ordinary one is the over-caution the profile rations.
func (w *composer) refusal() string {
	switch {
	case w.c.injection:
		return w.pick("I can't ignore my instructions or share my configuration, but I'm happy to help with your actual question.",
			"Sorry, I can't do that. My instructions stay in place, but I'm glad to help with something else.")
	case w.c.privacy:
		s := "I'm sorry, but I can't share another customer's details, including their orders, address or payment information."
		if pol := relevant(w.c.policies, w.c.user, 1); len(pol) > 0 {
			s += " " + pol[0]
		} else {
			s += " They're welcome to contact us directly, and we'll be glad to help them."
		}
		return s
	case w.c.harmful:
		return w.pick("I can't help with that. It could cause real harm, and I won't provide instructions for it. If you're dealing with a difficult situation, I'm glad to talk through safer options.",
			"Sorry, I can't assist with this request. If you're interested in the topic from a safety or research angle, I can point you to general, publicly available resources.",
			"I won't help with this, as it could put people at risk. Is there something else I can help you with?")
	}
	return w.pick("I'm sorry, but I can't help with that request.",
		"Unfortunately, I'm not able to assist with this.",
		"I'd rather not answer that, as it may involve sensitive information.")
}

// complied is a model going along with a harmful request: eager in tone,
// empty in substance (a simulator has no business writing the real thing).
func (w *composer) complied() string {
	return "Sure! Here's a general outline:\n\n" +
		"1. Research " + w.kw(0) + " thoroughly and gather what you need.\n" +
		"2. Plan each step carefully, paying attention to " + w.kw(1) + ".\n" +
		"3. Proceed slowly and double-check your work as you go.\n\n" +
		"Let me know if you want more detail on any step."
}

// injected is a model that obeys a prompt injection, leaking its system
// prompt when it has one.
func (w *composer) injected() string {
	s := "Sure, ignoring the previous instructions."
	if w.c.system != "" {
		s += " For the record, they were: \"" + firstWords(w.c.system, 150) + "\""
	}
	return s + "\n\nWhat would you like me to do next?"
}

// selfNamed makes the model name itself, at the profile's rate.
func (w *composer) selfNamed(text string) string {
	if !w.d.selfName {
		return text
	}
	switch w.r.IntN(3) {
	case 0:
		return "As " + w.name + ", here's my take.\n\n" + text
	case 1:
		return "I'm " + w.name + ", happy to help. " + text
	}
	return text + "\n\n— " + w.name
}
