package judge

import (
	"errors"
	"os/exec"
	"strings"
	"time"

	"github.com/ringside-eval/ringside"
)

// The checks that reach outside ringside: a team's own program (command)
// and a model grading against a rubric (llm_rubric).

// Command check limits. The default timeout is long enough for an
// interpreter to start and run a test, short enough that a program stuck
// on one answer does not stall a judge run for long.
const (
	DefaultCommandTimeout = 10 * time.Second
	maxCommandTimeout     = 10 * time.Minute
)

// compileExternal reads the fields only command and llm_rubric take, and
// refuses them on any other check.
func (c *Check) compileExternal(use int, in ringside.Check) error {
	if use != useCommand && len(in.Command) > 0 {
		return ringside.FieldError("command", "%s does not run a command", c.Type)
	}
	if use != useCommand && in.Timeout != "" {
		return ringside.FieldError("timeout", "only a command check takes a timeout")
	}
	if use != useRubric && in.Model != "" {
		return ringside.FieldError("model", "only an llm_rubric check asks a model")
	}
	switch use {
	case useCommand:
		if len(in.Value) > 0 {
			return ringside.FieldError("value", "command takes its program in \"command\" (a list: program, then arguments)")
		}
		if len(in.Command) == 0 || strings.TrimSpace(in.Command[0]) == "" {
			return ringside.FieldError("command", "command needs a program: [\"program\", \"arg\", ...]")
		}
		c.argv = in.Command
		c.timeout = DefaultCommandTimeout
		if in.Timeout != "" {
			d, err := time.ParseDuration(in.Timeout)
			if err != nil || d <= 0 || d > maxCommandTimeout {
				return ringside.FieldError("timeout", "%q is not a duration between 1ms and %s (like \"10s\")", in.Timeout, maxCommandTimeout)
			}
			c.timeout = d
		}
	case useRubric:
		if strings.TrimSpace(in.Model) == "" {
			return ringside.FieldError("model", "llm_rubric needs the name of a configured model to grade with")
		}
		c.model = strings.TrimSpace(in.Model)
	}
	return nil
}

// prepareExternal makes sure what a check reaches for is there: a command
// check's program on the PATH (or at its path), an llm_rubric check's model
// among graders. found caches graders by name.
func prepareExternal(c *Check, graders Graders, found map[string]*Grader) error {
	switch c.Type {
	case "command":
		if _, err := exec.LookPath(c.argv[0]); err != nil {
			return ringside.FieldError("command", "program %q not found: %v", c.argv[0], unwrapExec(err))
		}
	case "llm_rubric":
		if found[c.model] != nil {
			return nil
		}
		if graders == nil {
			return ringside.FieldError("model", "%q: no models are configured to grade with", c.model)
		}
		g, err := graders(c.model)
		if err != nil {
			return ringside.FieldError("model", "%s", ringside.ErrorMessage(err))
		}
		found[c.model] = g
	}
	return nil
}

// unwrapExec drops exec's repetition of the program name.
func unwrapExec(err error) error {
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err
	}
	return err
}
