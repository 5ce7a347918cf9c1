package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/arena"
	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/store"
)

// demoSimSpeed plays the built-in demo's simulated models this many times
// faster than their profiles, so a newcomer sees the whole run (244
// generations) in about ten seconds rather than a minute and a half.
// Recorded timings stay those of the profiles.
const demoSimSpeed = 10

func (m *Main) runCmd(ctx context.Context, args []string) error {
	fs := m.newFlagSet("run", "[--config F] [--run NAME] [--samples N] [--concurrency C] [--db F] [--sim-speed X] [--retry-errors]", `
Generates the battles of a run headless: every configured model (or the
run's models) answers every prompt of the configured prompt sets, N samples
each, and the pairs that meet on each prompt (all pairs, or a weighted
sample: run.pairs) become battles to judge later. Both sides of a battle
start at the same moment on the same input; each answer is generated once
and serves every battle that needs it.

Resumable: everything is stored as it completes, so a run stopped at any
point (Ctrl-C, a crash, kill -9) and started again does only what is
missing, and a complete run does nothing. One process at a time does a
run's work: a second ringside run of the same run says which process holds
it and exits (exit 2), and a run whose process died is taken over. Failed generations are results
(they count in a model's error rate) and are not retried unless you ask
with --retry-errors. A model that keeps failing is paused with growing
delays, and after 20 failures in a row left alone until the next run. A
model whose API key is rejected (401, 403) or whose server cannot be
reached is not called again: nothing is counted against it, the error
names the key variable and the endpoint, and the run exits 2.

With no config file it runs the built-in demo: four simulated models on
the bundled example prompts, needing no keys.`)
	cfgPath := fs.String("config", "", "config file (default: $RINGSIDE_CONFIG, else the built-in demo)")
	runName := fs.String("run", "", "run name (default: run.name, \"default\")")
	samples := fs.Int("samples", 0, "samples per prompt and model (default: run.samples, 1)")
	concurrency := fs.Int("concurrency", 0, "requests in flight across all models (default: run.concurrency, 8)")
	dbPath := fs.String("db", "", dbFlagHelp)
	simSpeed := fs.Float64("sim-speed", 0, fmt.Sprintf("play simulated models this many times faster (default: %d in the demo, else each model's own)", demoSimSpeed))
	retryErrors := fs.Bool("retry-errors", false, "delete the run's failed generations (and their battles) first, so they are tried again")
	if err := m.parseFlags(fs, args); err != nil {
		return err
	}
	cfg, err := m.loadConfig(*cfgPath)
	if err != nil {
		return err
	}
	if err := applyRunFlags(cfg, *runName, *samples, *concurrency, *simSpeed); err != nil {
		return err
	}
	db, err := openSyncedDB(ctx, cfg, *dbPath, m.Stdout)
	if err != nil {
		return err
	}
	defer db.Close()
	h, err := m.prepareRun(ctx, cfg, db)
	if err != nil {
		return err
	}
	defer h.lock.release()
	ctx = h.lock.ctx
	if *retryErrors {
		gens, battles, err := db.DeleteFailedRunGenerations(ctx, h.run.ID)
		if err != nil {
			return err
		}
		fmt.Fprintf(m.Stdout, "deleted %d failed generations and %d battles, to try them again\n", gens, battles)
	}
	if err := h.execute(ctx, m); err != nil {
		if cause := context.Cause(ctx); cause != nil && ringside.ErrorCode(cause) == ringside.ECONFLICT {
			return cause // the run was taken over: say so, not "interrupted"
		}
		return err
	}
	h.lock.release()
	return db.Close()
}

// applyRunFlags lays the command line over the config's run section.
func applyRunFlags(cfg *config.Config, name string, samples, concurrency int, simSpeed float64) error {
	if name != "" {
		cfg.Run.Name = name
	}
	if samples < 0 {
		return ringside.FieldError("--samples", "must be at least 1")
	} else if samples > 0 {
		cfg.Run.Samples = samples
	}
	if concurrency < 0 {
		return ringside.FieldError("--concurrency", "must be at least 1")
	} else if concurrency > 0 {
		cfg.Run.Concurrency = concurrency
	}
	if simSpeed < 0 {
		return ringside.FieldError("--sim-speed", "must be more than 0")
	}
	if simSpeed == 0 && cfg.Path == "" {
		simSpeed = demoSimSpeed
	}
	if simSpeed > 0 {
		for i := range cfg.Models {
			if cfg.Models[i].Provider == "sim" {
				// A copy: the config's own map may be shared.
				opts := maps.Clone(cfg.Models[i].Options)
				if opts == nil {
					opts = map[string]any{}
				}
				opts["speed"] = simSpeed
				cfg.Models[i].Options = opts
			}
		}
	}
	return nil
}

