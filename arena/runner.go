package arena

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/ringside-eval/ringside"
)

// Store is what a Runner needs of the database. store.DB implements it.
type Store interface {
	// RunGenerationStats returns the run's stored generations; Output may
	// be left empty, since resuming needs only who was generated and how.
	RunGenerationStats(ctx context.Context, runID string) ([]ringside.Generation, error)
	// RunBattles returns the run's stored battles.
	RunBattles(ctx context.Context, runID string) ([]ringside.Battle, error)
	// Generation returns one generation with its output, or ENOTFOUND.
	Generation(ctx context.Context, id string) (*ringside.Generation, error)
	// SaveRunGeneration stores g and the battles it completes in one
	// transaction, setting g.ID and, in each battle, the empty generation
	// id of g's side. A battle already stored is skipped; a generation
	// already stored is ECONFLICT and nothing is written.
	SaveRunGeneration(ctx context.Context, g *ringside.Generation, battles []*ringside.Battle) error
	// SaveRunBattles stores battles whose generations are both stored,
	// skipping any already stored, and returns how many it added.
	SaveRunBattles(ctx context.Context, battles []*ringside.Battle) (int, error)
}

// Contestant is a model of a run with the Streamer that calls it.
type Contestant struct {
	Model    ringside.Model
	Streamer ringside.Streamer
}

// Config is what a Runner runs.
type Config struct {
	RunID       string
	Contestants []Contestant
	// Prompts in the order their rounds are dispatched.
	Prompts []ringside.Prompt
	Samples int
	Pairing Pairing
	// Concurrency is the global limit on requests in flight; each model's
	// own Model.Concurrency caps it further.
	Concurrency int
	Breaker     Breaker
	Store       Store
	// Now is the clock and After the timer (nil: time.Now, time.After).
	Now   func() time.Time
	After func(time.Duration) <-chan time.Time
}

// Runner produces the missing generations and battles of one run.
type Runner struct {
	cfg    Config
	byName map[string]*Contestant
	names  []string
}

