package main

import (
	"context"
	"encoding/json"
	"flag"
	"io"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/store"
)

// promptExportFlags are export prompts' flags: which set, and the admin's
// filter of the harvest.
type promptExportFlags struct {
	set       *string
	minJudges *int
	picked    *bool
}

func addPromptExportFlags(fs *flag.FlagSet) *promptExportFlags {
	return &promptExportFlags{
		set:       fs.String("set", "", "prompts: the prompt set (default judging.chat_set, the judges' questions)"),
		minJudges: fs.Int("min-judges", 0, "prompts: keep prompts voted on by at least this many judges"),
		picked:    fs.Bool("picked", false, "prompts: keep prompts picked on the admin page"),
	}
}

// exportPrompts writes a prompt set as a prompt-set file (docs/formats.md):
// one prompt a line, the fields `ringside run` reads, without the set, so
// the file imports under any name.
func exportPrompts(ctx context.Context, db *store.DB, cfg *config.Config, f *promptExportFlags, w io.Writer, rows *int) error {
	set := *f.set
	if set == "" {
		set = cfg.Judging.ChatSet
	}
	if *f.minJudges < 0 {
		return ringside.FieldError("--min-judges", "must not be negative")
	}
	prompts, err := db.Harvest(ctx, set, store.HarvestFilter{MinJudges: *f.minJudges, PickedOnly: *f.picked})
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, h := range prompts {
		p := h.Prompt
		p.Set = ""
		if err := enc.Encode(&p); err != nil {
			return err
		}
		*rows++
	}
	return nil
}
