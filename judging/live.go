package judging

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/arena"
	"github.com/ringside-eval/ringside/config"
)

// liveSource deals live battles: a prompt from the configured prompt sets
// and a pair of models drawn as a sampled run draws them (run.weights),
// both started at the same instant on identical input by arena.RunPair.
type liveSource struct {
	e         *Engine
	models    map[string]ringside.Model
	streamers map[string]ringside.Streamer
	names     []string
	weights   map[string]float64
	sets      []string
	rand      *lockedRand

	mu       sync.Mutex
	prompts  []ringside.Prompt
	loadedAt time.Time
	pairs    [][2]string // every pair of names, for adaptive pairing
}

// promptsMaxAge is how long the prompt list is cached: an import while the
// server runs is seen within it.
const promptsMaxAge = time.Minute

func newLiveSource(e *Engine, cfg *config.Config, streamers map[string]ringside.Streamer, r *lockedRand) *liveSource {
	l := &liveSource{e: e, models: map[string]ringside.Model{}, streamers: streamers,
		weights: cfg.JudgingWeights(), rand: r}
	// The candidate pool, not every configured model: a model configured
	// only for an LLM judge is no candidate (config.JudgingPool).
	for _, name := range cfg.JudgingPool() {
		if m, ok := cfg.Model(name); ok && streamers[name] != nil {
			l.models[name] = m
			l.names = append(l.names, name)
		}
	}
	slices.Sort(l.names)
	for _, ps := range cfg.PromptSets {
		l.sets = append(l.sets, ps.Name)
	}
	return l
}

func (l *liveSource) promptList(ctx context.Context) ([]ringside.Prompt, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.prompts != nil && l.e.now().Sub(l.loadedAt) < promptsMaxAge {
		return l.prompts, nil
	}
	ps, err := l.e.db.Prompts(ctx, l.sets...)
	if err != nil {
		return nil, err
	}
	l.prompts, l.loadedAt = ps, l.e.now()
	return ps, nil
}

// deal stores a new live battle dealt to the judge and starts its two
// sides. Nothing to battle with (fewer than two models, no prompts) is
// ENOTFOUND.
func (l *liveSource) deal(ctx context.Context, judgeID string) (*deal, error) {
	if len(l.names) < 2 {
		return nil, ringside.Errorf(ringside.ENOTFOUND, "live judging needs at least two configured models")
	}
	prompts, err := l.promptList(ctx)
	if err != nil {
		return nil, err
	}
	if len(prompts) == 0 {
		return nil, ringside.Errorf(ringside.ENOTFOUND, "no prompts to judge")
	}
	var p ringside.Prompt
	var pair arena.Pair
	var sample int
	l.rand.with(func(r *rand.Rand) {
		p = prompts[r.IntN(len(prompts))]
		pair = arena.SamplePairs(r, l.names, l.weights, 1)[0]
		// A fresh sample number, so deterministic models (sim, replay)
		// answer differently each time a prompt comes round.
		sample = r.IntN(1 << 30)
	})
	propensity, err := l.adaptivePair(ctx, &pair)
	if err != nil {
		return nil, err
	}
	b := &ringside.Battle{Source: ringside.SourceLive, PromptID: p.ID, PromptSet: p.Set, Sample: sample,
		ModelA: pair.A, ModelB: pair.B, Category: p.Category, Kind: p.Kind, Tags: p.Tags}
	if err := l.e.writes.DealBattleDrawn(ctx, b, true, judgeID, propensity); err != nil {
		return nil, err
	}
	f := newFeed(l.e.displayPace(), l.e.now())
	d := newDeal(b, p.Messages, f)
	if !l.e.background(func() { l.run(b, &p, f) }) {
		return nil, ringside.Errorf(ringside.EUNAUTHORIZED, "server shutting down")
	}
	return d, nil
}

// run streams both sides into f and stores the generations. It runs under
// the server's context, not the judge's: a judge who leaves does not cut
// the measurement short.
func (l *liveSource) run(b *ringside.Battle, p *ringside.Prompt, f *feed) {
	req := ringside.Request{PromptID: p.ID, Sample: b.Sample, Messages: p.Messages, Reference: p.Reference}
	ms := [2]ringside.Model{l.models[b.ModelA], l.models[b.ModelB]}
	entry := func(side int) arena.Entry {
		return arena.Entry{
			Streamer: l.streamers[ms[side].Name], Params: ms[side].Params,
			OnDelta: func(d ringside.Delta) { f.append(side, d.Text, l.e.now()) },
			OnDone:  func(o arena.Outcome) { f.finish(side, o.Err != nil, l.e.now()) },
		}
	}
	oa, ob := arena.RunPair(l.e.ctx, l.e.now, req, entry(0), entry(1))
	outcomes := [2]arena.Outcome{oa, ob}
	var gens [2]*ringside.Generation
	var texts []string
	for i, o := range outcomes {
		gens[i] = liveGeneration(b, ms[i], o)
		texts = append(texts, o.Result.Text)
	}
	leak := ringside.NamesAModel(p.Messages, texts, ms[:])
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := l.e.writes.FinishLiveBattle(ctx, b.ID, gens[0], gens[1], leak); err != nil {
		l.e.logger.Error("store live battle", "battle", b.ID, "err", err)
	}
}

// liveGeneration is the record of one side's outcome; nil for a side cut
// short by the server shutting down, which measured nothing.
func liveGeneration(b *ringside.Battle, m ringside.Model, o arena.Outcome) *ringside.Generation {
	kind := ringside.GenerationErrorKind(o.Err)
	if kind == ringside.ErrKindCancelled {
		return nil
	}
	g := arena.NewGeneration(m, "", b.PromptID, b.Sample, o)
	g.PromptSet = b.PromptSet
	return g
}