// New checks cfg and returns its Runner. Errors: EINVALID.
func New(cfg Config) (*Runner, error) {
	switch {
	case cfg.RunID == "":
		return nil, ringside.FieldError("run", "no run id")
	case cfg.Store == nil:
		return nil, ringside.FieldError("store", "no store")
	case len(cfg.Contestants) < 2:
		return nil, ringside.FieldError("models", "a run needs at least two models (has %d)", len(cfg.Contestants))
	case cfg.Samples < 1:
		return nil, ringside.FieldError("samples", "must be at least 1 (is %d)", cfg.Samples)
	case cfg.Concurrency < 1:
		return nil, ringside.FieldError("concurrency", "must be at least 1 (is %d)", cfg.Concurrency)
	case cfg.Pairing.Mode != "" && cfg.Pairing.Mode != PairsAll && cfg.Pairing.Mode != PairsSampled:
		return nil, ringside.FieldError("pairs", "%q is not one of all, sampled", cfg.Pairing.Mode)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	r := &Runner{cfg: cfg, byName: map[string]*Contestant{}}
	for i := range cfg.Contestants {
		c := &cfg.Contestants[i]
		if c.Streamer == nil {
			return nil, ringside.FieldError("models", "model %q has no streamer", c.Model.Name)
		}
		if r.byName[c.Model.Name] != nil {
			return nil, ringside.FieldError("models", "%q is listed twice", c.Model.Name)
		}
		r.byName[c.Model.Name] = c
		r.names = append(r.names, c.Model.Name)
	}
	// What is stored of a run is keyed by prompt id (resuming, battles):
	// ids shared by two sets would take each other's outputs.
	sets := make(map[string]string, len(cfg.Prompts))
	for _, p := range cfg.Prompts {
		if set, ok := sets[p.ID]; ok {
			return nil, ringside.FieldError("prompt_sets", "prompt id %q is in set %q and in set %q; a run's prompt ids must be unique across its sets",
				p.ID, set, p.Set)
		}
		sets[p.ID] = p.Set
	}
	return r, nil
}

// Plan is the work one Execute does, as Prepare found it.
type Plan struct {
	// Scheduled counts of the whole run, done or not.
	TotalGenerations, TotalBattles int
	// Already stored.
	DoneGenerations, DoneBattles int
	// To do now: generations to produce and battles to store; Ready of
	// those battles need no generation (both sides are stored already).
	Generations, Battles, Ready int
	// PerModel is Generations by model.
	PerModel map[string]int
	// Rounds is how many prompt-and-sample rounds have generations to do.
	Rounds int
	// Concurrency is the global limit Execute uses: the configured one, or
	// the most models a round starts together when that is more.
	Concurrency int

	tasks []*task
	ready []*ringside.Battle
}

// Empty reports whether the run is complete: nothing to generate or store.
func (p *Plan) Empty() bool { return p.Generations == 0 && p.Battles == 0 }

type genKey struct {
	prompt, model string
	sample        int
}

type battleKey struct {
	prompt string
	sample int
	pair   Pair // unordered: key()
}

// task is a round's remaining work, shared by its sides' goroutines.
type task struct {
	round   *Round
	need    []string // models to generate, in round order
	pending []Pair   // battles still to store, sides as drawn
	// gens and outputs hold, per model of the round, its stored generation
	// id and its output, which the identity check of a battle reads while
	// the battle is still pending; guarded by mu, which is also held across
	// a save so two sides finishing together cannot both miss the battle
	// between them.
	mu      sync.Mutex
	gens    map[string]string
	outputs map[string]string
}

// Prepare reads what the run has stored and plans the rest. Errors: the
// store's.
func (r *Runner) Prepare(ctx context.Context) (*Plan, error) {
	stored, err := r.cfg.Store.RunGenerationStats(ctx, r.cfg.RunID)
	if err != nil {
		return nil, err
	}
	have := map[genKey]*ringside.Generation{}
	for i := range stored {
		g := &stored[i]
		have[genKey{g.PromptID, g.Model, g.Sample}] = g
	}
	battles, err := r.cfg.Store.RunBattles(ctx, r.cfg.RunID)
	if err != nil {
		return nil, err
	}
	done := map[battleKey]bool{}
	for _, b := range battles {
		done[battleKey{b.PromptID, b.Sample, Pair{b.ModelA, b.ModelB}.key()}] = true
	}

	plan := &Plan{Concurrency: r.cfg.Concurrency, PerModel: map[string]int{}}
	rounds := Schedule(r.names, r.cfg.Prompts, r.cfg.Samples, r.cfg.Pairing)
	for i := range rounds {
		rd := &rounds[i]
		t := &task{round: rd, gens: map[string]string{}, outputs: map[string]string{}}
		for _, m := range rd.Models() {
			plan.TotalGenerations++
			if g := have[genKey{rd.Prompt.ID, m, rd.Sample}]; g != nil {
				t.gens[m] = g.ID
				plan.DoneGenerations++
			}
		}
		var ready []Pair
		for _, p := range rd.Pairs {
			plan.TotalBattles++
			switch {
			case done[battleKey{rd.Prompt.ID, rd.Sample, p.key()}]:
				plan.DoneBattles++
			case t.gens[p.A] != "" && t.gens[p.B] != "":
				ready = append(ready, p)
			default:
				t.pending = append(t.pending, p)
			}
		}
		// Only a partly done round (after a kill, or a change of models or
		// seed) has stored generations that unstored battles will use;
		// their outputs are read for the identity check, the rest never.
		if err := r.loadOutputs(ctx, t, slices.Concat(ready, t.pending)); err != nil {
			return nil, err
		}
		for _, p := range ready {
			plan.ready = append(plan.ready, r.battle(t, p))
		}
		for _, m := range rd.Models() {
			if t.gens[m] == "" && involves(t.pending, m) {
				t.need = append(t.need, m)
				plan.PerModel[m]++
			}
		}
		if len(t.need) > 0 {
			plan.tasks = append(plan.tasks, t)
			plan.Concurrency = max(plan.Concurrency, len(t.need))
		}
		plan.Generations += len(t.need)
		plan.Battles += len(t.pending) + len(ready)
	}
	plan.Ready = len(plan.ready)
	plan.Rounds = len(plan.tasks)
	return plan, nil
}

// loadOutputs reads the outputs of the stored generations that the given
// battles will use.
func (r *Runner) loadOutputs(ctx context.Context, t *task, pairs []Pair) error {
	for _, p := range pairs {
		for _, m := range []string{p.A, p.B} {
			id := t.gens[m]
			if _, ok := t.outputs[m]; ok || id == "" {
				continue
			}
			g, err := r.cfg.Store.Generation(ctx, id)
			if err != nil {
				return fmt.Errorf("arena: generation %s: %w", id, err)
			}
			t.outputs[m] = g.Output
		}
	}
	return nil
}

func involves(pairs []Pair, model string) bool {
	for _, p := range pairs {
		if p.A == model || p.B == model {
			return true
		}
	}
	return false
}

// battle is the record of pair p in t's round, with the generation ids
// known so far. Both outputs must be in t.outputs: the battle is marked
// then, once, as ringside.NamesAModel finds.
func (r *Runner) battle(t *task, p Pair) *ringside.Battle {
	pr := t.round.Prompt
	leak := ringside.NamesAModel(pr.Messages, []string{t.outputs[p.A], t.outputs[p.B]},
		[]ringside.Model{r.byName[p.A].Model, r.byName[p.B].Model})
	return &ringside.Battle{
		RunID: r.cfg.RunID, Source: ringside.SourceRun,
		PromptID: pr.ID, PromptSet: pr.Set, Sample: t.round.Sample,
		ModelA: p.A, ModelB: p.B,
		GenerationA: t.gens[p.A], GenerationB: t.gens[p.B],
		Category: pr.Category, Kind: pr.Kind, Tags: pr.Tags,
		IdentityLeak: leak,
	}
}
