package rank

import (
	"slices"

	"github.com/ringside-eval/ringside"
)

// One battle, one unit of evidence. When several judges vote on the same
// battle, their votes are several Battles with the same Unit, and a board
// counts the battle once: each vote gets 1/k of its weight, so the battle
// scores the share of its votes (a win ½ for a tie) for model a, and the
// bootstrap resamples battles, not votes. A battle's share is 1, 0 or ½ when
// its judges agree (or split evenly), which the cells count as a win, a loss
// or a tie as before; any other share (two votes for a and one for b: ⅔)
// counts as a tie in the cells, which keeps the win graph right (both
// models scored), plus a correction of the pair's score (share − ½) that the
// fit, the win rates and the bootstrap add back.

// unitIndex maps the Units of stored battles to the index of their first
// vote.
type unitIndex struct {
	first  map[int64]int32
	of     []int32 // per vote: the index of its unit's first vote, or -1
	shared int     // votes on a unit seen before
}

// add records vote i (between models a and b) on unit u. A unit's votes must
// be on the same two models.
func (u *unitIndex) add(unit int64, i, a, b int32, as, bs []int32) error {
	if unit == 0 {
		u.of = append(u.of, -1)
		return nil
	}
	if u.first == nil {
		u.first = map[int64]int32{}
	}
	f, ok := u.first[unit]
	if !ok {
		u.first[unit] = i
		u.of = append(u.of, i)
		return nil
	}
	if !(as[f] == a && bs[f] == b || as[f] == b && bs[f] == a) {
		return ringside.FieldError("battle_id", "battle %d was first voted on with other models", unit)
	}
	u.of = append(u.of, f)
	u.shared++
	return nil
}

// shareOf is outcome o's score for the battle's model a.
func shareOf(o uint8) float64 {
	switch o {
	case outA:
		return 1
	case outB:
		return 0
	}
	return 0.5
}

// eachBattle calls fn once per battle of the subset: i is a vote of it (the
// first), o its outcome as the cells count it, share the score of bs.a[i]
// when the battle's votes give a share other than 1, 0 or ½ (else -1), and
// w the battle's weight: the mean of its votes' weights by weight (nil:
// every vote weighs 1).
func (bs *Battles) eachBattle(s subset, weight func(int32) float64, fn func(i int32, o uint8, share, w float64)) {
	wt := func(i int32) float64 {
		if weight == nil {
			return 1
		}
		return weight(i)
	}
	if bs.units.shared == 0 && weight == nil {
		bs.each(s, func(i int32, o uint8) { fn(i, o, -1, 1) })
		return
	}
	if bs.units.shared == 0 {
		bs.each(s, func(i int32, o uint8) { fn(i, o, -1, weight(i)) })
		return
	}
	// Votes per unit in this subset: a judge or dimension selection may
	// leave one vote of a battle that had several.
	n := map[int32]int32{}
	bs.each(s, func(i int32, o uint8) {
		if f := bs.units.of[i]; f >= 0 {
			n[f]++
		}
	})
	sum, wsum := map[int32]float64{}, map[int32]float64{}
	bs.each(s, func(i int32, o uint8) {
		f := bs.units.of[i]
		if f < 0 || n[f] == 1 {
			fn(i, o, -1, wt(i))
			return
		}
		x := shareOf(o)
		if bs.a[i] != bs.a[f] {
			x = 1 - x // the same battle written the other way round
		}
		sum[f] += x
		wsum[f] += wt(i)
	})
	// Units in order of first vote, so that cells come out the same way
	// every time.
	firsts := make([]int32, 0, len(sum))
	for f := range sum {
		firsts = append(firsts, f)
	}
	slices.Sort(firsts)
	for _, f := range firsts {
		share, w := sum[f]/float64(n[f]), wsum[f]/float64(n[f])
		switch share {
		case 1:
			fn(f, outA, -1, w)
		case 0:
			fn(f, outB, -1, w)
		case 0.5:
			fn(f, outTie, -1, w)
		default:
			fn(f, outTie, share, w)
		}
	}
}

// votesIn counts the votes of a subset (with an outcome), where Battles
// counts battles.
func (bs *Battles) votesIn(s subset) int {
	n := 0
	bs.each(s, func(int32, uint8) { n++ })
	return n
}

// Units numbers battle ids (a battle file's battle_id, a report's battle), so
// that the votes of several judges on one battle share its unit as they do
// in the database (Battle.Unit).
type Units map[string]int64

// Of is the unit of a record's battle_id; 0 (a battle of its own) without one.
func (u Units) Of(id string) int64 {
	if id == "" {
		return 0
	}
	n, ok := u[id]
	if !ok {
		n = int64(len(u) + 1)
		u[id] = n
	}
	return n
}
