package judge

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/ringside-eval/ringside"
)

// A command check runs a team's own program on one answer, so checks can be
// written in any language:
//
//   - argv is the program and its arguments, run directly, never through a
//     shell (write ["sh", "-c", "..."] to have one);
//   - the answer is its standard input;
//   - file descriptor 3 carries the prompt and the generation as one JSON
//     object (CommandInput), and RINGSIDE_PROMPT_FD=3, RINGSIDE_PROMPT_ID,
//     RINGSIDE_MODEL and RINGSIDE_GENERATION_ID are set in its environment,
//     besides ringside's own;
//   - exit status 0 passes, any other fails; the first line of its output
//     (standard output, else standard error) is the reason;
//   - past its timeout the program (its whole process group, on Unix) is
//     killed and the check fails, "timed out after 10s".

// CommandInput is what a command check's program reads on descriptor 3.
type CommandInput struct {
	Prompt     *ringside.Prompt `json:"prompt"`
	Generation commandGen       `json:"generation"`
}

type commandGen struct {
	ID        string  `json:"id"`
	Model     string  `json:"model"`
	Sample    int     `json:"sample"`
	LatencyMs float64 `json:"latency_ms"`
	CostUSD   float64 `json:"cost_usd"`
	TokensIn  int     `json:"tokens_in"`
	TokensOut int     `json:"tokens_out"`
}

// maxCommandOutput bounds what is kept of a program's output: only its first
// line is used.
const maxCommandOutput = 64 << 10

// maxReason bounds the reason taken from a program's output.
const maxReason = 300

func (c *Check) runCommand(ctx context.Context, p *ringside.Prompt, g *ringside.Generation) (bool, string) {
	input, err := json.Marshal(CommandInput{Prompt: p, Generation: commandGen{ID: g.ID, Model: g.Model, Sample: g.Sample,
		LatencyMs: g.LatencyMs, CostUSD: g.CostUSD, TokensIn: g.TokensIn, TokensOut: g.TokensOut}})
	if err != nil {
		return false, "could not encode the prompt: " + err.Error()
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	r, w, err := os.Pipe()
	if err != nil {
		return false, "could not start " + c.argv[0] + ": " + err.Error()
	}
	cmd := exec.CommandContext(ctx, c.argv[0], c.argv[1:]...)
	cmd.Stdin = strings.NewReader(g.Output)
	var stdout, stderr capped
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.ExtraFiles = []*os.File{r}
	cmd.Env = append(os.Environ(), "RINGSIDE_PROMPT_FD=3", "RINGSIDE_PROMPT_ID="+p.ID,
		"RINGSIDE_MODEL="+g.Model, "RINGSIDE_GENERATION_ID="+g.ID)
	// A program's children may hold its output open after it is killed;
	// Wait gives up on them this long after.
	cmd.WaitDelay = time.Second
	killGroup(cmd)
	err = cmd.Start()
	r.Close()
	if err != nil {
		w.Close()
		return false, "could not start " + c.argv[0] + ": " + unwrapExec(err).Error()
	}
	// A program that never reads descriptor 3 gets EPIPE here when it
	// exits, not a stuck judge.
	go func() {
		w.Write(input)
		w.Close()
	}()
	err = cmd.Wait()
	if ctx.Err() != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return false, fmt.Sprintf("timed out after %s (killed)", c.timeout)
		}
		return false, "stopped: " + ctx.Err().Error()
	}
	reason := firstLine(stdout.Bytes())
	if reason == "" {
		reason = firstLine(stderr.Bytes())
	}
	var exit *exec.ExitError
	switch {
	case err == nil:
		if reason == "" {
			reason = "exit status 0"
		}
		return true, reason
	case errors.As(err, &exit):
		if reason == "" {
			reason = exit.Error() // "exit status 1", "signal: killed"
		}
		return false, reason
	}
	return false, c.argv[0] + ": " + err.Error()
}

// firstLine is the first non-empty line of out, clipped.
func firstLine(out []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 4096), maxCommandOutput)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			return clipN(line, maxReason)
		}
	}
	return ""
}

// capped keeps the first maxCommandOutput bytes written to it and drops the
// rest, so a chatty program cannot fill memory.
type capped struct{ bytes.Buffer }

func (c *capped) Write(p []byte) (int, error) {
	if room := maxCommandOutput - c.Len(); room > 0 {
		c.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
