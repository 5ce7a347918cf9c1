package rank

import (
	"encoding/binary"
	"math"
	"sync"
)

// Memo keeps bootstrap results by what they are computed from: the rated
// models and their cells, the anchor, the rounds and the seed. Each round
// draws from a stream of (seed, round) alone, so a set of battles whose
// cells did not change gives the same rounds again; a leaderboard
// recomputed after a vote then bootstraps only the slices the vote fell
// in. Give one to Options.Memo to use it; it is safe for concurrent use.
type Memo struct {
	mu      sync.Mutex
	entries map[string]*memoEntry
	bytes   int
}

type memoEntry struct {
	reps, low, high []float64
	nonfinite       []int
}

// memoBytes bounds a memo's size; past it, it starts over (a page
// refreshed after a vote fills it again with what it asks for).
const memoBytes = 64 << 20

// NewMemo returns an empty memo.
func NewMemo() *Memo { return &Memo{entries: map[string]*memoEntry{}} }

// memoKey encodes everything a.bootstrap's result depends on.
func (a *analysis) memoKey(rounds int, seed uint64) string {
	b := make([]byte, 0, 64+16*len(a.pwi))
	put := func(x uint64) { b = binary.AppendUvarint(b, x) }
	put(uint64(rounds))
	put(seed)
	put(uint64(a.anchor + 1))
	put(math.Float64bits(a.anchorRating))
	put(uint64(a.other))
	put(uint64(len(a.fit)))
	for _, v := range a.fit {
		name := a.names[v]
		put(uint64(len(name)))
		b = append(b, name...)
	}
	for k := range a.pwi {
		put(uint64(a.prob.pi[k]))
		put(uint64(a.prob.pj[k]))
		put(uint64(a.pwi[k]))
		put(uint64(a.pwj[k]))
		put(uint64(a.pt[k]))
	}
	for _, fc := range a.pfrac {
		put(uint64(fc.k))
		put(uint64(fc.slot))
		put(math.Float64bits(fc.s))
		put(math.Float64bits(fc.w))
		put(uint64(fc.n))
	}
	return string(b)
}

// load fills a's bootstrap results from the memo; false when it has none.
// The slices are shared: an analysis never changes them once computed.
func (m *Memo) load(key string, a *analysis) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.entries[key]
	if e == nil {
		return false
	}
	a.reps, a.low, a.high, a.nonfinite = e.reps, e.low, e.high, e.nonfinite
	return true
}

func (m *Memo) store(key string, a *analysis) {
	m.mu.Lock()
	defer m.mu.Unlock()
	size := len(key) + 8*(len(a.reps)+len(a.low)+len(a.high)+len(a.nonfinite))
	if m.bytes+size > memoBytes {
		clear(m.entries)
		m.bytes = 0
	}
	m.entries[key] = &memoEntry{reps: a.reps, low: a.low, high: a.high, nonfinite: a.nonfinite}
	m.bytes += size
}
