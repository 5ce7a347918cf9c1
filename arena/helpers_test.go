package arena_test

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/arena"
)

// memStore is an in-memory arena.Store with the same uniqueness rules as the
// SQLite store: one generation per (run, prompt, model, sample), one battle
// per (run, prompt, sample, unordered pair).
type memStore struct {
	mu      sync.Mutex
	gens    map[string]*ringside.Generation
	battles []*ringside.Battle
	nextID  int
	// failAfter, when positive, makes every save after that many
	// generations fail with failErr.
	failAfter int
	failErr   error
}

func newMemStore() *memStore { return &memStore{gens: map[string]*ringside.Generation{}} }

func (s *memStore) id() string { s.nextID++; return fmt.Sprintf("id-%04d", s.nextID) }

func (s *memStore) RunGenerationStats(ctx context.Context, runID string) ([]ringside.Generation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []ringside.Generation
	for _, g := range s.gens {
		if g.RunID == runID {
			c := *g
			c.Output = ""
			out = append(out, c)
		}
	}
	return out, nil
}

func (s *memStore) RunBattles(ctx context.Context, runID string) ([]ringside.Battle, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []ringside.Battle
	for _, b := range s.battles {
		if b.RunID == runID {
			out = append(out, *b)
		}
	}
	return out, nil
}

func (s *memStore) Generation(ctx context.Context, id string) (*ringside.Generation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if g := s.gens[id]; g != nil {
		c := *g
		return &c, nil
	}
	return nil, ringside.Errorf(ringside.ENOTFOUND, "generation %s not found", id)
}

func (s *memStore) SaveRunGeneration(ctx context.Context, g *ringside.Generation, battles []*ringside.Battle) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := g.Validate(); err != nil {
		return err
	}
	if s.failAfter > 0 && len(s.gens) >= s.failAfter {
		return s.failErr
	}
	for _, o := range s.gens {
		if o.RunID == g.RunID && o.PromptID == g.PromptID && o.Model == g.Model && o.Sample == g.Sample {
			return ringside.Errorf(ringside.ECONFLICT, "generation exists")
		}
	}
	g.ID = s.id()
	for _, b := range battles {
		if b.ModelA == g.Model && b.GenerationA == "" {
			b.GenerationA = g.ID
		}
		if b.ModelB == g.Model && b.GenerationB == "" {
			b.GenerationB = g.ID
		}
	}
	c := *g
	s.gens[g.ID] = &c
	for _, b := range battles {
		if err := s.addBattle(b); err != nil {
			delete(s.gens, g.ID)
			return err
		}
	}
	return nil
}

func (s *memStore) SaveRunBattles(ctx context.Context, battles []*ringside.Battle) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, b := range battles {
		before := len(s.battles)
		if err := s.addBattle(b); err != nil {
			return n, err
		}
		n += len(s.battles) - before
	}
	return n, nil
}

func (s *memStore) addBattle(b *ringside.Battle) error {
	if err := b.Validate(); err != nil {
		return err
	}
	if s.gens[b.GenerationA] == nil || s.gens[b.GenerationB] == nil {
		return ringside.Errorf(ringside.EINVALID, "battle %s/%s refers to a missing generation", b.ModelA, b.ModelB)
	}
	for _, o := range s.battles {
		if o.RunID == b.RunID && o.PromptID == b.PromptID && o.Sample == b.Sample &&
			min(o.ModelA, o.ModelB) == min(b.ModelA, b.ModelB) && max(o.ModelA, o.ModelB) == max(b.ModelA, b.ModelB) {
			return nil
		}
	}
	c := *b
	c.ID = s.id()
	s.battles = append(s.battles, &c)
	return nil
}

// counts returns the stored generations and battles.
func (s *memStore) counts() (gens, battles int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.gens), len(s.battles)
}

// fakeModel is a Streamer whose behaviour a test sets with fn, and which
// counts its calls and its requests in flight.
type fakeModel struct {
	name string
	fn   func(ctx context.Context, req ringside.Request) (ringside.Result, error)

	mu          sync.Mutex
	calls       map[string]int // "prompt/sample" → calls
	inFlight    int
	maxInFlight int
	// global, when set, is shared by several models to count the
	// requests in flight across them.
	global *inFlightCounter
}

type inFlightCounter struct {
	mu       sync.Mutex
	now, max int
}

func (c *inFlightCounter) add(d int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now += d
	c.max = max(c.max, c.now)
}

