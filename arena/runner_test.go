package arena_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/arena"
)

func TestRunnerProducesEveryBattleOnceAndReusesGenerations(t *testing.T) {
	s := newMemStore()
	cs, fakes := contestants(4)
	cfg := arena.Config{RunID: "run1", Contestants: cs, Prompts: testPrompts(5), Samples: 2,
		Pairing: arena.Pairing{Seed: 3}, Concurrency: 8, Store: s}
	plan, rep := mustRun(t, cfg)
	if plan.Generations != 40 || plan.Battles != 60 || plan.TotalGenerations != 40 || plan.DoneGenerations != 0 {
		t.Fatalf("plan %+v, want 40 generations and 60 battles to do", plan)
	}
	if rep.Generations != 40 || rep.Battles != 60 || rep.Failed != 0 {
		t.Fatalf("report %+v", rep)
	}
	checkComplete(t, s, cfg)
	// Each generation was asked for once and served all three of its battles.
	for _, f := range fakes {
		for k, n := range f.callCounts() {
			if n != 1 {
				t.Errorf("%s was asked for %s %d times", f.name, k, n)
			}
		}
		if n := len(f.callCounts()); n != 10 {
			t.Errorf("%s answered %d prompt-samples, want 10", f.name, n)
		}
	}
	// What a generation records.
	for _, g := range s.gens {
		if g.Output != "answer of "+g.Model+" to "+g.PromptID || g.TTFTMs != 1 || g.LatencyMs != 2 ||
			g.TokensIn != 10 || g.TokensOut != 5 || g.CostUSD != (10*1+5*2)/1e6 || g.FinishReason != "stop" || g.RunID != "run1" {
			t.Fatalf("generation %+v", g)
		}
	}
	for _, b := range s.battles {
		if b.Source != ringside.SourceRun || b.Category != "cat" || b.Kind != ringside.KindTypical || b.IdentityLeak {
			t.Fatalf("battle %+v", b)
		}
	}

	// A second run finds nothing to do.
	again, err := mustRunner(t, cfg).Prepare(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !again.Empty() || again.DoneGenerations != 40 || again.DoneBattles != 60 {
		t.Fatalf("second plan %+v, want empty with everything done", again)
	}
}

func TestRunnerSampledPairs(t *testing.T) {
	s := newMemStore()
	cs, _ := contestants(5)
	cfg := arena.Config{RunID: "run1", Contestants: cs, Prompts: testPrompts(12), Samples: 1,
		Pairing: arena.Pairing{Mode: arena.PairsSampled, PerPrompt: 2, Seed: 9}, Concurrency: 4, Store: s}
	plan, _ := mustRun(t, cfg)
	if plan.Battles != 24 {
		t.Fatalf("plan %+v, want 2 battles for each of 12 prompts", plan)
	}
	checkComplete(t, s, cfg)
}

// slowModel makes every fake wait d (or until cancelled) before answering.
func slowModel(f *fakeModel, d time.Duration) {
	f.fn = func(ctx context.Context, req ringside.Request) (ringside.Result, error) {
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return ringside.Result{}, &ringside.GenerationError{Kind: ringside.ErrKindCancelled, Err: ctx.Err()}
		}
		return ringside.Result{Text: f.name + " on " + req.PromptID, TTFT: d / 2, Total: d}, nil
	}
}

