// Command ringside is a pairwise A/B arena for language models: it runs
// candidate models head-to-head on your prompts, lets judges vote blind, and
// ranks the models with Bradley-Terry beside latency and cost.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"github.com/ringside-eval/ringside"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	m := &Main{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
	os.Exit(m.Run(ctx, os.Args[1:]))
}

// Exit statuses, as the README promises: 1 is reserved for a failed check
// (compare), 2 for bad usage or input; 3 is any other failure.
const (
	exitOK       = 0
	exitCheck    = 1
	exitUsage    = 2
	exitInternal = 3
)

// Main is the program with its surroundings injected, so end-to-end tests
// can run any subcommand in-process.
type Main struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// Listening, when set, is told the address serve listens on (tests
	// start it on port 0).
	Listening func(addr string)
}

// command is one subcommand: its name, a one-line summary, and its body.
type command struct {
	summary string
	run     func(m *Main, ctx context.Context, args []string) error
}

func commands() map[string]command {
	return map[string]command{
		"serve":   {"start the web server (the demo when no config is given)", (*Main).serve},
		"init":    {"write a commented ringside.toml and a prompt set to start from", (*Main).initCmd},
		"import":  {"import a prompt set or battles from a JSONL file", (*Main).importCmd},
		"version": {"print the version", (*Main).version},
		"run":     {"generate battles headless for the configured models and prompts", (*Main).runCmd},
		"judge":   {"apply a rule or LLM judge to stored battles", (*Main).judgeCmd},
		"rank":    {"print the leaderboard", (*Main).rankCmd},
		"judges":  {"measure the judges: agreement, bias, speed, gold; flags and exclusions", (*Main).judgesCmd},
		"plan":    {"say how many more votes the decision needs", (*Main).planCmd},
		"invite":  {"create a judge and print their judge-page link", (*Main).inviteCmd},
		"export":  {"export battles, the leaderboard, generations or votes", (*Main).exportCmd},
		"compare": {"check a candidate model against a baseline (exit 1 when worse)", (*Main).compareCmd},
	}
}

// Run executes one command line and returns the exit status.
func (m *Main) Run(ctx context.Context, args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		m.usage(m.Stdout)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	if len(args) == 1 && (args[0] == "--version" || args[0] == "-version" || args[0] == "-v") {
		// What users type first, before they learn `ringside version`.
		args = []string{"version"}
	}
	cmd, ok := commands()[args[0]]
	if !ok {
		fmt.Fprintf(m.Stderr, "ringside: unknown command %q\n\n", args[0])
		m.usage(m.Stderr)
		return exitUsage
	}
	err := cmd.run(m, ctx, args[1:])
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.Is(err, errCheckFailed):
		return exitCheck
	case errors.Is(err, errUsage):
		return exitUsage
	}
	fmt.Fprintf(m.Stderr, "ringside %s: %s\n", args[0], ringside.ErrorMessage(err))
	if ringside.ErrorCode(err) == ringside.EINTERNAL {
		fmt.Fprintf(m.Stderr, "  (%v)\n", err)
		return exitInternal
	}
	return exitUsage
}

var (
	// errUsage is returned after the usage text has been printed.
	errUsage = errors.New("usage")
	// errCheckFailed is returned by compare when the candidate is worse.
	errCheckFailed = errors.New("check failed")
)

func (m *Main) usage(w io.Writer) {
	fmt.Fprint(w, `ringside: choose language models by how they behave on your own work.

Usage:
  ringside <command> [flags]

Commands:
`)
	cmds := commands()
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-9s %s\n", n, cmds[n].summary)
	}
	fmt.Fprint(w, `
Run "ringside <command> -h" for a command's flags.
Exit status: 0 success, 1 a check failed (compare), 2 bad usage or input, 3 any other failure.
`)
}

// newFlagSet returns a FlagSet whose usage text starts with the command's
// synopsis and whose errors are reported by Run, not by flag itself.
func (m *Main) newFlagSet(name, synopsis, about string) *flag.FlagSet {
	fs := flag.NewFlagSet("ringside "+name, flag.ContinueOnError)
	fs.SetOutput(m.Stderr)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "Usage: ringside %s %s\n\n%s\n", name, synopsis, strings.TrimSpace(about))
		var hasFlags bool
		fs.VisitAll(func(*flag.Flag) { hasFlags = true })
		if hasFlags {
			fmt.Fprint(w, "\nFlags:\n")
			fs.PrintDefaults()
		}
	}
	return fs
}

// parseFlags parses args; a bad flag prints usage and becomes errUsage, -h
// prints usage to stdout and becomes flag.ErrHelp.
func (m *Main) parseFlags(fs *flag.FlagSet, args []string) error {
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" {
			fs.SetOutput(m.Stdout)
			fs.Usage()
			return flag.ErrHelp
		}
	}
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	return nil
}

func (m *Main) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(m.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

func (m *Main) version(ctx context.Context, args []string) error {
	fs := m.newFlagSet("version", "", "Prints the ringside version.")
	if err := m.parseFlags(fs, args); err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "ringside %s\n", ringside.Version)
	return nil
}
