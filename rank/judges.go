package rank

import (
	"fmt"
	"strings"

	"github.com/ringside-eval/ringside"
)

// Judge selections (Options.Judges). Human and automatic judges are
// different evidence, so a board counts one or the other unless asked for
// both: by default the human votes when there are any, else the automatic
// ones (all of them when the board is sliced by judge). A vote is automatic when its judge is of kind rules or llm; any
// other judge (a person, or a third-party file's judge) is human.
const (
	JudgesHuman = "human"
	JudgesAuto  = "auto"
	JudgesAll   = "all"
)

// ValidateJudges checks a --judges value: human, auto, all, or a
// comma-separated list of judge labels or names.
func ValidateJudges(s string) error {
	if strings.TrimSpace(s) != s || strings.Contains(s, ",,") || strings.HasPrefix(s, ",") || strings.HasSuffix(s, ",") {
		return ringside.FieldError("judges", "%q: want human, auto, all or NAME[,NAME]", s)
	}
	return nil
}

func autoKind(kind string) bool { return kind == ringside.JudgeRules || kind == ringside.JudgeLLM }

// selectJudges keeps the votes of sub that opts.Judges selects and that
// opts.ExcludeJudges does not leave out. It returns the selection's name for
// Method.Judges, and how many selected votes the exclusion left out.
func (bs *Battles) selectJudges(sub subset, opts *Options) (subset, string, int) {
	excluded := make([]bool, len(bs.judges.list))
	for _, j := range opts.ExcludeJudges {
		if id, ok := bs.judges.ids[j]; ok {
			excluded[id] = true
		}
	}
	sel := opts.Judges
	if sel == "" && (opts.By == ByJudge || opts.By == ByJudgeKind) {
		sel = JudgesAll // slicing by judge is how judges are compared
	}
	if sel == "" {
		sel = JudgesAuto
		for _, i := range sub.idx {
			if !excluded[bs.judge[i]] && !autoKind(bs.jkinds.list[bs.jkind[i]]) {
				sel = JudgesHuman
				break
			}
		}
	}
	keep := make([]bool, len(bs.judges.list))
	switch sel {
	case JudgesAll:
		for id := range keep {
			keep[id] = true
		}
	case JudgesHuman, JudgesAuto:
		for id := range keep {
			kind := ""
			if id < len(bs.jkindOf) {
				kind = bs.jkinds.list[bs.jkindOf[id]]
			}
			keep[id] = autoKind(kind) == (sel == JudgesAuto)
		}
	default:
		// Labels ("human:ana") or bare names ("ana"), so that a person need
		// not know the judge kinds.
		want := map[string]bool{}
		for _, n := range strings.Split(sel, ",") {
			want[n] = true
		}
		for id, label := range bs.judges.list {
			_, name, _ := strings.Cut(label, ":")
			keep[id] = want[label] || name != "" && want[name]
		}
	}
	out := subset{dim: sub.dim, idx: make([]int32, 0, len(sub.idx))}
	left := 0
	for _, i := range sub.idx {
		j := bs.judge[i]
		switch {
		case !keep[j]:
		case excluded[j]:
			left++
		default:
			out.idx = append(out.idx, i)
		}
	}
	return out, sel, left
}

// judgesText says whose votes a board counts and what it left out, for the
// table and Markdown summaries.
func judgesText(lb *Leaderboard) string {
	s := fmt.Sprintf("%d votes of judges: %s", lb.CountedVotes, lb.Method.Judges)
	if lb.ExcludedVotes > 0 {
		s += fmt.Sprintf(" (%d votes of %d excluded judges left out)", lb.ExcludedVotes, len(lb.ExcludedJudges))
	}
	return s
}
