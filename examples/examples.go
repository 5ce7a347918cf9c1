// Package examples embeds the example prompt set, so the demo needs no files
// beside the binary.
package examples

import _ "embed"

// Prompts is examples/prompts.jsonl: prompts of the kind a business
// evaluates, spread over categories and the three kinds, many with checks.
//
//go:embed prompts.jsonl
var Prompts []byte

// PromptsFile is the name the embedded set is known by in messages.
const PromptsFile = "examples/prompts.jsonl"
