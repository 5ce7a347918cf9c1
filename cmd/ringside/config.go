package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/examples"
	"github.com/ringside-eval/ringside/judge"
	"github.com/ringside-eval/ringside/provider/sim"
	"github.com/ringside-eval/ringside/store"
)

// builtinExamples is the file name that stands for the embedded example set.
const builtinExamples = "builtin:" + examples.PromptsFile

// loadConfig reads the config file at path; with no path (and no
// RINGSIDE_CONFIG) it returns the built-in demo: simulated models and the
// example prompt set, needing no keys and no files.
func (m *Main) loadConfig(path string) (*config.Config, error) {
	if path == "" {
		path = m.Getenv("RINGSIDE_CONFIG")
	}
	if path != "" {
		return config.Load(path)
	}
	cfg := config.Defaults()
	cfg.Models = sim.DemoModels()
	cfg.PromptSets = []config.PromptSet{{Name: "examples", File: builtinExamples}}
	return cfg, nil
}

// openPromptSet opens a prompt set's file, or the embedded example set.
func openPromptSet(file string) (io.ReadCloser, error) {
	if file == builtinExamples {
		return io.NopCloser(bytes.NewReader(examples.Prompts)), nil
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, ringside.Errorf(ringside.EINVALID, "prompt set: %v", err)
	}
	return f, nil
}

// readPromptFile reads and validates a whole prompt file, checks included:
// a bad regex or schema refuses the file now rather than failing silently
// when judged.
func readPromptFile(file string) ([]ringside.Prompt, error) {
	r, err := openPromptSet(file)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	prompts, err := ringside.ReadPrompts(r, file)
	if err != nil {
		return nil, err
	}
	if err := judge.ValidatePrompts(prompts); err != nil {
		return nil, ringside.Errorf(ringside.EINVALID, "%s: %s", file, ringside.ErrorMessage(err))
	}
	return prompts, nil
}

// syncPromptSets imports every configured prompt set; unchanged prompts are
// left alone, so this is cheap on every start.
func syncPromptSets(ctx context.Context, db *store.DB, cfg *config.Config, w io.Writer) error {
	for _, ps := range cfg.PromptSets {
		prompts, err := readPromptFile(ps.File)
		if err != nil {
			return err
		}
		res, err := db.UpsertPrompts(ctx, ps.Name, prompts)
		if err != nil {
			return err
		}
		if res.Added+res.Updated > 0 {
			fmt.Fprintf(w, "prompt set %s: %d added, %d updated, %d unchanged\n", ps.Name, res.Added, res.Updated, res.Unchanged)
		}
	}
	return nil
}

// openSyncedDB opens the database (openDB) with the configured prompt sets
// imported into it (syncPromptSets), as run, judge and serve need it: they
// work on the prompt files' current prompts and checks.
func openSyncedDB(ctx context.Context, cfg *config.Config, flagPath string, w io.Writer) (*store.DB, error) {
	db, err := openDB(ctx, cfg, flagPath)
	if err != nil {
		return nil, err
	}
	if err := syncPromptSets(ctx, db, cfg, w); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// openDB opens the database named by the flag, or by the config.
func openDB(ctx context.Context, cfg *config.Config, flagPath string) (*store.DB, error) {
	path := cfg.Database.Path
	if flagPath != "" {
		path = flagPath
	}
	return store.Open(ctx, path)
}
