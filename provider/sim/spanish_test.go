package sim_test

import (
	"bytes"
	"fmt"
	"maps"
	"regexp"
	"strings"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/examples"
	"github.com/ringside-eval/ringside/judge"
	"github.com/ringside-eval/ringside/provider/sim"
)

// examplePrompts are the demo's prompts, as the demo reads them.
func examplePrompts(t *testing.T) []ringside.Prompt {
	t.Helper()
	prompts, err := ringside.ReadPrompts(bytes.NewReader(examples.Prompts), examples.PromptsFile)
	if err != nil {
		t.Fatal(err)
	}
	return prompts
}

func examplePrompt(t *testing.T, id string) ringside.Prompt {
	t.Helper()
	for _, p := range examplePrompts(t) {
		if p.ID == id {
			return p
		}
	}
	t.Fatalf("no example prompt %s", id)
	return ringside.Prompt{}
}

func lastUser(msgs []ringside.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" {
			return msgs[i].Content
		}
	}
	return ""
}

// englishRE finds English words that a Spanish reply must not contain.
var englishRE = regexp.MustCompile(`\b(?:the|and|you|your|for|with|within|is|can|of|to|Hi|Thanks|Thank|refund|days)\b`)

func TestLooksSpanish(t *testing.T) {
	var spanish []string
	for _, p := range examplePrompts(t) {
		if sim.LooksSpanish(lastUser(p.Messages)) {
			spanish = append(spanish, p.ID)
		}
	}
	if len(spanish) != 1 || spanish[0] != "support-spanish-005" {
		t.Errorf("Spanish example prompts: %v, want just support-spanish-005", spanish)
	}
	for text, want := range map[string]bool{
		"Hola, quiero cancelar mi pedido porque llegó tarde. Gracias.":                           true,
		"Compré una chaqueta y la talla no es la correcta, ¿qué hago?":                           true,
		"Plan a road trip from Los Angeles to Las Vegas via El Paso, with a stop at La Jolla.":   false,
		"Hi, I bought boots 10 days ago and they are too small. Can I return them for a refund?": false,
	} {
		if got := sim.LooksSpanish(text); got != want {
			t.Errorf("LooksSpanish(%q) = %v, want %v", text, got, want)
		}
	}
}

func TestSpanishSentence(t *testing.T) {
	for in, want := range map[string]string{
		"Unworn items can be returned within 30 days of delivery for a full refund to the original payment method.":                             "Los artículos sin usar se pueden devolver dentro de los 30 días posteriores a la entrega con reembolso completo al método de pago original.",
		"Refunds post 5-7 business days after the return is scanned at our warehouse.":                                                          "El reembolso se abona de 5 a 7 días hábiles después de que la devolución llegue a nuestro almacén.",
		"Return shipping is free with the prepaid label from northwind.example/returns.":                                                        "El envío de la devolución es gratuito con la etiqueta prepagada de northwind.example/returns.",
		"Orders delivered more than 5 business days after the promised date qualify for a 15% goodwill code, DELAY15, valid on the next order.": "Los pedidos entregados con más de 5 días hábiles de retraso respecto a la fecha prometida tienen derecho a un código de cortesía del 15 %, DELAY15, válido en el siguiente pedido.",
		// Beyond the rules: a generic Spanish sentence with the facts.
		"Gift cards can be exchanged at acme.example/gifts within 14 days, for 10% off.": "Nuestra política incluye una condición que se aplica a su caso (datos: acme.example/gifts, 14, 10%).",
	} {
		if got := sim.SpanishSentence(in); got != want {
			t.Errorf("SpanishSentence(%q)\n got %q\nwant %q", in, got, want)
		}
	}
}

