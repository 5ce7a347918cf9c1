package ringside

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// LineError is an error in one line of a JSONL file, naming the file, the
// line (from 1) and the field at fault.
type LineError struct {
	File  string
	Line  int
	Field string
	Err   error
}

func (e *LineError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File + ":")
	}
	fmt.Fprintf(&b, "%d: ", e.Line)
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *LineError) Unwrap() error { return e.Err }

// promptLine is a prompt as written in a file: `prompt` is shorthand for one
// user message.
type promptLine struct {
	Prompt
	Text *string `json:"prompt"`
}

// MaxPromptLine bounds one line of a prompt file; long-context prompts are
// large, but a runaway file should fail with a clear error, not eat memory.
const MaxPromptLine = 16 << 20

// ReadPrompts reads a prompt set in JSONL, validating every line. Blank
// lines are skipped, and so is a leading UTF-8 byte-order mark. Any bad line
// is an EINVALID error naming the file, the line and the field; duplicate
// ids within the file, invalid UTF-8 and lone UTF-16 surrogates are errors
// too.
func ReadPrompts(r io.Reader, file string) ([]Prompt, error) {
	return ReadPromptsChecked(r, file, nil)
}

// ReadPromptsChecked is ReadPrompts with a further check of every prompt
// (its checks' rules, say), whose error is reported with the prompt's line.
func ReadPromptsChecked(r io.Reader, file string, check func(*Prompt) error) ([]Prompt, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxPromptLine)
	var out []Prompt
	seen := map[string]int{}
	line := 0
	for sc.Scan() {
		line++
		text := sc.Bytes()
		if line == 1 {
			text = bytes.TrimPrefix(text, []byte("\ufeff"))
		}
		text = bytes.TrimSpace(text)
		if len(text) == 0 {
			continue
		}
		p, err := parsePromptLine(text)
		if err == nil && check != nil {
			err = check(&p)
		}
		if err != nil {
			var fe *Error
			le := &LineError{File: file, Line: line, Err: err}
			if errors.As(err, &fe) {
				le.Field, le.Err = fe.Field, errors.New(fe.Message)
			}
			return nil, &Error{Code: EINVALID, Message: le.Error()}
		}
		if first, dup := seen[p.ID]; dup {
			return nil, &Error{Code: EINVALID, Message: (&LineError{File: file, Line: line, Field: "id",
				Err: fmt.Errorf("%q is already used on line %d", p.ID, first)}).Error()}
		}
		seen[p.ID] = line
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &Error{Code: EINVALID, Message: (&LineError{File: file, Line: line + 1,
				Err: fmt.Errorf("line longer than %d bytes", MaxPromptLine)}).Error()}
		}
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(out) == 0 {
		return nil, &Error{Code: EINVALID, Message: file + ": no prompts"}
	}
	return out, nil
}

func parsePromptLine(text []byte) (Prompt, error) {
	if err := CheckJSONText(text); err != nil {
		return Prompt{}, err
	}
	var pl promptLine
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&pl); err != nil {
		return Prompt{}, jsonFieldError(err)
	}
	if dec.More() {
		return Prompt{}, errors.New("more than one JSON value on the line")
	}
	p := pl.Prompt
	if pl.Text != nil {
		if len(p.Messages) > 0 {
			return Prompt{}, FieldError("prompt", "give either prompt or messages, not both")
		}
		p.Messages = []Message{{Role: "user", Content: *pl.Text}}
	}
	if err := p.Validate(); err != nil {
		return Prompt{}, err
	}
	return p, nil
}