func TestRunnerResumesAfterCancellation(t *testing.T) {
	s := newMemStore()
	cs, fakes := contestants(3)
	for _, f := range fakes {
		slowModel(f, 2*time.Millisecond)
	}
	cfg := arena.Config{RunID: "run1", Contestants: cs, Prompts: testPrompts(10), Samples: 2, Concurrency: 6, Store: s}
	r := mustRunner(t, cfg)
	plan, err := r.Prepare(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stored := 0
	rep, err := r.Execute(ctx, plan, arena.Observer{Generation: func(*ringside.Generation) {
		if stored++; stored == 17 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Execute after cancel: err = %v", err)
	}
	gens, battles := s.counts()
	if gens != rep.Generations || gens < 17 || gens >= 60 {
		t.Fatalf("stored %d generations (report %+v), want the 17+ finished before the cancel", gens, rep)
	}
	// Every stored battle is whole; nothing half-done was written.
	for _, b := range s.battles {
		if s.gens[b.GenerationA] == nil || s.gens[b.GenerationB] == nil {
			t.Fatalf("battle %+v points at a generation that is not stored", b)
		}
	}
	doneKeys := map[string]bool{}
	for _, g := range s.gens {
		doneKeys[fmt.Sprintf("%s/%s/%d", g.Model, g.PromptID, g.Sample)] = true
	}
	for _, f := range fakes {
		f.calls = nil
	}

	plan2, rep2 := mustRun(t, cfg)
	if plan2.DoneGenerations != gens || plan2.DoneBattles != battles || plan2.Generations != 60-gens {
		t.Fatalf("resumed plan %+v after %d generations and %d battles", plan2, gens, battles)
	}
	if rep2.Generations != 60-gens || rep.Battles+rep2.Battles != 60 {
		t.Fatalf("reports %+v then %+v, want 60 generations and battles in all", rep, rep2)
	}
	checkComplete(t, s, cfg)
	for _, f := range fakes {
		for k := range f.callCounts() {
			if doneKeys[f.name+"/"+k] {
				t.Errorf("the resumed run asked %s again for %s, which was stored", f.name, k)
			}
		}
	}
}

func TestRunnerHonoursConcurrencyLimits(t *testing.T) {
	s := newMemStore()
	cs, fakes := contestants(4)
	global := &inFlightCounter{}
	for _, f := range fakes {
		slowModel(f, 3*time.Millisecond)
		f.global = global
	}
	cs[0].Model.Concurrency = 1
	cs[1].Model.Concurrency = 2
	cfg := arena.Config{RunID: "run1", Contestants: cs, Prompts: testPrompts(30), Samples: 1,
		Pairing: arena.Pairing{Mode: arena.PairsSampled, PerPrompt: 1}, Concurrency: 4, Store: s}
	plan, _ := mustRun(t, cfg)
	if plan.Concurrency != 4 {
		t.Fatalf("plan concurrency %d, want 4", plan.Concurrency)
	}
	checkComplete(t, s, cfg)
	if fakes[0].maxInFlight > 1 || fakes[1].maxInFlight > 2 || global.max > 4 {
		t.Fatalf("max in flight: m1 %d (limit 1), m2 %d (limit 2), all %d (limit 4)",
			fakes[0].maxInFlight, fakes[1].maxInFlight, global.max)
	}
	t.Logf("max in flight: m1 %d, m2 %d, m3 %d, m4 %d, all %d", fakes[0].maxInFlight, fakes[1].maxInFlight,
		fakes[2].maxInFlight, fakes[3].maxInFlight, global.max)

	// A round of four models cannot start under a limit of two: the limit
	// is raised to the round's size, and the plan says so.
	cs4, _ := contestants(4)
	r := mustRunner(t, arena.Config{RunID: "run2", Contestants: cs4, Prompts: testPrompts(1), Samples: 1, Concurrency: 2, Store: newMemStore()})
	plan4, err := r.Prepare(context.Background())
	if err != nil || plan4.Concurrency != 4 {
		t.Fatalf("plan concurrency %d (%v), want 4", plan4.Concurrency, err)
	}
}

func TestRunnerRecordsFailuresWithKinds(t *testing.T) {
	s := newMemStore()
	cs, fakes := contestants(2)
	failures := []error{
		&ringside.GenerationError{Kind: ringside.ErrKindTimeout, Err: errors.New("stalled")},
		&ringside.GenerationError{Kind: ringside.ErrKindRateLimit, Err: errors.New("429")},
		&ringside.GenerationError{Kind: ringside.ErrKindServer, Err: errors.New("503")},
		&ringside.GenerationError{Kind: ringside.ErrKindBadResponse, Err: errors.New("bad json")},
		errors.New("something unclassified"),
		fmt.Errorf("wrapped: %w", context.DeadlineExceeded),
		&ringside.GenerationError{Kind: "weird", Err: errors.New("unknown kind")},
	}
	wantKinds := []string{"timeout", "rate_limit", "server_error", "bad_response", "bad_response", "timeout", "bad_response"}
	fakes[1].fn = func(ctx context.Context, req ringside.Request) (ringside.Result, error) {
		var i int
		fmt.Sscanf(req.PromptID, "p%d", &i)
		if i < len(failures) {
			return ringside.Result{Text: "partial", TokensIn: 7, TokensOut: 1, TTFT: time.Millisecond, Total: 5 * time.Millisecond}, failures[i]
		}
		return ringside.Result{Text: "fine", TokensIn: 7, TokensOut: 3}, nil
	}
	cfg := arena.Config{RunID: "run1", Contestants: cs, Prompts: testPrompts(9), Samples: 1, Concurrency: 2, Store: s,
		Breaker: arena.Breaker{Threshold: 100, GiveUpAfter: -1}}
	_, rep := mustRun(t, cfg)
	if rep.Failed != len(failures) || rep.Generations != 18 || rep.Battles != 9 {
		t.Fatalf("report %+v", rep)
	}
	checkComplete(t, s, cfg) // failed sides' battles are stored too
	for _, g := range s.gens {
		if g.Model != "m2" {
			continue
		}
		var i int
		fmt.Sscanf(g.PromptID, "p%d", &i)
		if i >= len(failures) {
			if g.Failed() {
				t.Errorf("%s: %+v", g.PromptID, g)
			}
			continue
		}
		if g.ErrorKind != wantKinds[i] || g.Error != failures[i].Error() || g.Output != "partial" ||
			g.LatencyMs != 5 || g.CostUSD != (7*1+1*2)/1e6 {
			t.Errorf("%s: generation %+v, want kind %s with its partial output, timing and cost", g.PromptID, g, wantKinds[i])
		}
	}
}

func TestRunnerBenchesAModelThatKeepsFailing(t *testing.T) {
	s := newMemStore()
	clock := newFakeClock()
	cs, fakes := contestants(3)
	fakes[2].fn = func(ctx context.Context, req ringside.Request) (ringside.Result, error) {
		return ringside.Result{}, &ringside.GenerationError{Kind: ringside.ErrKindServer, Err: errors.New("down")}
	}
	cfg := arena.Config{RunID: "run1", Contestants: cs, Prompts: testPrompts(20), Samples: 1, Concurrency: 3, Store: s,
		Breaker: arena.Breaker{Threshold: 2, BaseDelay: time.Second, GiveUpAfter: 5}, Now: clock.Now, After: clock.After}
	r := mustRunner(t, cfg)
	plan, err := r.Prepare(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var notices []arena.Notice
	rep, err := r.Execute(context.Background(), plan, arena.Observer{Notice: func(n arena.Notice) { notices = append(notices, n) }})
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, n := range fakes[2].callCounts() {
		calls += n
	}
	if calls != 5 {
		t.Fatalf("the failing model was called %d times, want 5 (then benched)", calls)
	}
	if !reflect.DeepEqual(rep.Benched, []string{"m3"}) || rep.Skipped != 15 || rep.Failed != 5 {
		t.Fatalf("report %+v, want m3 benched with 15 generations skipped", rep)
	}
	var pauses []time.Duration
	for _, n := range notices {
		pauses = append(pauses, n.Pause)
	}
	if want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 0}; !reflect.DeepEqual(pauses, want) {
		t.Fatalf("pauses %v, want %v (the last notice is the bench)", pauses, want)
	}
	// m1 and m2 met on every prompt regardless.
	m12 := 0
	for _, b := range s.battles {
		if b.ModelA != "m3" && b.ModelB != "m3" {
			m12++
		}
	}
	if m12 != 20 {
		t.Fatalf("%d m1-m2 battles, want 20", m12)
	}
	// The benched model's work is left for the next run, not recorded.
	next, err := mustRunner(t, cfg).Prepare(context.Background())
	if err != nil || next.Generations != 15 {
		t.Fatalf("next plan %+v (%v), want m3's 15 generations", next, err)
	}
}

func TestRunnerMarksIdentityLeaks(t *testing.T) {
	s := newMemStore()
	alpha := &fakeModel{name: "alpha"}
	alpha.fn = func(ctx context.Context, req ringside.Request) (ringside.Result, error) {
		return ringside.Result{Text: "Alpha here: the alphabet has 26 letters."}, nil
	}
	beta := &fakeModel{name: "beta"}
	beta.fn = func(ctx context.Context, req ringside.Request) (ringside.Result, error) {
		if req.PromptID == "p01" {
			return ringside.Result{Text: "I'm Beta, happy to help."}, nil
		}
		return ringside.Result{Text: "happy to help."}, nil
	}
	cfg := arena.Config{RunID: "run1", Prompts: testPrompts(3), Samples: 1, Concurrency: 2, Store: s,
		Contestants: []arena.Contestant{
			{Model: ringside.Model{Name: "alpha", Provider: "sim"}, Streamer: alpha},
			{Model: ringside.Model{Name: "beta", Provider: "sim"}, Streamer: beta},
		}}
	mustRun(t, cfg)
	for _, b := range s.battles {
		if !b.IdentityLeak {
			t.Errorf("battle on %s: no identity leak, though alpha's answer contains its name", b.PromptID)
		}
	}
	alpha.fn = func(ctx context.Context, req ringside.Request) (ringside.Result, error) {
		return ringside.Result{Text: "The alphabet has twenty-six letters."}, nil // not a name
	}
	cfg.RunID = "run2"
	mustRun(t, cfg)
	for _, b := range s.battles {
		if b.RunID != "run2" {
			continue
		}
		if b.IdentityLeak != (b.PromptID == "p01") {
			t.Errorf("battle on %s: identity leak %v", b.PromptID, b.IdentityLeak)
		}
	}
}

func TestRunnerStoresBattlesWhoseGenerationsExist(t *testing.T) {
	s := newMemStore()
	cs, fakes := contestants(2)
	// Another process stored both sides of p00 but not the battle.
	for _, m := range []string{"m1", "m2"} {
		g := &ringside.Generation{RunID: "run1", PromptID: "p00", Model: m, Output: "earlier " + m}
		if err := s.SaveRunGeneration(context.Background(), g, nil); err != nil {
			t.Fatal(err)
		}
	}
	cfg := arena.Config{RunID: "run1", Contestants: cs, Prompts: testPrompts(2), Samples: 1, Concurrency: 2, Store: s}
	plan, rep := mustRun(t, cfg)
	if plan.Ready != 1 || plan.Generations != 2 || rep.Battles != 2 {
		t.Fatalf("plan %+v, report %+v", plan, rep)
	}
	checkComplete(t, s, cfg)
	for _, f := range fakes {
		if f.callCounts()["p00/0"] != 0 {
			t.Fatalf("%s was asked for p00 again", f.name)
		}
	}
}

func TestRunnerStopsOnAStoreFailure(t *testing.T) {
	s := newMemStore()
	s.failAfter, s.failErr = 4, errors.New("disk full")
	cs, _ := contestants(2)
	r := mustRunner(t, arena.Config{RunID: "run1", Contestants: cs, Prompts: testPrompts(20), Samples: 1, Concurrency: 2, Store: s})
	plan, err := r.Prepare(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Execute(context.Background(), plan, arena.Observer{}); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("Execute with a failing store: err = %v", err)
	}
}

func TestRunnerObserverIsSerial(t *testing.T) {
	cs, fakes := contestants(4)
	for _, f := range fakes {
		slowModel(f, time.Millisecond)
	}
	var inside, overlaps int
	var mu sync.Mutex // only to let the race detector see the check itself
	obs := arena.Observer{Generation: func(*ringside.Generation) {
		mu.Lock()
		inside++
		if inside > 1 {
			overlaps++
		}
		mu.Unlock()
		time.Sleep(100 * time.Microsecond)
		mu.Lock()
		inside--
		mu.Unlock()
	}}
	r := mustRunner(t, arena.Config{RunID: "run1", Contestants: cs, Prompts: testPrompts(8), Samples: 1, Concurrency: 8, Store: newMemStore()})
	plan, _ := r.Prepare(context.Background())
	if _, err := r.Execute(context.Background(), plan, obs); err != nil {
		t.Fatal(err)
	}
	if overlaps > 0 {
		t.Fatalf("the observer was called concurrently %d times", overlaps)
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	cs, _ := contestants(2)
	good := arena.Config{RunID: "r", Contestants: cs, Prompts: testPrompts(1), Samples: 1, Concurrency: 1, Store: newMemStore()}
	for name, mutate := range map[string]func(*arena.Config){
		"no run":      func(c *arena.Config) { c.RunID = "" },
		"one model":   func(c *arena.Config) { c.Contestants = c.Contestants[:1] },
		"no samples":  func(c *arena.Config) { c.Samples = 0 },
		"no slots":    func(c *arena.Config) { c.Concurrency = 0 },
		"bad pairing": func(c *arena.Config) { c.Pairing.Mode = "some" },
		"no store":    func(c *arena.Config) { c.Store = nil },
		"same model":  func(c *arena.Config) { c.Contestants = []arena.Contestant{cs[0], cs[0]} },
		"no streamer": func(c *arena.Config) { c.Contestants = []arena.Contestant{cs[0], {Model: cs[1].Model}} },
	} {
		cfg := good
		mutate(&cfg)
		if _, err := arena.New(cfg); ringside.ErrorCode(err) != ringside.EINVALID {
			t.Errorf("%s: err = %v, want EINVALID", name, err)
		}
	}
}

func TestRunnerMarksBattlesThatNameAnyModelAtCreation(t *testing.T) {
	s := newMemStore()
	prompts := testPrompts(4)
	prompts[3].Messages = append(prompts[3].Messages, ringside.Message{Role: "user", Content: "What is Claude?"})
	// gamma's answers name beta (p00: a leak only in a battle with beta),
	// a vendor (p01), its own provider id (p02) and, on p03, a product the
	// prompt asked about.
	answers := map[string]string{"p00": "Unlike Beta, I am brief.", "p01": "OpenAI trained me.",
		"p02": "gm-2b-instruct here.", "p03": "Claude is an assistant."}
	gamma := &fakeModel{name: "gamma"}
	gamma.fn = func(ctx context.Context, req ringside.Request) (ringside.Result, error) {
		return ringside.Result{Text: answers[req.PromptID]}, nil
	}
	quiet := func(name string) *fakeModel {
		f := &fakeModel{name: name}
		f.fn = func(ctx context.Context, req ringside.Request) (ringside.Result, error) {
			return ringside.Result{Text: "happy to help."}, nil
		}
		return f
	}
	cfg := arena.Config{RunID: "run1", Prompts: prompts, Samples: 1, Concurrency: 3, Store: s,
		Contestants: []arena.Contestant{
			{Model: ringside.Model{Name: "alpha", Provider: "sim"}, Streamer: quiet("alpha")},
			{Model: ringside.Model{Name: "beta", Provider: "sim"}, Streamer: quiet("beta")},
			{Model: ringside.Model{Name: "gamma", Provider: "sim", ModelID: "gm-2b-instruct"}, Streamer: gamma},
		}}
	mustRun(t, cfg)
	want := func(b *ringside.Battle) bool {
		has := func(m string) bool { return b.ModelA == m || b.ModelB == m }
		switch b.PromptID {
		case "p00":
			return has("gamma") && has("beta")
		case "p01", "p02":
			return has("gamma")
		}
		return false
	}
	check := func(when string) {
		t.Helper()
		if len(s.battles) != 12 {
			t.Fatalf("%s: %d battles, want 12", when, len(s.battles))
		}
		for _, b := range s.battles {
			if b.IdentityLeak != want(b) {
				t.Errorf("%s: battle %s-%s on %s: identity leak %v, want %v", when, b.ModelA, b.ModelB, b.PromptID, b.IdentityLeak, want(b))
			}
		}
	}
	check("run")
	// Forget gamma's battles on p00 and p01: a resume makes them from the
	// stored outputs, and must mark them by the same rule.
	var kept []*ringside.Battle
	for _, b := range s.battles {
		if b.ModelA != "gamma" && b.ModelB != "gamma" || b.PromptID > "p01" {
			kept = append(kept, b)
		}
	}
	s.battles = kept
	plan, _ := mustRun(t, cfg)
	if plan.Ready != 4 || plan.Generations != 0 {
		t.Fatalf("resume plan %+v, want 4 ready battles and no generation", plan)
	}
	check("resume")
}
