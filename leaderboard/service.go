package leaderboard

import (
	"context"
	"encoding/json"
	"strings"
	"sync"

	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/judge"
	"github.com/ringside-eval/ringside/rank"
	"github.com/ringside-eval/ringside/store"
)

// Compute ranks bs with opts and adds the measured performance (perf may
// be nil) to the whole board and to each slice: a slice's models are shown
// with their overall measurements, the generations being the same whichever
// way the votes are cut. A model with generations but no rated battle is
// listed as flagged (rank.FlagNoBattles) with its error rate.
func Compute(bs *rank.Battles, perf *rank.PerfCollector, opts rank.Options) (*rank.Leaderboard, error) {
	lb, err := rank.Rank(bs, opts)
	if err != nil {
		return nil, err
	}
	if perf != nil {
		all := perf.Result(lb.BattleCounts())
		lb.SetPerf(all)
		lb.AddUnrated(all)
		for _, sl := range lb.Slices {
			sl.SetPerf(perf.Result(sl.BattleCounts()))
		}
	}
	return lb, nil
}

// Report is the answer of GET /api/leaderboard: the leaderboard
// JSON (with perf fields per model and, when sliced, slices) plus the rules
// judges' pass statistics keyed by judge label, the number of votes, and
// the judging dimensions configured, so the page can offer them even before
// anyone voted on one.
type Report struct {
	*rank.Leaderboard
	Pass       map[string][]judge.PassStats `json:"pass,omitempty"`
	Votes      int64                        `json:"votes"`
	Dimensions []string                     `json:"dimensions"`
	// ExcludedJudgeCount is how many judges' votes the board left out;
	// the public gets this count, not their names (excluded_judges).
	ExcludedJudgeCount int `json:"excluded_judge_count,omitempty"`
}

// Query is what a leaderboard request may choose; nil fields take the
// config's [rank] settings.
type Query struct {
	By           string
	Rounds       *int
	IncludeLeaks *bool
	// Control is "style", "none" or a comma list of control features.
	Control *string
	// Weighting is "none" or "propensity" (rank.Options.Weighting).
	Weighting *string
	// Judges is whose votes count (rank.Options.Judges); IncludeFlagged
	// counts flagged and excluded judges' votes too.
	Judges         string
	IncludeFlagged bool
	// Admit, when set, is asked just before a board is computed, never for
	// one served from the cache, and its error is returned as is: the
	// server bounds the public's computations with it, so that waiting on
	// another's computation costs a client nothing.
	Admit func() error
}

// Board is a computed report and its JSON, served as is.
type Board struct {
	Report *Report
	JSON   []byte
	// PublicJSON is JSON without the names of the judges left out.
	PublicJSON []byte
	at         store.RankState
}

// cacheSize bounds the cached boards (slicings × rounds × leak settings);
// the page uses three or four of them.
const cacheSize = 16

// boardKey is what makes two boards of the same data differ.
type boardKey struct {
	by      string
	rounds  int
	leaks   bool
	control string
	judges  string
	weight  string
	// excluded is the judges left out, comma-joined.
	excluded string
}

// Service answers leaderboards of the whole database for the server. It
// keeps every vote in memory and, as votes are appended, reads only the new
// ones (a million votes take seconds to read, a few new ones
// milliseconds); anything else that changes the votes already read (see
// store.RankState) makes it read them all again. Boards are cached until
// the data changes, and computations are serialised, so a burst of page
// refreshes after a vote computes each board once.
type Service struct {
	db  *store.DB
	cfg *config.Config

	compute sync.Mutex
	// data is what the boards are computed from; only a holder of compute
	// touches it.
	data *boardData
	// memo keeps the bootstrap of every slice, so that after a vote only
	// the slices it fell in are bootstrapped again.
	memo *rank.Memo

	mu     sync.Mutex
	boards map[boardKey]*Board
	// fullReads counts the reads of every vote, for the tests.
	fullReads int
	// flags is which judges the judges' report flagged (trust.go).
	flags flagCache
}

// boardData is the votes, measurements and pass statistics read at a state.
type boardData struct {
	at      store.RankState
	style   bool // the battles carry their control features
	prop    bool // the battles carry their deals' propensities
	battles *rank.Battles
	perf    *rank.PerfCollector
	pass    map[string][]judge.PassStats
}

// NewService returns a service over db ranking with cfg's [rank] settings.
func NewService(db *store.DB, cfg *config.Config) *Service {
	return &Service{db: db, cfg: cfg, memo: rank.NewMemo()}
}

