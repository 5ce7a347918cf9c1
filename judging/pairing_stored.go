package judging

import (
	"context"

	"github.com/ringside-eval/ringside"
)

// dealAdaptive deals a stored battle under adaptive pairing: it draws a
// pair, then the least-dealt of that pair's battles the judge has not
// seen. A pair with none left for this judge is left out and another drawn
// from the rest, renormalised, so that the stored propensity is the
// probability this deal had.
func (s *storedSource) dealAdaptive(ctx context.Context, judgeID string) (*deal, error) {
	pairs, err := s.pairs.get(ctx, s.e)
	if err != nil {
		return nil, err
	}
	skip := make([]bool, len(pairs))
	for {
		d, ok, err := s.e.pairer.choose(ctx, s.rand, pairs, skip)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, ringside.Errorf(ringside.ENOTFOUND, "no stored battles left to judge")
		}
		cands, err := s.e.db.StoredPairCandidates(ctx, judgeID, s.e.cfg.Runs, d.a, d.b, pairCandidates)
		if err != nil {
			return nil, err
		}
		dl, err := s.tryCandidates(ctx, judgeID, cands, d.propensity)
		if err != nil || dl != nil {
			return dl, err
		}
		skip[d.index] = true
	}
}

// pairCandidates is how many least-dealt battles of the chosen pair a deal
// draws among: fewer than storedCandidates, since the pair already spreads
// judges, and each one costs the query a look-up of the judge's deals.
const pairCandidates = 8