// TestSpanishSupport answers the demo's Spanish ticket: in Spanish, passing
// its checks, when the model follows instructions; in English when not.
func TestSpanishSupport(t *testing.T) {
	p := examplePrompt(t, "support-spanish-005")
	rules, err := judge.NewRules([]ringside.Prompt{p}, nil)
	if err != nil {
		t.Fatal(err)
	}
	checks := func(text string) []string {
		results, _ := rules.Check(&ringside.Generation{PromptID: p.ID, Output: text})
		var failed []string
		for _, r := range results {
			if !r.Pass {
				failed = append(failed, r.Name()+": "+r.Detail)
			}
		}
		return failed
	}
	base := map[string]any{"follow_format": 1.0, "correct": 1.0, "ramble": 0.0, "refuse_benign": 0.0}
	with := func(k string, v float64) map[string]any {
		m := maps.Clone(base)
		m[k] = v
		return m
	}
	for _, tt := range []struct {
		name    string
		profile map[string]any
		check   func(string) error
	}{
		{"follows", base, func(s string) error {
			if failed := checks(s); len(failed) > 0 {
				return fmt.Errorf("fails %v", failed)
			}
			if !strings.HasPrefix(s, "Hola,") || !strings.HasSuffix(s, "Sam, Northwind Outfitters") || !strings.Contains(s, "30 días") {
				return fmt.Errorf("not a Spanish reply from the policies")
			}
			return nil
		}},
		{"rambles in Spanish", with("ramble", 1), func(s string) error {
			if len(checks(s)) > 0 || strings.Count(s, "\n\n") < 5 {
				return fmt.Errorf("want a padded Spanish reply passing the checks")
			}
			return nil
		}},
		{"wrong in Spanish", with("correct", 0), func(s string) error {
			if !strings.HasPrefix(s, "Hola,") || strings.Contains(s, "30 días") || !strings.Contains(s, "reembolso") {
				return fmt.Errorf("want a Spanish reply with the 30 days altered")
			}
			return nil
		}},
		{"does not follow", with("follow_format", 0), func(s string) error {
			if !strings.HasPrefix(s, "Hi,") || strings.Contains(s, "Hola") || len(checks(s)) == 0 {
				return fmt.Errorf("want the English reply, failing a check")
			}
			return nil
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newSim(t, "sim-es", tt.profile)
			for k := range 20 {
				req := ringside.Request{PromptID: p.ID, Messages: p.Messages, Sample: k}
				o := run(s, req)
				if o.err != nil {
					t.Fatal(o.err)
				}
				err := tt.check(o.res.Text)
				if err == nil && tt.name != "does not follow" && englishRE.MatchString(o.res.Text) {
					err = fmt.Errorf("English word %q in a Spanish reply", englishRE.FindString(o.res.Text))
				}
				if err != nil {
					t.Fatalf("sample %d: %v:\n%s", k, err, o.res.Text)
				}
				if again := run(s, req).res.Text; again != o.res.Text {
					t.Fatalf("sample %d: a second run differs:\n%s\n---\n%s", k, o.res.Text, again)
				}
			}
		})
	}
}

// TestReplyLanguageInstruction checks which system prompts ask for the
// customer's language, and that an English ticket is unaffected by one.
func TestReplyLanguageInstruction(t *testing.T) {
	const policy = "You are Sam, the support assistant for Acme Outdoor.\n\nPolicies:\n1. Unworn items can be returned within 30 days of delivery for a full refund.\n2. Orders delivered late qualify for a goodwill code, LATE15.\n\nSign off as \"Sam, Acme Outdoor\"."
	const spanish = "Hola, compré unas botas hace 12 días y no las he usado. Quiero devolverlas y recibir el reembolso, gracias."
	const english = "Can I return the boots I bought 12 days ago and get my money back? I haven't worn them."
	s, _ := newSim(t, "sim-lang", map[string]any{"follow_format": 1.0, "correct": 1.0, "ramble": 0.0, "refuse_benign": 0.0})
	answer := func(system, user string, sample int) string {
		o := run(s, ringside.Request{PromptID: "lang", Sample: sample, Messages: []ringside.Message{
			{Role: "system", Content: system}, {Role: "user", Content: user}}})
		if o.err != nil {
			t.Fatal(o.err)
		}
		return o.res.Text
	}
	for instruction, want := range map[string]bool{
		"Always reply in the customer's language.":      true,
		"Answer in the user's language.":                true,
		"Respond in the same language as the customer.": true,
		"Reply to customers in their own language.":     true,
		"":                         false,
		"Always reply in English.": false,
		"The customer's language preferences are stored.": false,
	} {
		got := answer(policy+"\n\n"+instruction, spanish, 0)
		if es := strings.HasPrefix(got, "Hola,") && strings.Contains(got, "dentro de los 30 días"); es != want {
			t.Errorf("%q: Spanish reply %v, want %v:\n%s", instruction, es, want, got)
		}
	}
	for k := range 5 {
		plain := answer(policy, english, k)
		if asked := answer(policy+"\n\nAlways reply in the customer's language.", english, k); asked != plain || !strings.HasPrefix(plain, "Hi,") {
			t.Errorf("sample %d: an English ticket changes with the language instruction:\n%s\n---\n%s", k, plain, asked)
		}
	}
}