// runHandle is a run ready to execute: its record, its runner and its plan.
type runHandle struct {
	cfg     *config.Config
	db      *store.DB
	run     *ringside.Run
	runner  *arena.Runner
	prompts int
	// lock is this process's hold on the run, taken before anything of
	// the run is written.
	lock *runLock
}

// prepareRun builds the run's models and finds or creates its record.
func (m *Main) prepareRun(ctx context.Context, cfg *config.Config, db *store.DB) (*runHandle, error) {
	names := cfg.Run.Models
	if len(names) == 0 {
		for _, mod := range cfg.Models {
			names = append(names, mod.Name)
		}
	}
	var sets []string
	for _, ps := range cfg.PromptSets {
		sets = append(sets, ps.Name)
	}
	if len(sets) == 0 {
		return nil, ringside.FieldError("prompt_sets", "a run needs at least one prompt set")
	}
	run := &ringside.Run{Name: cfg.Run.Name, Models: names, PromptSets: sets, Samples: cfg.Run.Samples}
	if err := run.Validate(); err != nil {
		return nil, err
	}
	streamers, err := m.buildModels(cfg, names)
	if err != nil {
		return nil, err
	}
	var contestants []arena.Contestant
	for _, name := range names {
		mod, _ := cfg.Model(name) // config validation checked the names
		contestants = append(contestants, arena.Contestant{Model: mod, Streamer: streamers[name]})
	}
	prompts, err := db.Prompts(ctx, sets...)
	if err != nil {
		return nil, err
	}
	if len(prompts) == 0 {
		return nil, ringside.FieldError("prompt_sets", "the prompt sets %v hold no prompts", sets)
	}
	if err := db.CheckRunPrompts(ctx, run.Name, prompts); err != nil {
		return nil, err
	}
	lock, err := ensureRun(ctx, db, run)
	if err != nil {
		return nil, err
	}
	r, err := arena.New(arena.Config{
		RunID: run.ID, Contestants: contestants, Prompts: prompts, Samples: run.Samples,
		Pairing:     arena.Pairing{Mode: cfg.Run.Pairs, PerPrompt: cfg.Run.PairsPerPrompt, Weights: cfg.Run.Weights, Seed: cfg.Run.Seed},
		Concurrency: cfg.Run.Concurrency, Store: db,
	})
	if err != nil {
		lock.release()
		return nil, err
	}
	return &runHandle{cfg: cfg, db: db, run: run, runner: r, prompts: len(prompts), lock: lock}, nil
}

// ensureRun loads the run of that name, or creates it, and takes its lock.
// A run's record says what its latest invocation covered: changing the
// models or the samples and running again extends the run (what is stored
// stays stored).
func ensureRun(ctx context.Context, db *store.DB, run *ringside.Run) (*runLock, error) {
	old, err := db.RunByName(ctx, run.Name)
	if ringside.ErrorCode(err) == ringside.ENOTFOUND {
		err = db.CreateRun(ctx, run)
		if ringside.ErrorCode(err) == ringside.ECONFLICT {
			// Another process created it a moment ago: its lock decides.
			old, err = db.RunByName(ctx, run.Name)
		}
	}
	if err != nil {
		return nil, err
	}
	if old != nil {
		run.ID, run.CreatedAt = old.ID, old.CreatedAt
	}
	lock, err := lockRun(ctx, db, run.Name, run.ID)
	if err != nil {
		return nil, err
	}
	if old == nil || (slices.Equal(old.Models, run.Models) && slices.Equal(old.PromptSets, run.PromptSets) && old.Samples == run.Samples) {
		return lock, nil
	}
	if err := db.UpdateRun(ctx, run); err != nil {
		lock.release()
		return nil, err
	}
	return lock, nil
}

