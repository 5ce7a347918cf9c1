package rank

import (
	"fmt"
	"sort"
)

// Slicings (Options.By): each value of the attribute gets a leaderboard of
// its own. "judge" is the judge label, "judge_kind" its kind (human, rules,
// llm); "tag" puts a battle in the slice of each of its tags; "dimension"
// ranks each voted dimension by that dimension's winners.
const (
	ByCategory  = "category"
	ByKind      = "kind"
	ByJudge     = "judge"
	ByJudgeKind = "judge_kind"
	ByTag       = "tag"
	ByDimension = "dimension"
)

// SliceBy lists the values Options.By accepts.
var SliceBy = []string{ByCategory, ByKind, ByJudge, ByJudgeKind, ByTag, ByDimension}

func validBy(by string) bool {
	for _, b := range SliceBy {
		if b == by {
			return true
		}
	}
	return false
}

// slicing is the subsets of one slicing, keys in order.
type slicing struct {
	keys    []string
	subs    []subset
	missing int // battles in no slice (the attribute is empty)
}

func (s *slicing) note(by string) string {
	return fmt.Sprintf("%d battles have no %s and are in no slice", s.missing, by)
}

// slicesOf splits a subset by an attribute.
func (bs *Battles) slicesOf(sub subset, by string) *slicing {
	out := &slicing{}
	groups := map[int32][]int32{}
	var table *names
	attr := func(col []int32) {
		for _, i := range sub.idx {
			if id := col[i]; id == 0 {
				out.missing++
			} else {
				groups[id] = append(groups[id], i)
			}
		}
	}
	switch by {
	case ByCategory:
		table = &bs.cats
		attr(bs.cat)
	case ByKind:
		table = &bs.kinds
		attr(bs.kind)
	case ByJudge:
		table = &bs.judges
		attr(bs.judge)
	case ByJudgeKind:
		table = &bs.jkinds
		attr(bs.jkind)
	case ByTag, ByDimension:
		off, ids := bs.tagOff, bs.tagIDs
		table = &bs.tagNames
		if by == ByDimension {
			off, ids, table = bs.dimOff, bs.dimIDs, &bs.dimNames
		}
		for _, i := range sub.idx {
			if off[i] == off[i+1] {
				out.missing++
			}
			for k := off[i]; k < off[i+1]; k++ {
				groups[ids[k]] = append(groups[ids[k]], i)
			}
		}
	}
	type entry struct {
		key string
		id  int32
	}
	var entries []entry
	for id := range groups {
		entries = append(entries, entry{table.list[id], id})
	}
	sort.Slice(entries, func(x, y int) bool { return entries[x].key < entries[y].key })
	for _, e := range entries {
		dim := int32(-1)
		if by == ByDimension {
			dim = e.id
		}
		out.keys = append(out.keys, e.key)
		out.subs = append(out.subs, subset{idx: groups[e.id], dim: dim})
	}
	return out
}
