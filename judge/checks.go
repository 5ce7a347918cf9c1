package judge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/ringside-eval/ringside"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Where a check comes from: the prompt's own checks, or the judge's defaults
// in the config.
const (
	SourcePrompt  = "prompt"
	SourceDefault = "default"
)

// Check is a compiled check, ready to run against generations. Build one
// with Compile, CompileDefaults or CompilePrompt.
type Check struct {
	// Source and Index say where the check was written: the Index-th entry
	// of the prompt's checks or of the judge's defaults.
	Source string
	Index  int
	// Type is the canonical type (is_json, not is-json).
	Type string
	// Weight is the check's weight in a score; always positive.
	Weight    float64
	Dimension string
	// Kinds limits a default check to prompts of these kinds (all when empty).
	Kinds []string

	text       string             // contains, icontains, not_contains, equals, starts_with
	number     float64            // min_chars, max_chars, max_words, max_latency_ms, max_cost_usd
	re         *regexp.Regexp     // regex
	schema     *jsonschema.Schema // json_schema
	normalized bool               // reference_match
	argv       []string           // command
	timeout    time.Duration      // command
	model      string             // llm_rubric: the grader's name; the rubric is text
}

// Name identifies the check in reasons and errors: "checks[2] regex" or
// "defaults[0] max_latency_ms".
func (c *Check) Name() string {
	r := ringside.CheckResult{Source: c.Source, Index: c.Index, Type: c.Type}
	return r.Name()
}

// Which of value, pattern and schema each type reads, and what kind of JSON
// value its value must be. Anything else given is a mistake worth reporting:
// a check with a stray field rarely does what its author meant.
const (
	useNone = iota
	useString
	useNumber
	usePattern
	useSchema
	useMode    // reference_match: optional "exact" or "normalized"
	useCommand // command: "command" (argv) and an optional "timeout"
	useRubric  // llm_rubric: the rubric in "value" and the grader in "model"
)

var checkUses = map[string]int{
	"contains": useString, "icontains": useString, "not_contains": useString,
	"equals": useString, "starts_with": useString,
	"regex":   usePattern,
	"is_json": useNone, "json_schema": useSchema,
	"min_chars": useNumber, "max_chars": useNumber, "max_words": useNumber,
	"reference_match": useMode,
	"max_latency_ms":  useNumber, "max_cost_usd": useNumber,
	"refusal": useNone, "no_refusal": useNone,
	"command": useCommand, "llm_rubric": useRubric,
}

// Compile checks one check and prepares it to run. Errors are EINVALID and
// name the field at fault ("pattern", "value", "schema", "type", "weight")
// relative to the check, so a caller can prefix where the check was written.
func Compile(c ringside.Check) (Check, error) {
	out := Check{Source: SourcePrompt, Type: ringside.NormalizeCheckType(c.Type), Weight: c.Weight,
		Dimension: strings.TrimSpace(c.Dimension)}
	use, ok := checkUses[out.Type]
	if !ok {
		return Check{}, ringside.FieldError("type", "%q is not a known check (%s)", c.Type, strings.Join(ringside.CheckTypes, ", "))
	}
	if c.Weight < 0 {
		return Check{}, ringside.FieldError("weight", "must not be negative")
	}
	if out.Weight == 0 {
		// The JSON field is optional; an unset weight is the default one.
		out.Weight = 1
	}
	value := bytes.TrimSpace(c.Value)
	if use != usePattern && c.Pattern != "" {
		return Check{}, ringside.FieldError("pattern", "%s does not use a pattern", out.Type)
	}
	if use != useSchema && len(bytes.TrimSpace(c.Schema)) > 0 {
		return Check{}, ringside.FieldError("schema", "%s does not use a schema", out.Type)
	}
	if err := out.compileExternal(use, c); err != nil {
		return Check{}, err
	}
	switch use {
	case useNone:
		if len(value) > 0 {
			return Check{}, ringside.FieldError("value", "%s takes no value", out.Type)
		}
	case useString, useRubric:
		s, err := stringValue(value)
		if err != nil {
			return Check{}, err
		}
		if s == "" {
			return Check{}, ringside.FieldError("value", "%s needs a non-empty string", out.Type)
		}
		out.text = s
	case useNumber:
		n, err := numberValue(value)
		if err != nil {
			return Check{}, err
		}
		out.number = n
	case usePattern:
		if err := out.compilePattern(c.Pattern, value); err != nil {
			return Check{}, err
		}
	case useSchema:
		if len(value) > 0 {
			return Check{}, ringside.FieldError("value", "json_schema takes its schema in \"schema\", not \"value\"")
		}
		sch, err := compileSchema(c.Schema)
		if err != nil {
			return Check{}, err
		}
		out.schema = sch
	case useMode:
		if len(value) > 0 {
			mode, err := stringValue(value)
			if err != nil {
				return Check{}, err
			}
			if mode != "exact" && mode != "normalized" {
				return Check{}, ringside.FieldError("value", "%q is not one of exact, normalized", mode)
			}
			out.normalized = mode == "normalized"
		}
	}
	return out, nil
}

// compilePattern reads a regex check's pattern. promptfoo writes it in
// "value"; ours in "pattern"; either is accepted, both is ambiguous.
func (c *Check) compilePattern(pattern string, value []byte) error {
	field := "pattern"
	if len(value) > 0 {
		if pattern != "" {
			return ringside.FieldError("value", "give the regular expression in pattern or value, not both")
		}
		s, err := stringValue(value)
		if err != nil {
			return err
		}
		pattern, field = s, "value"
	}
	if pattern == "" {
		return ringside.FieldError("pattern", "regex needs a pattern")
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return ringside.FieldError(field, "%v (Go RE2 syntax: no lookaround or backreferences)", err)
	}
	c.re = re
	return nil
}

