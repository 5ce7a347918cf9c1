// Package judge turns outputs into verdicts without a person: the rule-based
// judge (a prompt's checks, plus defaults from the config), the LLM judge (a
// configured model comparing two outputs, in both orders), and the statistics
// that say how far to trust either: pass rates over repeated samples
// (pass^k, pass@k, spread) and agreement between judges (Cohen's kappa,
// order flips, preference for the longer answer).
//
// It imports the domain and a JSON Schema validator; a judge model is reached
// only through ringside.Streamer, and storage is the caller's.
//
// # Checks
//
// Every check has a type, an optional weight (default 1) and an optional
// dimension. Compile turns a ringside.Check into a runnable Check and rejects
// a malformed one (an unknown type, a value of the wrong JSON type, a bad
// regular expression, an invalid schema, a field the type does not use), so
// that a broken rule fails at load time instead of passing or failing
// silently when judged. The types, with the fields they use:
//
//	contains, icontains,     value: string   the output contains value (icontains
//	not_contains                             ignores case); not_contains is the negation
//	equals                   value: string   the output, without surrounding white space, is value
//	starts_with              value: string   the output, without leading white space, starts with value
//	regex                    pattern: string Go (RE2) syntax; matches anywhere unless anchored
//	is_json                  —               the whole output, trimmed, is one JSON value
//	                                         (a fenced ```json block is not: format discipline
//	                                         is what the check measures)
//	json_schema              schema: object  the output is JSON valid under the schema
//	                                         (draft 2020-12 unless it names another
//	                                         "$schema"; no external $ref is loaded)
//	min_chars, max_chars     value: number   characters (Unicode code points) of the trimmed output
//	max_words                value: number   white-space separated words
//	reference_match          value: "exact" (default) or "normalized": the trimmed output
//	                                         equals the prompt's reference answer; normalized
//	                                         compares case-folded words, ignoring punctuation
//	max_latency_ms           value: number   total generation latency
//	max_cost_usd             value: number   generation cost
//	refusal, no_refusal      —               the output is (is not) a refusal; see IsRefusal
//
// A failed generation (timeout, server error...) fails every check.
package judge
