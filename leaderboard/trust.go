package leaderboard

import (
	"context"
	"sort"
	"sync"

	"github.com/ringside-eval/ringside/store"
	"github.com/ringside-eval/ringside/trust"
)

// JudgesReport measures the judges of the database (of a run when runID is
// set) with the admins' choices applied: the report behind `ringside
// judges`, the admin page, and the judges a board leaves out.
func JudgesReport(ctx context.Context, db *store.DB, runID string, th trust.Thresholds) (*trust.Report, error) {
	tvs, err := db.TrustVotes(ctx, runID)
	if err != nil {
		return nil, err
	}
	votes := make([]trust.Vote, len(tvs))
	for i, v := range tvs {
		votes[i] = trust.Vote{Battle: v.BattleID, ModelA: v.ModelA, ModelB: v.ModelB, Judge: v.Judge,
			Winner: v.Winner, DurationMs: v.DurationMs, Chars: v.Chars, Gold: v.Gold}
	}
	xs, err := db.JudgeExclusions(ctx)
	if err != nil {
		return nil, err
	}
	overrides := map[string]bool{}
	for label, x := range xs {
		overrides[label] = x.Excluded
	}
	return trust.Analyse(votes, th, overrides)
}

// flagCache keeps which judges the report flagged, at a state of the data.
// The report fits a board per judge, so it is not made again at every
// vote: only when something other than new votes changed (a gold mark, a
// vote corrected, an import), or the votes grew by 1 % since (at every vote
// while there are fewer than 100). The admins' choices are read fresh at
// every board.
type flagCache struct {
	mu         sync.Mutex
	at         store.RankState
	valid      bool
	refreshing bool // a background refresh is under way
	flagged    map[string]bool
}

// flaggedJudges makes the judges' report and returns the flagged judges.
func (s *Service) flaggedJudges(ctx context.Context) (map[string]bool, error) {
	rep, err := JudgesReport(ctx, s.db, "", s.cfg.Trust.Thresholds())
	if err != nil {
		return nil, err
	}
	flagged := map[string]bool{}
	for _, j := range rep.Judges {
		if j.Flagged {
			flagged[j.Judge] = true
		}
	}
	return flagged, nil
}

// invalid reports whether the flags cannot stand for state at: none yet, or
// something other than new votes changed.
func (f *flagCache) invalid(at store.RankState) bool {
	return !f.valid || f.at.Changes != at.Changes || f.at.Imports != at.Imports || at.Votes < f.at.Votes
}

// stale reports whether the flags are due to be made again.
func (f *flagCache) stale(at store.RankState) bool {
	return f.invalid(at) || at.Votes >= f.at.Votes+max(1, f.at.Votes/100)
}

// excludedJudges lists, sorted, the judges whose votes the boards leave out
// at state at: flagged, unless an admin kept them, and those an admin
// excluded.
func (s *Service) excludedJudges(ctx context.Context, at store.RankState) ([]string, error) {
	f := &s.flags
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case f.invalid(at):
		// No flags yet, or something other than new votes changed (a gold
		// mark, a correction, an import): the board waits for them.
		flagged, err := s.flaggedJudges(ctx)
		if err != nil {
			return nil, err
		}
		f.flagged, f.at, f.valid = flagged, at, true
	case f.stale(at) && !f.refreshing:
		// Only new votes: the board is served with the flags it has while
		// they are made again in the background, so that a vote never
		// waits for a report over every vote.
		f.refreshing = true
		go func() {
			flagged, err := s.flaggedJudges(context.Background())
			f.mu.Lock()
			defer f.mu.Unlock()
			// A report made meanwhile for other changes is newer: keep it.
			if err == nil && f.at.Changes == at.Changes && f.at.Imports == at.Imports && f.at.Votes <= at.Votes {
				f.flagged, f.at = flagged, at
			}
			f.refreshing = false
		}()
	}
	xs, err := s.db.JudgeExclusions(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for j := range f.flagged {
		if x, ok := xs[j]; !ok || x.Excluded {
			out = append(out, j)
		}
	}
	for j, x := range xs {
		if x.Excluded && !f.flagged[j] {
			out = append(out, j)
		}
	}
	sort.Strings(out)
	return out, nil
}
