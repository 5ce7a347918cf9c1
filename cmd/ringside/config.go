package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/examples"
	"github.com/ringside-eval/ringside/judge"
	"github.com/ringside-eval/ringside/provider"
	"github.com/ringside-eval/ringside/provider/sim"
	"github.com/ringside-eval/ringside/store"
)

// builtinExamples is the file name that stands for the embedded example set.
const builtinExamples = "builtin:" + examples.PromptsFile

// demoDBPath is the demo's database. It is not the config's default
// (database.path, ringside.db), so that a config of one's own never shows
// the demo's simulated models.
const demoDBPath = "demo.db"

// dbFlagHelp is every command's help for --db.
const dbFlagHelp = "SQLite database file (default: database.path, ringside.db; the demo: demo.db)"

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
	cfg.Database.Path = demoDBPath
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
	return ringside.ReadPromptsChecked(r, file, func(p *ringside.Prompt) error {
		_, err := judge.CompilePrompt(p, nil)
		return err
	})
}

// checkFiles reads and validates what the config names beyond its own
// text: every prompt set (returned in the config's order), every LLM
// judge's prompt file, and every model's provider options, by building its
// client. It runs before the database is opened, so that a bad config
// writes nothing and creates no database file; errors name the config's
// file, line and key (a prompt file's own errors, its file and line).
func checkFiles(cfg *config.Config) ([][]ringside.Prompt, error) {
	sets := make([][]ringside.Prompt, len(cfg.PromptSets))
	for i, ps := range cfg.PromptSets {
		if err := checkReadable(cfg, ps.File, fmt.Sprintf("prompt_sets[%d].file", i)); err != nil {
			return nil, err
		}
		prompts, err := readPromptFile(ps.File)
		if err != nil {
			return nil, err
		}
		sets[i] = prompts
	}
	for i, j := range cfg.Judges {
		if j.PromptFile != "" && j.Kind == ringside.JudgeLLM {
			if err := checkReadable(cfg, j.PromptFile, fmt.Sprintf("judges[%d].prompt_file", i)); err != nil {
				return nil, err
			}
		}
	}
	// The environment is left out: a key that is not set is for the
	// command that calls the model to report (a run of other models needs
	// none), and an empty environment makes the check depend only on the
	// file. Building a client sends nothing.
	noEnv := provider.Options{Getenv: func(string) string { return "" }}
	for i, mod := range cfg.Models {
		var fe *ringside.Error
		if _, err := provider.New(mod, noEnv); err != nil && !(errors.As(err, &fe) && fe.Field == "api_key_env") {
			return nil, cfg.Locate(err, fmt.Sprintf("models[%d]", i))
		}
	}
	return sets, nil
}

// checkReadable places a file the config names that cannot be opened on
// the config line that names it.
func checkReadable(cfg *config.Config, file, field string) error {
	if file == builtinExamples {
		return nil
	}
	f, err := os.Open(file)
	if err != nil {
		return cfg.Locate(ringside.Errorf(ringside.EINVALID, "%v", err), field)
	}
	return f.Close()
}

// syncPromptSets imports the configured prompt sets, read by checkFiles;
// unchanged prompts are left alone, so this is cheap on every start.
func syncPromptSets(ctx context.Context, db *store.DB, cfg *config.Config, sets [][]ringside.Prompt, w io.Writer) error {
	for i, ps := range cfg.PromptSets {
		res, err := db.UpsertPrompts(ctx, ps.Name, sets[i])
		if err != nil {
			return err
		}
		if res.Added+res.Updated > 0 {
			fmt.Fprintf(w, "prompt set %s: %d added, %d updated, %d unchanged\n", ps.Name, res.Added, res.Updated, res.Unchanged)
		}
	}
	return nil
}

// openSyncedDB checks the config's files (checkFiles), then opens the
// database (openDB) with the configured prompt sets imported into it
// (syncPromptSets), as run, judge and serve need it: they work on the
// prompt files' current prompts and checks.
func openSyncedDB(ctx context.Context, cfg *config.Config, flagPath string, w io.Writer) (*store.DB, error) {
	sets, err := checkFiles(cfg)
	if err != nil {
		return nil, err
	}
	db, err := openDB(ctx, cfg, flagPath)
	if err != nil {
		return nil, err
	}
	if err := syncPromptSets(ctx, db, cfg, sets, w); err != nil {
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
