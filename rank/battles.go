package rank

import (
	"sort"
	"strings"

	"github.com/ringside-eval/ringside"
)

// Outcome codes in the column store.
const (
	outA uint8 = iota
	outB
	outTie
	outBothBad
)

func outcomeOf(w ringside.Winner) (uint8, bool) {
	switch w {
	case ringside.WinnerA:
		return outA, true
	case ringside.WinnerB:
		return outB, true
	case ringside.WinnerTie:
		return outTie, true
	case ringside.WinnerBothBad:
		return outBothBad, true
	}
	return 0, false
}

// Battle is one judged battle as the statistics see it: who met whom, who
// won, and the attributes a leaderboard can be sliced by. A battle judged by
// several judges is several Battles, one per vote, that share a Unit.
type Battle struct {
	ModelA, ModelB string
	Winner         ringside.Winner
	// Time orders battles for online Elo (seconds since the epoch); zero
	// when unknown.
	Time           float64
	Category, Kind string
	// Judge is the judge label ("human:7f3c", see ringside.Judge.Label) or
	// whatever a third-party file carries. Its part before ':' is the judge
	// kind when it is one of ringside.JudgeKinds.
	Judge      string
	Tags       []string
	Dimensions map[string]ringside.Winner
	// IdentityLeak marks a battle in which a model named itself; Rank leaves
	// such battles out unless Options.IncludeIdentityLeaks is set.
	IdentityLeak bool
	// Style is what the two responses measure on the control features
	// (nil: nothing known); only a controlled leaderboard reads it.
	Style *Style
	// Unit identifies the battle the vote is on (the database's battle row,
	// or a battle file's battle_id); votes with the same non-zero Unit share
	// one unit of weight in a board (see units.go). Zero: a battle of its own.
	Unit int64
	// Propensity is the probability with which the vote's pair was dealt
	// (adaptive pairing stores it with the deal); 0 when unknown (imported,
	// chat, gold and older votes). A board weighted by propensity
	// (Options.Weighting) weighs the vote by its inverse (weights.go).
	Propensity float64
}

// names interns strings to dense ids.
type names struct {
	list []string
	ids  map[string]int32
}

func newNames(withEmpty bool) names {
	n := names{ids: map[string]int32{}}
	if withEmpty {
		n.id("")
	}
	return n
}

func (n *names) id(s string) int32 {
	if id, ok := n.ids[s]; ok {
		return id
	}
	id := int32(len(n.list))
	n.list = append(n.list, s)
	n.ids[s] = id
	return id
}

// Battles is an append-only column store of battles: a million battles take
// tens of megabytes, with model names and attributes interned. It is not safe
// for concurrent Add; reading (Rank, Compare) may run concurrently.
type Battles struct {
	models                      names
	cats, kinds, judges, jkinds names // id 0 is ""
	tagNames, dimNames          names
	a, b                        []int32
	out                         []uint8
	time                        []float64
	cat, kind, judge, jkind     []int32
	leak                        []bool
	jkindOf                     []int32 // judge id → judge-kind id
	tagOff, dimOff              []int32 // CSR offsets, len n+1
	tagIDs, dimIDs              []int32
	dimOut                      []uint8
	// ctrl holds each battle's normalised feature differences (NumControls
	// per battle) and ctrlKnown which are known; both stay nil until a
	// battle has a Style.
	ctrl             []float32
	ctrlKnown        []uint8
	prop             []float64 // per battle; nil until a battle has a propensity
	units            unitIndex
	lastA, lastB     string // the previous battle's models, to skip map lookups
	lastAID, lastBID int32
	haveLast         bool
}

// NewBattles returns an empty store.
func NewBattles() *Battles {
	return &Battles{
		models: newNames(false),
		cats:   newNames(true), kinds: newNames(true), judges: newNames(true), jkinds: newNames(true),
		tagNames: newNames(false), dimNames: newNames(false),
		tagOff: []int32{0}, dimOff: []int32{0},
	}
}

// Len is the number of battles stored.
func (bs *Battles) Len() int { return len(bs.a) }

// Models lists the models in order of first appearance.
func (bs *Battles) Models() []string { return append([]string(nil), bs.models.list...) }

