package judging

import (
	"context"
	"math/rand/v2"

	"github.com/ringside-eval/ringside"
)

// goldSource deals gold battles (stored battles an admin marked with the
// verdict they must get) at judging.gold_rate, and otherwise whatever the
// server deals. A gold battle goes through the same deal, feed and frames
// as a stored battle, so a judge cannot tell it from another; its vote
// grades the judge (package trust) and never counts in a board.
//
// On a live server gold battles are stored battles among live ones: they
// are replayed at their recorded pace (whatever judging.pace says), which
// the blind display pacing shows like a live battle. When no gold battle
// is left for the judge, the deal falls through to the usual source.
type goldSource struct {
	inner  battleSource
	stored *storedSource
	rate   float64
	rand   *lockedRand
}

// withGold wraps src in a goldSource when the engine's gold_rate is set.
func withGold(e *Engine, src battleSource, r *lockedRand) battleSource {
	if e.cfg.GoldRate <= 0 {
		return src
	}
	stored, ok := src.(*storedSource)
	if !ok {
		stored = &storedSource{e: e, rand: r, amongLive: true, pairs: &storedPairs{}}
	}
	return &goldSource{inner: src, stored: stored, rate: e.cfg.GoldRate, rand: r}
}

func (g *goldSource) deal(ctx context.Context, judgeID string) (*deal, error) {
	var draw bool
	g.rand.with(func(r *rand.Rand) { draw = r.Float64() < g.rate })
	if draw {
		d, err := g.dealGold(ctx, judgeID)
		if err == nil || ringside.ErrorCode(err) != ringside.ENOTFOUND {
			return d, err
		}
	}
	return g.inner.deal(ctx, judgeID)
}

// dealGold deals one of the least-dealt gold battles the judge has not
// seen; ENOTFOUND when there is none.
func (g *goldSource) dealGold(ctx context.Context, judgeID string) (*deal, error) {
	cands, err := g.stored.e.db.GoldCandidates(ctx, judgeID, storedCandidates)
	if err != nil {
		return nil, err
	}
	// A gold deal is not drawn by the pairing: it has no propensity.
	d, err := g.stored.tryCandidates(ctx, judgeID, cands, 0)
	if err != nil || d != nil {
		return d, err
	}
	return nil, ringside.Errorf(ringside.ENOTFOUND, "no gold battles left for this judge")
}
