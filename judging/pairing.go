package judging

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/arena"
	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/pairing"
	"github.com/ringside-eval/ringside/store"
)

// pairer chooses the next pair of models under judging.pairing, for live
// and stored battles alike. Its tracker starts from the votes in the
// database, once, and then counts each vote as it commits (observe).
type pairer struct {
	db     *store.DB
	policy pairing.Policy

	mu     sync.Mutex
	loaded bool
	tr     *pairing.Tracker
	// probs are the probabilities of avail, recomputed when the tracker
	// refits or the pairs change.
	avail []pairing.Pair
	probs []float64
	fresh bool
}

// PolicyOf is the pairing policy the judging settings ask for.
func PolicyOf(cfg config.Judging) pairing.Policy {
	if cfg.Pairing == config.PairingUniform {
		return pairing.UniformPolicy(cfg.FocusTop)
	}
	p := pairing.DefaultPolicy()
	p.FocusTop = cfg.FocusTop
	return p
}

func newPairer(db *store.DB, cfg config.Judging) *pairer {
	return &pairer{db: db, policy: PolicyOf(cfg), tr: pairing.NewTracker(nil)}
}

// load reads the votes so far, the first time the pairer is used.
func (p *pairer) load(ctx context.Context) error {
	if p.loaded {
		return nil
	}
	tallies, err := p.db.PairTallies(ctx)
	if err != nil {
		return err
	}
	for _, t := range tallies {
		p.tr.Add(t.ModelA, t.ModelB, scoreA(t.Winner), float64(t.Count))
	}
	p.loaded = true
	return nil
}

// scoreA is what side a scored: a tie of either kind is half a win.
func scoreA(w ringside.Winner) float64 {
	switch w {
	case ringside.WinnerA:
		return 1
	case ringside.WinnerB:
		return 0
	}
	return 0.5
}

// observe counts a committed vote.
func (p *pairer) observe(b *ringside.Battle, w ringside.Winner) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.loaded {
		p.tr.Add(b.ModelA, b.ModelB, scoreA(w), 1)
	}
}

// drawn is a pair chosen for a deal: models in a random order, and the
// probability with which the pair was drawn.
type drawn struct {
	a, b       string
	index      int
	propensity float64
}

// choose draws one of the pairs of models, leaving out those marked in
// skip (by position in pairs; nil: none). It returns ok false when nothing
// is left.
func (p *pairer) choose(ctx context.Context, r *lockedRand, pairs [][2]string, skip []bool) (drawn, bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.load(ctx); err != nil {
		return drawn{}, false, err
	}
	p.use(pairs)
	if p.tr.Refresh() || !p.fresh {
		p.probs = p.policy.Probabilities(p.tr, p.avail)
		p.fresh = true
	}
	var d drawn
	var swap bool
	r.with(func(r *rand.Rand) {
		d.index, d.propensity = pairing.Sample(p.probs, skip, r.Float64())
		swap = r.IntN(2) == 0
	})
	if d.index < 0 {
		return drawn{}, false, nil
	}
	d.a, d.b = pairs[d.index][0], pairs[d.index][1]
	if swap {
		d.a, d.b = d.b, d.a
	}
	return d, true, nil
}

// use makes pairs (by model name) the pairs dealt among, in the tracker's
// indices, when they differ from the last ones.
func (p *pairer) use(pairs [][2]string) {
	if len(pairs) == len(p.avail) {
		same := true
		for k, pr := range pairs {
			if p.tr.Index(pr[0]) != p.avail[k].I || p.tr.Index(pr[1]) != p.avail[k].J {
				same = false
				break
			}
		}
		if same {
			return
		}
	}
	p.avail = p.avail[:0]
	for _, pr := range pairs {
		// A model with no votes yet is tracked from now on, so that it is
		// placed first.
		p.tr.Add(pr[0], pr[1], 0, 0)
		p.avail = append(p.avail, pairing.Pair{I: p.tr.Index(pr[0]), J: p.tr.Index(pr[1])})
	}
	p.fresh = false
}

// storedPairs caches the pairs of models that have stored battles to deal.
// The query groups every dealable battle (about 50 ms at 100,000), so one
// deal runs it at a time, without the lock: the others use the previous
// list, or, before there is one, wait for it (a thousand judges arriving
// at once must not run it a thousand times).
type storedPairs struct {
	mu       sync.Mutex
	pairs    [][2]string
	loadedAt time.Time
	// loading is closed when the refresh under way ends; nil when none is.
	loading chan struct{}
}

func (s *storedPairs) get(ctx context.Context, e *Engine) ([][2]string, error) {
	s.mu.Lock()
	for s.pairs == nil && s.loading != nil {
		wait := s.loading
		s.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		s.mu.Lock()
	}
	if s.pairs != nil && (s.loading != nil || e.now().Sub(s.loadedAt) < promptsMaxAge) {
		defer s.mu.Unlock()
		return s.pairs, nil
	}
	done := make(chan struct{})
	s.loading = done
	s.mu.Unlock()
	ps, err := e.db.StoredPairs(ctx, e.cfg.Runs)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loading = nil
	close(done)
	if err != nil {
		return nil, err
	}
	s.pairs, s.loadedAt = s.dedupe(ps), e.now()
	return s.pairs, nil
}

// dedupe makes both orders of a pair one pair.
func (*storedPairs) dedupe(ps []store.StoredPair) [][2]string {
	seen := map[[2]string]bool{}
	out := [][2]string{}
	for _, p := range ps {
		k := [2]string{min(p.ModelA, p.ModelB), max(p.ModelA, p.ModelB)}
		if k[0] != k[1] && !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// adaptivePair replaces the pair drawn by run.weights with the adaptive
// one under judging.pairing = "adaptive", and returns its propensity (0:
// uniform pairing, which keeps the run's weights and stores none).
func (l *liveSource) adaptivePair(ctx context.Context, pair *arena.Pair) (float64, error) {
	if l.e.cfg.Pairing != config.PairingAdaptive {
		return 0, nil
	}
	l.mu.Lock()
	if l.pairs == nil {
		for i, a := range l.names {
			for _, b := range l.names[i+1:] {
				l.pairs = append(l.pairs, [2]string{a, b})
			}
		}
	}
	pairs := l.pairs
	l.mu.Unlock()
	d, ok, err := l.e.pairer.choose(ctx, l.rand, pairs, nil)
	if err != nil || !ok {
		return 0, err
	}
	// Sides are random either way; the same pair keeps the sides of the
	// run's draw, so that a seeded source deals as it did before.
	if d.a != pair.B || d.b != pair.A {
		pair.A, pair.B = d.a, d.b
	}
	return d.propensity, nil
}