func stringValue(raw []byte) (string, error) {
	if len(raw) == 0 {
		return "", ringside.FieldError("value", "required")
	}
	var s string
	if raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", ringside.FieldError("value", "want a string, got %s", jsonKind(raw))
	}
	return s, nil
}

func numberValue(raw []byte) (float64, error) {
	if len(raw) == 0 {
		return 0, ringside.FieldError("value", "required")
	}
	var n float64
	if (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) || json.Unmarshal(raw, &n) != nil {
		return 0, ringside.FieldError("value", "want a number, got %s", jsonKind(raw))
	}
	if n < 0 {
		return 0, ringside.FieldError("value", "must not be negative (is %g)", n)
	}
	return n, nil
}

// jsonKind names the kind of a JSON value for an error message.
func jsonKind(raw []byte) string {
	switch {
	case len(raw) == 0:
		return "nothing"
	case raw[0] == '"':
		return "a string"
	case raw[0] == '{':
		return "an object"
	case raw[0] == '[':
		return "an array"
	case raw[0] == 't' || raw[0] == 'f':
		return "a boolean"
	case raw[0] == 'n':
		return "null"
	}
	return "a number"
}

// schemaURL is the id every check's schema is compiled under. Each schema
// gets a compiler of its own, so the ids never clash.
const schemaURL = "mem:///check.json"

func compileSchema(raw json.RawMessage) (*jsonschema.Schema, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, ringside.FieldError("schema", "json_schema needs a schema")
	}
	if raw[0] != '{' && raw[0] != 't' && raw[0] != 'f' {
		return nil, ringside.FieldError("schema", "want a JSON Schema object, got %s", jsonKind(raw))
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, ringside.FieldError("schema", "not valid JSON: %v", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	// A prompt file must not make ringside read local files or the network
	// through "$ref"; the library's default loader reads files.
	c.UseLoader(noLoader{})
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, ringside.FieldError("schema", "%v", err)
	}
	sch, err := c.Compile(schemaURL)
	if err != nil {
		return nil, ringside.FieldError("schema", "invalid schema: %s", oneLine(err.Error()))
	}
	return sch, nil
}

type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external $ref %q is not loaded; inline the schema with $defs", url)
}

// DefaultCheck is a check the config applies to every prompt, or to the
// prompts of the listed kinds.
type DefaultCheck struct {
	ringside.Check
	Kinds []string
}

// CompileDefaults compiles a judge's default checks. Errors name the check
// as "checks[i].field".
func CompileDefaults(defaults []DefaultCheck) ([]Check, error) {
	out := make([]Check, 0, len(defaults))
	for i, d := range defaults {
		c, err := Compile(d.Check)
		if err != nil {
			return nil, prefixField(err, fmt.Sprintf("checks[%d]", i))
		}
		for _, k := range d.Kinds {
			if !slices.Contains(ringside.Kinds, k) {
				return nil, ringside.FieldError(fmt.Sprintf("checks[%d].kinds", i), "%q is not one of %s", k, strings.Join(ringside.Kinds, ", "))
			}
		}
		c.Source, c.Index, c.Kinds = SourceDefault, i, d.Kinds
		out = append(out, c)
	}
	return out, nil
}

// Set is every check that applies to one prompt, compiled, with what the
// checks need to know about the prompt.
type Set struct {
	PromptID  string
	Reference string
	Checks    []Check
	// Prompt is the whole prompt, which a command check is given.
	Prompt *ringside.Prompt

	// graders are the llm_rubric checks' models, by name (NewRulesWith).
	graders map[string]*Grader
}

// CompilePrompt compiles a prompt's own checks and adds the defaults that
// apply to it: those for its kind, and a default reference_match only when
// the prompt has a reference. A malformed check is an EINVALID error naming
// the prompt, the check's index and type, and the field.
func CompilePrompt(p *ringside.Prompt, defaults []Check) (*Set, error) {
	s := &Set{PromptID: p.ID, Reference: p.Reference, Prompt: p}
	for i, c := range p.Checks {
		cc, err := Compile(c)
		if err == nil && cc.Type == "reference_match" && strings.TrimSpace(p.Reference) == "" {
			err = ringside.FieldError("type", "reference_match needs the prompt's reference answer, and this prompt has none")
		}
		if err != nil {
			return nil, ringside.Errorf(ringside.EINVALID, "prompt %s: checks[%d] (%s): %s",
				p.ID, i, ringside.NormalizeCheckType(c.Type), ringside.ErrorMessage(err))
		}
		cc.Index = i
		s.Checks = append(s.Checks, cc)
	}
	for _, d := range defaults {
		if len(d.Kinds) > 0 && !slices.Contains(d.Kinds, p.Kind) {
			continue
		}
		if d.Type == "reference_match" && strings.TrimSpace(p.Reference) == "" {
			continue
		}
		s.Checks = append(s.Checks, d)
	}
	return s, nil
}

// ValidatePrompts compiles every prompt's own checks and returns the first
// malformed one as an error naming the prompt and the check. Prompt imports
// call it, so a bad rule is refused when the file is read.
func ValidatePrompts(prompts []ringside.Prompt) error {
	for i := range prompts {
		if _, err := CompilePrompt(&prompts[i], nil); err != nil {
			return err
		}
	}
	return nil
}

func prefixField(err error, prefix string) error {
	if e, ok := err.(*ringside.Error); ok && e.Field != "" {
		return &ringside.Error{Code: e.Code, Field: prefix + "." + e.Field, Message: e.Message}
	}
	return err
}

// oneLine folds a multi-line library message into one line for a terminal.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