func (f *fakeModel) Stream(ctx context.Context, req ringside.Request, emit func(ringside.Delta)) (ringside.Result, error) {
	f.mu.Lock()
	if f.calls == nil {
		f.calls = map[string]int{}
	}
	f.calls[fmt.Sprintf("%s/%d", req.PromptID, req.Sample)]++
	f.inFlight++
	f.maxInFlight = max(f.maxInFlight, f.inFlight)
	f.mu.Unlock()
	if f.global != nil {
		f.global.add(1)
		defer f.global.add(-1)
	}
	defer func() {
		f.mu.Lock()
		f.inFlight--
		f.mu.Unlock()
	}()
	if f.fn != nil {
		return f.fn(ctx, req)
	}
	text := "answer of " + f.name + " to " + req.PromptID
	emit(ringside.Delta{Text: text, Elapsed: time.Millisecond})
	return ringside.Result{Text: text, TokensIn: 10, TokensOut: 5, TTFT: time.Millisecond, Total: 2 * time.Millisecond, FinishReason: "stop"}, nil
}

func (f *fakeModel) callCounts() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.calls)
}

func testPrompts(n int) []ringside.Prompt {
	var out []ringside.Prompt
	for i := range n {
		out = append(out, ringside.Prompt{
			ID: fmt.Sprintf("p%02d", i), Kind: ringside.KindTypical, Category: "cat",
			Messages: []ringside.Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: fmt.Sprintf("question %d", i)}},
		})
	}
	return out
}

// contestants returns fake models named m1..mn priced $1/$2 per M tokens.
func contestants(n int) ([]arena.Contestant, []*fakeModel) {
	var cs []arena.Contestant
	var fakes []*fakeModel
	for i := 1; i <= n; i++ {
		f := &fakeModel{name: fmt.Sprintf("m%d", i)}
		fakes = append(fakes, f)
		cs = append(cs, arena.Contestant{
			Model:    ringside.Model{Name: f.name, Provider: "sim", PriceInPerM: 1, PriceOutPerM: 2},
			Streamer: f,
		})
	}
	return cs, fakes
}

func mustRunner(tb testing.TB, cfg arena.Config) *arena.Runner {
	tb.Helper()
	r, err := arena.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// mustRun prepares and executes cfg's run to the end.
func mustRun(tb testing.TB, cfg arena.Config) (*arena.Plan, arena.Report) {
	tb.Helper()
	r := mustRunner(tb, cfg)
	plan, err := r.Prepare(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	rep, err := r.Execute(context.Background(), plan, arena.Observer{})
	if err != nil {
		tb.Fatal(err)
	}
	return plan, rep
}

// checkComplete asserts that the store holds exactly one generation per
// scheduled (prompt, model, sample) and one battle per scheduled pair, each
// battle pointing at its prompt's generations of its two models.
func checkComplete(t *testing.T, s *memStore, cfg arena.Config) {
	t.Helper()
	var names []string
	for _, c := range cfg.Contestants {
		names = append(names, c.Model.Name)
	}
	rounds := arena.Schedule(names, cfg.Prompts, cfg.Samples, cfg.Pairing)
	wantGens := map[string]bool{}
	wantBattles := 0
	for _, rd := range rounds {
		for _, m := range rd.Models() {
			wantGens[fmt.Sprintf("%s/%s/%d", rd.Prompt.ID, m, rd.Sample)] = true
		}
		wantBattles += len(rd.Pairs)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	got := map[string]bool{}
	for _, g := range s.gens {
		k := fmt.Sprintf("%s/%s/%d", g.PromptID, g.Model, g.Sample)
		if got[k] {
			t.Errorf("generation %s stored twice", k)
		}
		got[k] = true
	}
	for k := range wantGens {
		if !got[k] {
			t.Errorf("generation %s missing", k)
		}
	}
	if len(got) != len(wantGens) {
		t.Errorf("stored %d generations, want %d", len(got), len(wantGens))
	}
	if len(s.battles) != wantBattles {
		t.Errorf("stored %d battles, want %d", len(s.battles), wantBattles)
	}
	for _, b := range s.battles {
		ga, gb := s.gens[b.GenerationA], s.gens[b.GenerationB]
		if ga == nil || gb == nil || ga.Model != b.ModelA || gb.Model != b.ModelB ||
			ga.PromptID != b.PromptID || gb.PromptID != b.PromptID || ga.Sample != b.Sample || gb.Sample != b.Sample {
			t.Errorf("battle %+v does not point at its own generations", b)
		}
	}
}
