package sim

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A system prompt may ask for replies in the customer's language. Besides
// English the sim knows just enough Spanish for a support reply: a model
// that follows instructions answers a Spanish ticket in Spanish, one that
// does not answers in English, which is the difference a judge should see.

// sameLanguageRE finds "reply in the customer's language", "answer in the
// user's language", "respond in the same language as the customer" in a
// lowercased system prompt.
var sameLanguageRE = regexp.MustCompile(`\b(?:reply|respond|answer|write)\b[^.\n]{0,30}\bin (?:the )?(?:same language as (?:the )?(?:customer|user)|(?:customer|user)s?['’]s? (?:own )?language|(?:their|his|her) (?:own )?language|language (?:of )?the (?:customer|user))`)

// spanishWords are common Spanish words that are rare as words in English.
// "no", "me", "he", "de", "en", "mi" are left out: they are English words,
// abbreviations or parts of names too often.
const spanishWords = " hola gracias pedido quiero puedo cuánto cuanto tengo compré compre el la los las que para una unas unos por del pero está están estoy muy también cómo cuándo dónde qué hace porque recibí ayuda "

// looksSpanish reports whether text reads as Spanish: inverted marks, or
// three different Spanish words making up at least a tenth of its words. An
// article opening a name (Los Angeles, El Paso) does not count.
func looksSpanish(text string) bool {
	if strings.ContainsAny(text, "¿¡") {
		return true
	}
	words := strings.FieldsFunc(text, notLetter)
	hits, seen := 0, map[string]bool{}
	for i, w := range words {
		lw := strings.ToLower(w)
		if !strings.Contains(spanishWords, " "+lw+" ") ||
			strings.Contains(" el la los las ", " "+lw+" ") && lw != w && i+1 < len(words) && startsUpper(words[i+1]) {
			continue
		}
		hits++
		seen[lw] = true
	}
	return len(seen) >= 3 && hits*10 >= len(words)
}

func startsUpper(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r)
}

func notLetter(r rune) bool { return !unicode.IsLetter(r) }

// spanishReply reports whether this support reply is written in Spanish:
// asked to reply in the customer's language, to a Spanish ticket, by a
// generation that follows instructions.
func (w *composer) spanishReply() bool { return w.c.sameLanguage && w.c.spanish && w.d.follow }

// esGlossary maps the beginnings of Spanish words to the English words that
// policies use, so that relevant() finds the policies a Spanish request is
// about ("devolverlas" is about returns, "usado" about unworn items). A
// return glosses as "returned": relevant() drops "return" as a stopword.
var esGlossary = []struct{ prefix, en string }{
	{"reembols", "refund"}, {"devol", "returned"}, {"devuel", "returned"},
	{"usad", "unworn"}, {"puest", "unworn"}, {"retras", "late delivery"},
	{"envío", "shipping"}, {"envio", "shipping"}, {"cobr", "charged"},
	{"factura", "invoice"}, {"cancel", "cancel"}, {"contraseña", "password"},
}

func esGloss(text string) string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), notLetter) {
		for _, g := range esGlossary {
			if strings.HasPrefix(w, g.prefix) {
				out = append(out, g.en)
			}
		}
	}
	return strings.Join(out, " ")
}

// esKeepRE is what goes into a Spanish reply as it is: URLs and codes
// (northwind.example/returns, DELAY15).
var esKeepRE = regexp.MustCompile(`(?:https?://)?[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}(?:/[\w./%-]*[\w/])?|\b[A-Z]+-?\d+\b`)

// esFactRE is what a fallback sentence must carry: URLs, codes, figures.
var esFactRE = regexp.MustCompile(esKeepRE.String() + `|\d+(?:[.,]\d+)?(?:\s*[–-]\s*\d+)?(?:\s?%)?`)

// esRules render common policy phrases in Spanish, the longer before the
// shorter, carrying their figures over. They are phrases rather than whole
// policies so that another shop's policies render too.
var esRules = []struct {
	re *regexp.Regexp
	es string
}{
	{regexp.MustCompile(`(?i)(?:unworn|unused) items can be returned`), "los artículos sin usar se pueden devolver"},
	{regexp.MustCompile(`(?i)within (\d+) days of delivery`), "dentro de los ${1} días posteriores a la entrega"},
	{regexp.MustCompile(`(?i)for a full refund`), "con reembolso completo"},
	{regexp.MustCompile(`(?i)full refund`), "reembolso completo"},
	{regexp.MustCompile(`(?i)to the original payment method`), "al método de pago original"},
	{regexp.MustCompile(`(?i)original payment method`), "método de pago original"},
	{regexp.MustCompile(`(?i)refunds (?:post|arrive|are issued)`), "el reembolso se abona"},
	{regexp.MustCompile(`(?i)(\d+)\s*[–-]\s*(\d+) business days`), "de ${1} a ${2} días hábiles"},
	{regexp.MustCompile(`(?i)\b1 business day\b`), "1 día hábil"},
	{regexp.MustCompile(`(?i)(\d+) business days`), "${1} días hábiles"},
	{regexp.MustCompile(`(?i)after the return is (?:scanned|received) at our warehouse`), "después de que la devolución llegue a nuestro almacén"},
	{regexp.MustCompile(`(?i)return shipping is free`), "el envío de la devolución es gratuito"},
	{regexp.MustCompile(`(?i)with (?:the|a) prepaid label from`), "con la etiqueta prepagada de"},
	{regexp.MustCompile(`(?i)orders delivered more than`), "los pedidos entregados con más de"},
	{regexp.MustCompile(`(?i)after the promised date`), "de retraso respecto a la fecha prometida"},
	{regexp.MustCompile(`(?i)qualify for a (\d+)% goodwill code`), "tienen derecho a un código de cortesía del ${1} %"},
	{regexp.MustCompile(`(?i)valid on the next order`), "válido en el siguiente pedido"},
	{regexp.MustCompile(`(?i)\band\b`), "y"},
	{regexp.MustCompile(`(?i)\bor\b`), "o"},
}

