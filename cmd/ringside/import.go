package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ringside-eval/ringside"
)

func (m *Main) importCmd(ctx context.Context, args []string) error {
	fs := m.newFlagSet("import", "prompts|battles|gold FILE [--set NAME] [--config F] [--db F]", `
Imports a prompt set (JSONL, one prompt per line: "messages" or "prompt", "id",
"category", "kind", "tags", "reference", "checks") or battles in the battle
format. Every line is checked first: a file with any bad line imports nothing,
and the error names the line and the field. Re-importing a file is a no-op.`)
	cfgPath := fs.String("config", "", "config file (default: $RINGSIDE_CONFIG, else the built-in demo)")
	dbPath := fs.String("db", "", dbFlagHelp)
	set := fs.String("set", "", "prompt set name (default: the file name without extension)")
	if err := m.parseFlags(fs, args); err != nil {
		return err
	}
	// Flags may come after the positional arguments, as users type them.
	rest := fs.Args()
	if len(rest) >= 2 {
		if err := fs.Parse(rest[2:]); err != nil {
			return errUsage
		}
		rest = append(rest[:2:2], fs.Args()...)
	}
	if len(rest) != 2 {
		fs.Usage()
		return errUsage
	}
	what, file := rest[0], rest[1]
	switch what {
	case "prompts":
	case "battles":
		return m.importBattles(ctx, file, *cfgPath, *dbPath)
	case "gold":
		return m.importGold(ctx, file, *cfgPath, *dbPath)
	default:
		return ringside.Errorf(ringside.EINVALID, "cannot import %q: use prompts, battles or gold", what)
	}
	cfg, err := m.loadConfig(*cfgPath)
	if err != nil {
		return err
	}
	prompts, err := readPromptFile(file)
	if err != nil {
		return err
	}
	name := *set
	if name == "" {
		name = strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	}
	db, err := openDB(ctx, cfg, *dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	res, err := db.UpsertPrompts(ctx, name, prompts)
	if err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "prompt set %s: %d added, %d updated, %d unchanged\n", name, res.Added, res.Updated, res.Unchanged)
	return db.Close()
}