// Board returns the leaderboard q asks for at the current data: cached
// while the data has not changed, else computed. EINVALID for a bad query
// or a bad [rank] setting.
func (s *Service) Board(ctx context.Context, q Query) (*Board, error) {
	opts, err := Options(s.cfg.Rank, Overrides{Rounds: q.Rounds, IncludeLeaks: q.IncludeLeaks, By: q.By, Matrix: true,
		Control: q.Control, Weighting: q.Weighting})
	if err != nil {
		return nil, err
	}
	if err := rank.ValidateJudges(q.Judges); err != nil {
		return nil, err
	}
	opts.Judges = q.Judges
	at, err := s.db.RankState(ctx)
	if err != nil {
		return nil, err
	}
	if !q.IncludeFlagged {
		if opts.ExcludeJudges, err = s.excludedJudges(ctx, at); err != nil {
			return nil, err
		}
	}
	key := boardKey{by: opts.By, rounds: opts.Rounds, leaks: opts.IncludeIdentityLeaks, control: strings.Join(opts.Controls, ","),
		judges: opts.Judges, weight: opts.Weighting, excluded: strings.Join(opts.ExcludeJudges, ",")}
	if b := s.cached(key, at); b != nil {
		return b, nil
	}
	s.compute.Lock()
	defer s.compute.Unlock()
	// Read again: the data may have moved on while this one waited, and
	// the data in memory must not go back.
	if at, err = s.db.RankState(ctx); err != nil {
		return nil, err
	}
	if b := s.cached(key, at); b != nil {
		return b, nil
	}
	if q.Admit != nil {
		if err := q.Admit(); err != nil {
			return nil, err
		}
	}
	d, err := s.dataAt(ctx, at, readWith{style: len(opts.Controls) > 0, prop: opts.Weighting != ""})
	if err != nil {
		return nil, err
	}
	opts.Memo = s.memo
	lb, err := Compute(d.battles, d.perf, opts)
	if err != nil {
		return nil, err
	}
	dims := s.cfg.Dimensions
	if dims == nil {
		dims = []string{}
	}
	rep := &Report{Leaderboard: lb, Pass: d.pass, Votes: at.Votes, Dimensions: dims, ExcludedJudgeCount: len(lb.ExcludedJudges)}
	b, err := newBoard(rep, at)
	if err != nil {
		return nil, err
	}
	s.put(key, b)
	return b, nil
}

func (s *Service) cached(k boardKey, at store.RankState) *Board {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b := s.boards[k]; b != nil && b.at == at {
		return b
	}
	return nil
}

func (s *Service) put(k boardKey, b *Board) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.boards == nil {
		s.boards = map[boardKey]*Board{}
	}
	// Stale boards go first; then any, when the bound is reached by many
	// different queries (a client trying every round count).
	for old, ob := range s.boards {
		if ob.at != b.at || len(s.boards) >= cacheSize {
			delete(s.boards, old)
		}
	}
	s.boards[k] = b
}

// dataAt brings the data in memory to state at: the votes appended since
// the last read when nothing else changed, else every vote; the
// measurements and pass statistics only when what they come from changed.
// The caller holds compute. Once a board asks for style (the control
// features) or propensities (a weighted board), every vote is read again
// with them, and from then on new votes are read with them too.
func (s *Service) dataAt(ctx context.Context, at store.RankState, with readWith) (*boardData, error) {
	old := s.data
	if old != nil {
		with.style = with.style || old.style
		with.prop = with.prop || old.prop
	}
	same := old != nil && old.style == with.style && old.prop == with.prop
	if same && old.at == at {
		return old, nil
	}
	// Whatever fails below leaves no half-updated data behind.
	s.data = nil
	d := &boardData{at: at, style: with.style, prop: with.prop}
	if same && old.at.Changes == at.Changes && old.at.LastVote <= at.LastVote {
		n, err := readVotes(ctx, s.db, old.battles, old.at.LastVote, at.LastVote, with)
		if err != nil {
			return nil, err
		}
		// Fewer than counted: votes were deleted after the state was read
		// (Changes moved too late to be seen); read them all.
		if old.at.Votes+n == at.Votes {
			d.battles = old.battles
		}
	}
	if d.battles == nil {
		s.fullReads++
		d.battles = rank.NewBattles()
		if _, err := readVotes(ctx, s.db, d.battles, 0, at.LastVote, with); err != nil {
			return nil, err
		}
	}
	var err error
	if old != nil && old.at.Generations == at.Generations && old.at.LastGeneration == at.LastGeneration &&
		old.at.Imports == at.Imports {
		d.perf = old.perf
	} else if d.perf, err = LoadPerf(ctx, s.db, ""); err != nil {
		return nil, err
	}
	if old != nil && old.at.Checks == at.Checks && old.at.Generations == at.Generations &&
		old.at.LastGeneration == at.LastGeneration {
		d.pass = old.pass
	} else if d.pass, err = LoadPassStats(ctx, s.db, ""); err != nil {
		return nil, err
	}
	s.data = d
	return d, nil
}

// readWith is what the votes are read with beyond what every board needs.
type readWith struct{ style, prop bool }

// readVotes adds the votes with row ids in (after, through] to bs.
func readVotes(ctx context.Context, db *store.DB, bs *rank.Battles, after, through int64, with readWith) (int64, error) {
	if through <= after {
		return 0, nil // no votes; a Through of 0 would mean no bound
	}
	return addVotes(ctx, db, bs, store.RankFilter{After: after, Through: through, Style: with.style, Propensity: with.prop})
}

// newBoard serialises a report twice: whole, and for the public without
// the names of the judges it left out.
func newBoard(rep *Report, at store.RankState) (*Board, error) {
	body, err := json.Marshal(rep)
	if err != nil {
		return nil, err
	}
	b := &Board{Report: rep, JSON: body, PublicJSON: body, at: at}
	if rep.ExcludedJudges != nil {
		lb := *rep.Leaderboard
		lb.ExcludedJudges = nil
		pub := *rep
		pub.Leaderboard = &lb
		if b.PublicJSON, err = json.Marshal(&pub); err != nil {
			return nil, err
		}
	}
	return b, nil
}