// Add stores one battle. It returns an EINVALID error naming the field when
// a model is missing, both sides are the same model, or a winner is unknown.
func (bs *Battles) Add(b Battle) error {
	if b.ModelA == "" {
		return ringside.FieldError("model_a", "required")
	}
	if b.ModelB == "" {
		return ringside.FieldError("model_b", "required")
	}
	if b.ModelA == b.ModelB {
		return ringside.FieldError("model_b", "a battle needs two different models (both are %q)", b.ModelA)
	}
	o, ok := outcomeOf(b.Winner)
	if !ok {
		return b.Winner.Validate()
	}
	if !(b.Propensity >= 0 && b.Propensity <= 1) {
		return ringside.FieldError("propensity", "%g is not a probability", b.Propensity)
	}
	var dims []string
	for d, w := range b.Dimensions {
		if _, ok := outcomeOf(w); !ok {
			return ringside.FieldError("dimensions."+d, "%q is not one of a, b, tie, bothbad", string(w))
		}
		dims = append(dims, d)
	}
	sort.Strings(dims) // deterministic id assignment
	if !bs.haveLast || b.ModelA != bs.lastA {
		bs.lastA, bs.lastAID = b.ModelA, bs.models.id(b.ModelA)
	}
	if !bs.haveLast || b.ModelB != bs.lastB {
		bs.lastB, bs.lastBID = b.ModelB, bs.models.id(b.ModelB)
	}
	bs.haveLast = true
	if err := bs.units.add(b.Unit, int32(len(bs.a)), bs.lastAID, bs.lastBID, bs.a, bs.b); err != nil {
		return err
	}
	bs.a = append(bs.a, bs.lastAID)
	bs.b = append(bs.b, bs.lastBID)
	bs.out = append(bs.out, o)
	bs.time = append(bs.time, b.Time)
	bs.cat = append(bs.cat, bs.cats.id(b.Category))
	bs.kind = append(bs.kind, bs.kinds.id(b.Kind))
	judge := bs.judges.id(b.Judge)
	for int(judge) >= len(bs.jkindOf) { // a new judge: its kind, once
		bs.jkindOf = append(bs.jkindOf, bs.jkinds.id(judgeKind(bs.judges.list[len(bs.jkindOf)])))
	}
	bs.judge = append(bs.judge, judge)
	bs.jkind = append(bs.jkind, bs.jkindOf[judge])
	bs.leak = append(bs.leak, b.IdentityLeak)
	for _, t := range b.Tags {
		if t == "" {
			continue
		}
		bs.tagIDs = append(bs.tagIDs, bs.tagNames.id(t))
	}
	bs.tagOff = append(bs.tagOff, int32(len(bs.tagIDs)))
	for _, d := range dims {
		o, _ := outcomeOf(b.Dimensions[d])
		bs.dimIDs = append(bs.dimIDs, bs.dimNames.id(d))
		bs.dimOut = append(bs.dimOut, o)
	}
	bs.dimOff = append(bs.dimOff, int32(len(bs.dimIDs)))
	bs.addStyle(b.Style)
	bs.addPropensity(b.Propensity)
	return nil
}

// addStyle appends the last battle's features, starting the columns (zero
// for every earlier battle) at the first battle that has some.
func (bs *Battles) addStyle(s *Style) {
	if s == nil && bs.ctrlKnown == nil {
		return
	}
	if bs.ctrlKnown == nil {
		bs.ctrlKnown = make([]uint8, len(bs.a)-1, cap(bs.a))
		bs.ctrl = make([]float32, NumControls*(len(bs.a)-1), NumControls*cap(bs.a))
	}
	var x [NumControls]float32
	var known uint8
	if s != nil {
		known = s.Known
		for f := range x {
			if s.Has(f) {
				x[f] = float32(s.diff(f))
			}
		}
	}
	bs.ctrlKnown = append(bs.ctrlKnown, known)
	bs.ctrl = append(bs.ctrl, x[:]...)
}

func judgeKind(label string) string {
	kind, _, ok := strings.Cut(label, ":")
	if !ok {
		return ""
	}
	for _, k := range ringside.JudgeKinds {
		if k == kind {
			return kind
		}
	}
	return ""
}

// dimOutcome is battle i's winner on dimension d, if it has one.
func (bs *Battles) dimOutcome(i int32, d int32) (uint8, bool) {
	for k := bs.dimOff[i]; k < bs.dimOff[i+1]; k++ {
		if bs.dimIDs[k] == d {
			return bs.dimOut[k], true
		}
	}
	return 0, false
}

// subset is a selection of battles: indices in store order, and the
// dimension whose winner counts (-1: the overall winner).
type subset struct {
	idx []int32
	dim int32
}

// each calls fn for every battle of the subset that has an outcome, in store
// order.
func (bs *Battles) each(s subset, fn func(i int32, o uint8)) {
	for _, i := range s.idx {
		if s.dim < 0 {
			fn(i, bs.out[i])
		} else if o, ok := bs.dimOutcome(i, s.dim); ok {
			fn(i, o)
		}
	}
}

// all selects every battle, without identity leaks unless asked.
func (bs *Battles) all(includeLeaks bool) subset {
	idx := make([]int32, 0, len(bs.a))
	for i := range bs.a {
		if includeLeaks || !bs.leak[i] {
			idx = append(idx, int32(i))
		}
	}
	return subset{idx: idx, dim: -1}
}
