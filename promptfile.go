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
// lines are skipped. Any bad line is an EINVALID error naming the file, the
// line and the field; duplicate ids within the file are errors too.
func ReadPrompts(r io.Reader, file string) ([]Prompt, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxPromptLine)
	var out []Prompt
	seen := map[string]int{}
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		p, err := parsePromptLine(text)
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

// jsonFieldError turns encoding/json's errors into ones that name the field.
func jsonFieldError(err error) error {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		// Fields of the embedded Prompt are reported as "Prompt.tags".
		return FieldError(strings.TrimPrefix(te.Field, "Prompt."), "expected %s, got JSON %s", te.Type, te.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("invalid JSON: the line ends before the value does")
	case errors.As(err, &se):
		return fmt.Errorf("invalid JSON at byte %d: %v", se.Offset, err)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return FieldError(name, "unknown field")
	}
	return err
}
