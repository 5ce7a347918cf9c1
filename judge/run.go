package judge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ringside-eval/ringside"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Run runs every check of the set on a generation of its prompt.
func (s *Set) Run(g *ringside.Generation) []ringside.CheckResult {
	return s.RunContext(context.Background(), g)
}

// RunContext is Run with a context for the checks that reach outside
// (command, llm_rubric): when ctx ends, they fail.
func (s *Set) RunContext(ctx context.Context, g *ringside.Generation) []ringside.CheckResult {
	out := make([]ringside.CheckResult, len(s.Checks))
	for i := range s.Checks {
		c := &s.Checks[i]
		pass, detail, cost := false, "", 0.0
		switch {
		case g.Failed():
			// A failed generation fails every check, not_contains included:
			// an empty answer does not "avoid" anything.
			detail = "generation failed (" + g.ErrorKind + ")"
		case c.Type == "command":
			pass, detail = c.runCommand(ctx, s.prompt(), g)
		case c.Type == "llm_rubric":
			pass, detail, cost = c.runRubric(ctx, s.graders[c.model], s.prompt(), g)
		default:
			pass, detail = c.run(g, s.Reference)
		}
		out[i] = ringside.CheckResult{GenerationID: g.ID, Source: c.Source, Index: c.Index, Type: c.Type, Dimension: c.Dimension,
			Weight: c.Weight, Pass: pass, Detail: detail, CostUSD: cost}
	}
	return out
}

// prompt is the set's prompt, or one with its id only for a set built by
// hand.
func (s *Set) prompt() *ringside.Prompt {
	if s.Prompt != nil {
		return s.Prompt
	}
	return &ringside.Prompt{ID: s.PromptID, Reference: s.Reference}
}

// maxQuote bounds how much of a value a detail quotes.
const maxQuote = 60

func (c *Check) run(g *ringside.Generation, reference string) (bool, string) {
	out := g.Output
	trimmed := strings.TrimSpace(out)
	switch c.Type {
	case "contains":
		return found(strings.Contains(out, c.text), c.text)
	case "icontains":
		return found(strings.Contains(strings.ToLower(out), strings.ToLower(c.text)), c.text)
	case "not_contains":
		ok, _ := found(strings.Contains(out, c.text), c.text)
		if ok {
			return false, fmt.Sprintf("contains %s", quote(c.text))
		}
		return true, fmt.Sprintf("no %s", quote(c.text))
	case "equals":
		if trimmed == c.text {
			return true, "equal"
		}
		return false, fmt.Sprintf("%s is not %s", quote(trimmed), quote(c.text))
	case "starts_with":
		if strings.HasPrefix(strings.TrimLeftFunc(out, unicode.IsSpace), c.text) {
			return true, fmt.Sprintf("starts with %s", quote(c.text))
		}
		return false, fmt.Sprintf("starts with %s, not %s", quote(trimmed), quote(c.text))
	case "regex":
		if loc := c.re.FindStringIndex(out); loc != nil {
			return true, fmt.Sprintf("matched %s", quote(out[loc[0]:loc[1]]))
		}
		return false, fmt.Sprintf("no match for /%s/", clip(c.re.String()))
	case "is_json":
		if err := checkJSON(trimmed); err != nil {
			return false, err.Error()
		}
		return true, "valid JSON"
	case "json_schema":
		return c.runSchema(trimmed)
	case "min_chars", "max_chars":
		n := utf8.RuneCountInString(trimmed)
		return limit(c.Type == "min_chars", float64(n), c.number, "characters")
	case "max_words":
		return limit(false, float64(len(strings.Fields(out))), c.number, "words")
	case "reference_match":
		return matchReference(trimmed, reference, c.normalized)
	case "max_latency_ms":
		return limit(false, g.LatencyMs, c.number, "ms")
	case "max_cost_usd":
		return limit(false, g.CostUSD, c.number, "USD")
	case "refusal", "no_refusal":
		refused, phrase := IsRefusal(out)
		detail := "not a refusal"
		if refused {
			detail = fmt.Sprintf("refusal (%s)", quote(phrase))
		}
		return refused == (c.Type == "refusal"), detail
	}
	// Compile admits only the types above; reaching here is a bug, and a
	// failure is the safe answer.
	return false, "unknown check type " + c.Type
}

