package judging

import (
	"context"
	"math/rand/v2"
	"slices"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
)

// sourceMix deals from several sources by weight (judging.sources): each
// deal draws one; one with nothing to deal gives way to the others.
type sourceMix struct {
	sources []battleSource
	weights []float64
	rand    *lockedRand
}

func newSourceMix(e *Engine, cfg *config.Config, streamers map[string]ringside.Streamer, r *lockedRand) battleSource {
	m := &sourceMix{rand: r}
	weights := cfg.Judging.SourceWeights()
	names := make([]string, 0, len(weights))
	for name := range weights {
		names = append(names, name)
	}
	slices.Sort(names) // a fixed order, so a seeded draw repeats
	for _, name := range names {
		var src battleSource
		switch name {
		case config.SourceStored:
			src = &storedSource{e: e, rand: r, pairs: &storedPairs{}}
		case config.SourceChat:
			src = chatSource{candidates: len(chatCandidates(cfg, streamers))}
		default:
			src = newLiveSource(e, cfg, streamers, r)
		}
		m.sources = append(m.sources, src)
		m.weights = append(m.weights, weights[name])
	}
	if len(m.sources) == 1 {
		return m.sources[0]
	}
	return m
}

func (m *sourceMix) deal(ctx context.Context, judgeID string) (*deal, error) {
	left := slices.Clone(m.weights)
	for range m.sources {
		var i int
		m.rand.with(func(r *rand.Rand) { i = drawWeighted(r, left) })
		d, err := m.sources[i].deal(ctx, judgeID)
		if ringside.ErrorCode(err) != ringside.ENOTFOUND {
			return d, err
		}
		left[i] = 0
	}
	return nil, ringside.Errorf(ringside.ENOTFOUND, "nothing left to judge")
}

// drawWeighted draws an index in proportion to the weights (some positive).
func drawWeighted(r *rand.Rand, w []float64) int {
	var total float64
	for _, x := range w {
		total += x
	}
	x := r.Float64() * total
	last := 0
	for i, wi := range w {
		if wi <= 0 {
			continue
		}
		if x < wi {
			return i
		}
		x -= wi
		last = i
	}
	return last
}
