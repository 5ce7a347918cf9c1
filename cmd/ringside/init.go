package main

import (
	"context"
	_ "embed" // the scaffold's files
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"

	"github.com/ringside-eval/ringside"
)

// The files `ringside init` writes. The config is the short form of
// config.example.toml (a test keeps every key of it there too); the prompts
// are one typical, one edge and one adversarial prompt with checks.
var (
	//go:embed scaffold/ringside.toml
	scaffoldConfig []byte
	//go:embed scaffold/prompts.jsonl
	scaffoldPrompts []byte
)

const initHelp = `
Writes a commented ringside.toml and a prompt set, prompts.jsonl (one
typical, one edge and one adversarial prompt, each with checks), into the
folder, ready to edit. The config names two simulated models, so the next
commands work at once with no keys; swap in your own models when you are
ready. It never overwrites a file: when either file exists, nothing is
written and the exit status is 2.`

// scaffoldFile is one file init writes.
type scaffoldFile struct {
	name string
	data []byte
}

func (m *Main) initCmd(ctx context.Context, args []string) error {
	fs := m.newFlagSet("init", "[--dir D]", initHelp)
	dir := fs.String("dir", ".", "the folder to write into")
	if err := m.parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return ringside.FieldError("args", "init takes no arguments (got %q); use --dir", fs.Arg(0))
	}
	files := []scaffoldFile{{"ringside.toml", scaffoldConfig}, {"prompts.jsonl", scaffoldPrompts}}
	// Every file is checked before any is written, so a refusal leaves the
	// folder as it was.
	for _, f := range files {
		path := filepath.Join(*dir, f.name)
		if _, err := os.Lstat(path); err == nil {
			return ringside.Errorf(ringside.EINVALID, "%s already exists; init never overwrites a file (move it away, or use --dir)", path)
		} else if !errors.Is(err, iofs.ErrNotExist) {
			return ringside.Errorf(ringside.EINVALID, "%s: %v", path, err)
		}
	}
	for i, f := range files {
		if err := writeNew(filepath.Join(*dir, f.name), f.data); err != nil {
			// Another process raced us: take back what this one wrote.
			for _, w := range files[:i] {
				os.Remove(filepath.Join(*dir, w.name))
			}
			return err
		}
	}
	cfg := filepath.Join(*dir, "ringside.toml")
	fmt.Fprintf(m.Stdout, "wrote %s and %s\n\nNext:\n", cfg, filepath.Join(*dir, "prompts.jsonl"))
	fmt.Fprintf(m.Stdout, "  ringside run --config %s     # the models answer every prompt, head-to-head\n", cfg)
	fmt.Fprintf(m.Stdout, "  ringside judge --config %s   # the rules judge runs the prompts' checks and votes\n", cfg)
	fmt.Fprintf(m.Stdout, "  ringside serve --config %s   # leaderboard, judge page, and outputs at /outputs\n", cfg)
	return nil
}

// writeNew creates path with data, failing if it exists: O_EXCL closes the
// gap between the check above and the write.
func writeNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return ringside.Errorf(ringside.EINVALID, "%s: %v", path, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return ringside.Errorf(ringside.EINTERNAL, "%s: %v", path, err)
	}
	if err := f.Close(); err != nil {
		return ringside.Errorf(ringside.EINTERNAL, "%s: %v", path, err)
	}
	return nil
}