func found(ok bool, s string) (bool, string) {
	if ok {
		return true, fmt.Sprintf("found %s", quote(s))
	}
	return false, fmt.Sprintf("%s not found", quote(s))
}

// limit compares a measured n with a bound: at least the bound when min,
// at most when not.
func limit(min bool, n, bound float64, unit string) (bool, string) {
	switch {
	case min && n >= bound, !min && n <= bound:
		op := "<="
		if min {
			op = ">="
		}
		return true, fmt.Sprintf("%g %s %s %g", n, unit, op, bound)
	case min:
		return false, fmt.Sprintf("%g %s < %g", n, unit, bound)
	}
	return false, fmt.Sprintf("%g %s > %g", n, unit, bound)
}

func checkJSON(s string) error {
	if s == "" {
		return errors.New("empty output, not JSON")
	}
	dec := json.NewDecoder(strings.NewReader(s))
	var v any
	if err := dec.Decode(&v); err != nil {
		if strings.HasPrefix(s, "```") {
			return errors.New("not bare JSON: wrapped in a code fence")
		}
		return fmt.Errorf("not JSON: %v", err)
	}
	if dec.More() {
		return errors.New("not JSON: text after the JSON value")
	}
	return nil
}

func (c *Check) runSchema(s string) (bool, string) {
	if err := checkJSON(s); err != nil {
		return false, err.Error()
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(s))
	if err != nil {
		return false, fmt.Sprintf("not JSON: %v", err)
	}
	err = c.schema.Validate(inst)
	if err == nil {
		return true, "valid under the schema"
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return false, oneLine(err.Error())
	}
	return false, schemaFailures(ve)
}

// schemaFailures names the first few failing places in the instance, each by
// its JSON pointer: the leaves of the library's error tree say what is wrong
// where, the inner nodes only repeat it.
func schemaFailures(ve *jsonschema.ValidationError) string {
	var leaves []string
	var walk func(u *jsonschema.OutputUnit)
	walk = func(u *jsonschema.OutputUnit) {
		if len(u.Errors) == 0 {
			loc := u.InstanceLocation
			if loc == "" {
				loc = "/"
			}
			msg := "invalid"
			if u.Error != nil {
				msg = u.Error.String()
			}
			leaves = append(leaves, "at "+loc+": "+msg)
			return
		}
		for i := range u.Errors {
			walk(&u.Errors[i])
		}
	}
	walk(ve.DetailedOutput())
	const most = 3
	if len(leaves) > most {
		leaves = append(leaves[:most], fmt.Sprintf("and %d more", len(leaves)-most))
	}
	return strings.Join(leaves, "; ")
}

func matchReference(out, reference string, normalized bool) (bool, string) {
	ref := strings.TrimSpace(reference)
	if normalized {
		out, ref = normalize(out), normalize(ref)
	}
	if out == ref {
		return true, "matches the reference"
	}
	return false, fmt.Sprintf("%s is not the reference %s", quote(out), quote(ref))
}

// normalize folds case and keeps only the words, so "Billing." matches
// "billing" and "high  priority" matches "High priority".
func normalize(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsPunct(r) || unicode.IsSymbol(r) {
			r = ' '
		}
		b.WriteRune(r)
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

func quote(s string) string { return fmt.Sprintf("%q", clip(s)) }

// clip shortens s to maxQuote characters for a detail line.
func clip(s string) string {
	if utf8.RuneCountInString(s) <= maxQuote {
		return s
	}
	runes := []rune(s)
	return string(runes[:maxQuote]) + "…"
}
