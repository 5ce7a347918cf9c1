package rank

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Write renders the comparison in one of Formats.
func (c *Comparison) Write(w io.Writer, format string) error {
	switch format {
	case "json":
		return writeJSON(w, c)
	case "csv":
		cw := csv.NewWriter(w)
		_ = cw.Write([]string{"slice", "battles", "baseline_rating", "candidate_rating", "difference", "ci_low", "ci_high",
			"verdict", "h2h_battles", "candidate_wins", "baseline_wins", "ties", "note"})
		for _, d := range append([]Difference{c.Overall}, c.Slices...) {
			h := d.HeadToHead
			_ = cw.Write([]string{d.Slice, strconv.Itoa(d.Battles), optNum(d.BaselineRating, "%.4f"),
				optNum(d.CandidateRating, "%.4f"), optNum(d.Difference, "%.4f"), optNum(d.CILow, "%.4f"),
				optNum(d.CIHigh, "%.4f"), d.Verdict, strconv.Itoa(h.Battles), strconv.Itoa(h.CandidateWins),
				strconv.Itoa(h.BaselineWins), strconv.Itoa(h.Ties), d.Note})
		}
		cw.Flush()
		return cw.Error()
	case "table", "md":
		var b strings.Builder
		m := Leaderboard{Method: c.Method, Battles: c.Overall.Battles}
		fmt.Fprintf(&b, "%s vs baseline %s, margin %s rating points\n", c.Candidate, c.Baseline, num(c.Margin, 1))
		if format == "md" {
			b.WriteString("\n")
		}
		b.WriteString(m.summary() + "\n")
		if format == "md" {
			b.WriteString("\n")
		}
		head := []string{"Slice", "Battles", "Baseline", "Candidate", "Difference", "95% CI", "Verdict", "Head-to-head W-L-T"}
		right := []bool{false, true, true, true, true, false, false, true}
		var rows [][]string
		for _, d := range append([]Difference{c.Overall}, c.Slices...) {
			name := d.Slice
			if name == "" {
				name = "overall"
			} else if c.By != "" {
				name = c.By + ": " + name
			}
			h := d.HeadToHead
			ci := "-"
			if d.Difference != nil {
				ci = ciText(d.CILow, d.CIHigh, c.Method.Interval)
			}
			rows = append(rows, []string{name, strconv.Itoa(d.Battles), optNum(d.BaselineRating, "%.1f"),
				optNum(d.CandidateRating, "%.1f"), optNum(d.Difference, "%+.1f"), ci, d.Verdict,
				fmt.Sprintf("%d-%d-%d", h.CandidateWins, h.BaselineWins, h.Ties)})
		}
		writeTable(&b, head, right, rows, format == "md")
		for _, d := range append([]Difference{c.Overall}, c.Slices...) {
			if d.Note != "" {
				name := "overall"
				if d.Slice != "" && c.By != "" {
					name = c.By + ": " + d.Slice
				} else if d.Slice != "" {
					name = d.Slice
				}
				fmt.Fprintf(&b, "Note (%s): %s\n", name, d.Note)
			}
		}
		_, err := io.WriteString(w, b.String())
		return err
	}
	return badFormat(format)
}