// execute plans the run, says what it will do, does it with a progress
// display, and ends with the per-model summary.
func (h *runHandle) execute(ctx context.Context, m *Main) error {
	plan, err := h.runner.Prepare(ctx)
	if err != nil {
		return err
	}
	h.header(m, plan)
	if plan.Empty() {
		fmt.Fprintf(m.Stdout, "run %q is complete: %d generations and %d battles stored; nothing new to do.\n",
			h.run.Name, plan.DoneGenerations, plan.DoneBattles)
		return h.summary(ctx, m, plan.TotalGenerations)
	}

	prog := newProgress(m.Stderr, isTerminal(m.Stderr), h.run.Name, plan)
	start := time.Now()
	rep, runErr := h.runner.Execute(ctx, plan, arena.Observer{Generation: prog.generation, Notice: prog.notice})
	prog.stop()
	elapsed := time.Since(start).Round(100 * time.Millisecond)

	fmt.Fprintf(m.Stdout, "stored %d generations (%d failed) and %d battles in %s\n", rep.Generations, rep.Failed, rep.Battles, elapsed)
	if runErr != nil {
		if errors.Is(runErr, context.Canceled) {
			return ringside.Errorf(ringside.EINTERNAL, "interrupted after storing %d of %d generations; run the same command again to resume",
				rep.Generations, plan.Generations)
		}
		return runErr
	}
	if err := h.summary(ctx, m, plan.TotalGenerations); err != nil {
		return err
	}
	if rep.Conflicts > 0 {
		fmt.Fprintf(m.Stdout, "%d generations were stored by another process running the same run; run again to store their battles\n", rep.Conflicts)
	}
	if len(rep.Unusable) > 0 {
		return unusableError(rep)
	}
	if len(rep.Benched) > 0 {
		return ringside.Errorf(ringside.EINTERNAL, "models %v kept failing and were benched: %d of their generations are left; fix them and run the same command again",
			rep.Benched, rep.Skipped)
	}
	return nil
}

func (h *runHandle) header(m *Main, plan *arena.Plan) {
	if h.cfg.Path == "" {
		fmt.Fprintf(m.Stdout, "ringside demo: %d simulated models on the example prompts, database %s\n", len(h.run.Models), h.db.Path)
	}
	pairs := "all pairs"
	if h.cfg.Run.Pairs == arena.PairsSampled {
		pairs = fmt.Sprintf("%d sampled pairs", h.cfg.Run.PairsPerPrompt)
	}
	fmt.Fprintf(m.Stdout, "run %q: %d models × %d prompts × %s, %s per prompt: %d generations, %d battles\n",
		h.run.Name, len(h.run.Models), h.prompts, plural(h.run.Samples, "sample"), pairs, plan.TotalGenerations, plan.TotalBattles)
	if plan.Empty() {
		return
	}
	if plan.DoneGenerations+plan.DoneBattles > 0 {
		fmt.Fprintf(m.Stdout, "already stored: %d generations, %d battles; resuming\n", plan.DoneGenerations, plan.DoneBattles)
	}
	fmt.Fprintf(m.Stdout, "to do: %d generations, %d battles, at most %d requests at once\n", plan.Generations, plan.Battles, plan.Concurrency)
	if plan.Concurrency > h.cfg.Run.Concurrency {
		fmt.Fprintf(m.Stdout, "  (concurrency raised from %d: a prompt's %d models start together)\n", h.cfg.Run.Concurrency, plan.Concurrency)
	}
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// unusableError says, model by model, why a model could not be called at
// all (its key was rejected, its server could not be reached): the
// operator's to fix, so the run fails with the configuration at fault
// named, and the generations left are done by the next run.
func unusableError(rep arena.Report) error {
	names := slices.Sorted(maps.Keys(rep.Unusable))
	var b strings.Builder
	for _, name := range names {
		err := rep.Unusable[name]
		what := "its server could not be reached"
		if ringside.GenerationErrorKind(err) == ringside.ErrKindAuth {
			what = "its API key was rejected"
		}
		fmt.Fprintf(&b, "\n  model %s: %s: %v", name, what, err)
	}
	return ringside.Errorf(ringside.EINVALID, "%d of the models could not be used and were not called again; "+
		"their failures are not counted against them and %d generations are left for the next run:%s",
		len(names), rep.Skipped, b.String())
}