// markedRE is a part already rendered or kept, between \x01 and \x02.
var markedRE = regexp.MustCompile("\x01[^\x02]*\x02")

// unmarked applies f to the parts of s not yet rendered or kept, so that
// no rule rewrites a URL or Spanish already written.
func unmarked(s string, f func(string) string) string {
	var b strings.Builder
	last := 0
	for _, loc := range markedRE.FindAllStringIndex(s, -1) {
		b.WriteString(f(s[last:loc[0]]) + s[loc[0]:loc[1]])
		last = loc[1]
	}
	b.WriteString(f(s[last:]))
	return b.String()
}

// spanishSentence renders one policy sentence in Spanish. If the rules
// leave any word of it unrendered, it is a generic Spanish sentence with
// the original's figures, URLs and codes instead: never English in a
// Spanish reply, and no fact lost.
func spanishSentence(s string) string {
	t := unmarked(s, func(p string) string { return esKeepRE.ReplaceAllString(p, "\x01${0}\x02") })
	for _, r := range esRules {
		t = unmarked(t, func(p string) string { return r.re.ReplaceAllString(p, "\x01"+r.es+"\x02") })
	}
	if strings.IndexFunc(markedRE.ReplaceAllString(t, ""), unicode.IsLetter) >= 0 {
		msg := "Nuestra política incluye una condición que se aplica a su caso"
		if facts := esFactRE.FindAllString(s, -1); len(facts) > 0 {
			msg += " (datos: " + strings.Join(facts, ", ") + ")"
		}
		return msg + "."
	}
	t = strings.Join(strings.Fields(strings.NewReplacer("\x01", "", "\x02", "").Replace(t)), " ")
	if loc := esKeepRE.FindStringIndex(s); loc != nil && loc[0] == 0 {
		return t // a URL or code keeps its case
	}
	return capitalize(t)
}

// perturbES is perturb for Spanish: a figure changed, or else a vague
// answer in Spanish (perturb's flips and fallback are English).
func perturbES(s string, r *rand.Rand) string {
	for _, loc := range numRE.FindAllStringIndex(s, -1) {
		if loc[1] == len(s) || !isLetter(s[loc[1]]) {
			return perturb(s, r) // perturb changes this same number
		}
	}
	return "Depende de varios factores, así que no hay una respuesta única para su caso."
}

// esFillers pad a rambling Spanish reply.
var esFillers = []string{
	"Entendemos lo importante que es para usted resolver esto cuanto antes.",
	"Cada caso es un poco distinto, así que conviene revisar todos los detalles.",
	"Nuestro equipo trabaja a diario para que la experiencia de compra sea lo más sencilla posible.",
	"Siempre es buena idea conservar el comprobante de compra y el número de pedido a mano.",
}

// supportReplyES is supportReply in Spanish: greeting, thanks, what the
// relevant policies say, a closing line and the sign-off asked for. It
// leaves out the English path's "I understand..." and multi-turn recall,
// which quote the customer's words.
func (w *composer) supportReplyES() string {
	greeting := "Hola"
	if name := customerName(w.c.user); name != "" {
		greeting += " " + name
	}
	var b strings.Builder
	b.WriteString(greeting + ",\n\n")
	b.WriteString(w.pick("Gracias por escribirnos y disculpe las molestias.", "Muchas gracias por contactar con nosotros.", "Gracias por su mensaje."))
	b.WriteString("\n\n" + w.supportActionES())
	if w.d.ramble && !w.brief() {
		pad := slices.Clone(esFillers)
		w.r.Shuffle(len(pad), func(i, j int) { pad[i], pad[j] = pad[j], pad[i] })
		b.WriteString("\n\n" + strings.Join(pad[:2+w.r.IntN(2)], " "))
	}
	b.WriteString("\n\n" + w.pick("Si necesita algo más, responda a este mensaje.", "Quedo a su disposición para cualquier otra consulta.", "Si tiene alguna otra pregunta, estamos aquí para ayudarle."))
	signoff := "El equipo de soporte"
	if w.c.signoff != "" {
		signoff = w.c.signoff // a Spanish reply is a following one
	}
	b.WriteString("\n\n" + w.pick("Saludos cordiales,", "Un saludo,", "Atentamente,") + "\n" + signoff)
	return b.String()
}

// supportActionES is supportAction in Spanish: the reference, or the
// relevant policies rendered in Spanish, or a question back for a vague
// request, or else an escalation.
func (w *composer) supportActionES() string {
	if w.ref != "" {
		return w.coreES(w.ref)
	}
	if pol := relevant(w.c.policies, esGloss(w.c.user), 2); len(pol) > 0 {
		var out []string
		for _, s := range sentences(strings.Join(pol, " ")) {
			out = append(out, spanishSentence(s))
		}
		return w.pick("Le explico cómo funciona. ", "Con gusto le ayudo. ", "") + w.coreES(strings.Join(out, " "))
	}
	if countWords(w.c.user) < 8 {
		return "¿Podría darme algo más de detalle: de qué producto o pedido se trata y qué ocurre cuando lo intenta?"
	}
	return w.coreES("He pasado su consulta al equipo correspondiente, que le responderá en un plazo de 1 día hábil.")
}

// coreES is core for Spanish text.
func (w *composer) coreES(s string) string {
	if w.d.correct {
		return s
	}
	return perturbES(s, w.r)
}
