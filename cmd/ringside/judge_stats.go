package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/judge"
	"github.com/ringside-eval/ringside/leaderboard"
	"github.com/ringside-eval/ringside/store"
)

// judgeStats is what the automatic judges say about the models and about
// each other: pass rates over repeated samples per rules judge, agreement
// between every two judges, and each judge's taste for length and (LLM
// judges) for position. `rank` can add it to the leaderboard JSON as is.
type judgeStats struct {
	// Pass holds per-model pass statistics, keyed by rules judge label.
	Pass      map[string][]judge.PassStats `json:"pass"`
	Agreement []judge.Agreement            `json:"agreement"`
	Judges    []judgeBias                  `json:"judges"`
}

// judgeBias is one judge's length preference and, for an LLM judge, how its
// verdicts move when the order of the answers is swapped.
type judgeBias struct {
	Judge  string            `json:"judge"`
	Votes  int               `json:"votes"`
	Length judge.LengthStats `json:"length"`
	Order  *judge.OrderStats `json:"order,omitempty"`
}

// loadJudgeStats computes judgeStats over a run's battles (all battles
// when runID is ""). Human judges are pooled as "human": two people rarely
// vote on the same battle, but people and the automatic judges often do.
func loadJudgeStats(ctx context.Context, db *store.DB, runID string) (*judgeStats, error) {
	judges, err := db.Judges(ctx)
	if err != nil {
		return nil, err
	}
	votes, err := db.JudgedVotes(ctx, runID)
	if err != nil {
		return nil, err
	}
	pass, err := leaderboard.LoadPassStats(ctx, db, runID)
	if err != nil {
		return nil, err
	}
	if pass == nil {
		pass = map[string][]judge.PassStats{}
	}
	st := &judgeStats{Pass: pass, Agreement: judge.Agreements(judgeVotes(votes))}
	for _, j := range judges {
		if j.Kind == ringside.JudgeHuman {
			continue // pooled below
		}
		b := judgeBias{Judge: j.Label()}
		var lv []judge.LengthVote
		for _, v := range votes {
			if v.JudgeID == j.ID {
				b.Votes++
				if v.LenA >= 0 && v.LenB >= 0 {
					lv = append(lv, judge.LengthVote{Winner: v.Winner, LenA: v.LenA, LenB: v.LenB})
				}
			}
		}
		b.Length = judge.LengthPreference(lv)
		if j.Kind == ringside.JudgeLLM {
			labels, err := db.LLMOrderLabels(ctx, j.ID, runID)
			if err != nil {
				return nil, err
			}
			o := judge.OrderConsistency(orderVerdicts(labels))
			b.Order = &o
		}
		if b.Votes > 0 {
			st.Judges = append(st.Judges, b)
		}
	}
	human := judgeBias{Judge: ringside.JudgeHuman}
	var lv []judge.LengthVote
	for _, v := range votes {
		if v.JudgeKind == ringside.JudgeHuman {
			human.Votes++
			if v.LenA >= 0 && v.LenB >= 0 {
				lv = append(lv, judge.LengthVote{Winner: v.Winner, LenA: v.LenA, LenB: v.LenB})
			}
		}
	}
	if human.Votes > 0 {
		human.Length = judge.LengthPreference(lv)
		st.Judges = append(st.Judges, human)
	}
	return st, nil
}

// judgeVotes names each vote's judge for agreement: its label, or "human"
// for every person.
func judgeVotes(rows []store.JudgedVote) []judge.JudgeVote {
	out := make([]judge.JudgeVote, len(rows))
	for i := range rows {
		name := rows[i].JudgeLabel()
		if rows[i].JudgeKind == ringside.JudgeHuman {
			name = ringside.JudgeHuman
		}
		out[i] = judge.JudgeVote{BattleID: rows[i].BattleID, Judge: name, Winner: rows[i].Winner}
	}
	return out
}

func orderVerdicts(rows []store.OrderLabels) []judge.OrderVerdicts {
	out := make([]judge.OrderVerdicts, len(rows))
	for i, r := range rows {
		out[i] = judge.OrderVerdicts{First: judge.Label(r.First), Swapped: judge.Label(r.Swapped)}
	}
	return out
}

func (st *judgeStats) write(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	labels := make([]string, 0, len(st.Pass))
	for l := range st.Pass {
		labels = append(labels, l)
	}
	slices.Sort(labels)
	for _, l := range labels {
		fmt.Fprintf(tw, "\npass rates (%s)\nmodel\tprompts\tk\tpass rate\tpass^k\tpass@k\tmean score\tworst score\tspread\n", l)
		uneven := false
		for _, p := range st.Pass[l] {
			k := fmt.Sprint(p.K)
			if p.UnevenK {
				k += "*"
				uneven = true
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\n", p.Model, p.Prompts, k,
				p.PassRate, p.PassAllK, p.PassAtK, p.MeanScore, p.WorstScore, p.Spread)
		}
		if uneven {
			// Flushed first: the note is not a row of the table.
			tw.Flush()
			fmt.Fprint(w, "* some prompts have fewer than k samples; their pass^k and pass@k are over the samples they have\n")
		}
	}
	if len(st.Agreement) > 0 {
		fmt.Fprint(tw, "\nagreement between judges\njudge\tjudge\tbattles\tagreement\tkappa\tboth decisive\tdecisive agreement\n")
		for _, a := range st.Agreement {
			kappa := "-"
			if a.Kappa != nil {
				kappa = fmt.Sprintf("%.3f", *a.Kappa)
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%.3f\t%s\t%d\t%.3f\n", a.JudgeA, a.JudgeB, a.Battles, a.Rate, kappa, a.Decisive, a.DecisiveRate)
		}
	}
	if len(st.Judges) > 0 {
		fmt.Fprint(tw, "\njudges\njudge\tvotes\tpicks longer\tflip when swapped\tpicks first shown\n")
		for _, b := range st.Judges {
			flip, first := "-", "-"
			if b.Order != nil && b.Order.Battles > 0 {
				flip = fmt.Sprintf("%.3f of %d", b.Order.FlipRate, b.Order.Battles)
				first = fmt.Sprintf("%.3f", b.Order.FirstShownRate)
			}
			fmt.Fprintf(tw, "%s\t%d\t%.3f of %d\t%s\t%s\n", b.Judge, b.Votes, b.Length.Rate, b.Length.Decisive, flip, first)
		}
	}
	tw.Flush()
}
