package rank

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/ringside-eval/ringside"
)

// Formats Write accepts.
var Formats = []string{"table", "json", "csv", "md"}

func badFormat(format string) error {
	return ringside.FieldError("format", "%q is not one of %s", format, strings.Join(Formats, ", "))
}

// Write renders the leaderboard: "table" (aligned for a terminal), "json"
// (the shape of docs/formats.md, indented), "csv" (one row per model and
// slice; the matrix is left out) or "md".
func (lb *Leaderboard) Write(w io.Writer, format string) error {
	switch format {
	case "json":
		return writeJSON(w, lb)
	case "csv":
		return lb.writeCSV(w)
	case "table", "md":
		var b strings.Builder
		lb.render(&b, format == "md", "")
		_, err := io.WriteString(w, b.String())
		return err
	}
	return badFormat(format)
}

func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// perfColumn is an optional column filled from Perf.
type perfColumn struct {
	head string
	get  func(*Perf) *float64
	fmt  string
}

var perfColumns = []perfColumn{
	{"TTFT p50 ms", func(p *Perf) *float64 { return p.TTFTP50Ms }, "%.0f"},
	{"TTFT p95 ms", func(p *Perf) *float64 { return p.TTFTP95Ms }, "%.0f"},
	{"Latency p50 ms", func(p *Perf) *float64 { return p.LatencyP50Ms }, "%.0f"},
	{"Latency p95 ms", func(p *Perf) *float64 { return p.LatencyP95Ms }, "%.0f"},
	{"Tokens/s", func(p *Perf) *float64 { return p.OutputTokensPerS }, "%.1f"},
	{"$/battle", func(p *Perf) *float64 { return p.CostPerBattleUSD }, "%.5f"},
	{"$/1k responses", func(p *Perf) *float64 { return p.CostPer1kResponsesUSD }, "%.3f"},
	{"Errors", func(p *Perf) *float64 { return p.ErrorRate }, "pct"},
}

var csvPerfNames = []string{
	"ttft_p50_ms", "ttft_p95_ms", "latency_p50_ms", "latency_p95_ms", "output_tokens_per_s",
	"cost_per_battle_usd", "cost_per_1k_responses_usd", "error_rate",
}

// present lists the optional columns some model of the leaderboard fills:
// Elo first, then the Perf columns by index.
func (lb *Leaderboard) present() (elo bool, perf []int) {
	perfs := []*Perf{}
	for _, m := range lb.Models {
		elo = elo || m.Elo != nil
		perfs = append(perfs, m.Perf)
	}
	for _, m := range lb.Flagged {
		elo = elo || m.Elo != nil
		perfs = append(perfs, m.Perf)
	}
	for c, col := range perfColumns {
		for _, p := range perfs {
			if p != nil && col.get(p) != nil {
				perf = append(perf, c)
				break
			}
		}
	}
	return elo, perf
}

func (lb *Leaderboard) summary() string {
	m := lb.Method
	s := fmt.Sprintf("Bradley-Terry, %d battles, ", lb.Battles)
	if m.Judges != "" {
		s += judgesText(lb) + ", "
	}
	switch m.Interval {
	case IntervalBootstrap:
		s += fmt.Sprintf("95%% CI by bootstrap (%d rounds, seed %d), ", m.BootstrapRounds, m.Seed)
	case IntervalSandwich:
		s += "95% CI by sandwich standard errors, "
	default:
		s += "no intervals, "
	}
	if len(m.Controls) > 0 {
		s += "controlled for " + strings.Join(m.Controls, ", ") + ", "
	}
	if m.Weighting != "" {
		s += "votes weighted by inverse propensity, "
	}
	if m.Anchor != nil {
		return s + fmt.Sprintf("anchor %s = %s", m.Anchor.Model, num(m.Anchor.Rating, 1))
	}
	return s + "mean 1000"
}

// render writes the table or Markdown form, slices after the whole.
func (lb *Leaderboard) render(b *strings.Builder, md bool, title string) {
	if title != "" {
		if md {
			fmt.Fprintf(b, "\n### %s\n\n", title)
		} else {
			fmt.Fprintf(b, "\n== %s ==\n", title)
		}
	}
	if md {
		b.WriteString(lb.summary() + "\n\n")
	} else {
		b.WriteString(lb.summary() + "\n")
	}
	opt := lb.optionalColumns()
	ctrlHead, ctrlRight := lb.controlColumns()
	head := append(append([]string{"Rank", "Model", "Rating", "95% CI", "Battles", "Wins", "Losses", "Ties", "Win rate"}, ctrlHead...), opt.head...)
	right := append(append([]bool{true, false, true, false, true, true, true, true, true}, ctrlRight...), opt.right...)
	var rows [][]string
	for _, m := range lb.Models {
		row := []string{strconv.Itoa(m.Rank), m.Model, num(m.Rating, 1), ciText(m.CILow, m.CIHigh, lb.Method.Interval),
			strconv.Itoa(m.Battles), strconv.Itoa(m.Wins), strconv.Itoa(m.Losses), strconv.Itoa(m.Ties), pct(m.WinRate)}
		row = append(row, controlCells(&m, ctrlHead != nil)...)
		rows = append(rows, append(row, opt.cells(m.Elo, m.Perf)...))
	}
	writeTable(b, head, right, rows, md)
	lb.renderCoefficients(b, md)
	if len(lb.Flagged) > 0 {
		lb.renderFlagged(b, md, opt)
	}
	if lb.Matrix != nil {
		lb.Matrix.render(b, md)
	}
	for _, n := range lb.Notes {
		if md {
			fmt.Fprintf(b, "\n> Note: %s\n", n)
		} else {
			fmt.Fprintf(b, "Note: %s\n", n)
		}
	}
	for _, key := range lb.sliceKeys() {
		lb.Slices[key].render(b, md, lb.By+": "+key)
	}
}

// optColumns are the optional columns a table shows (see present), shared
// by the rated and the flagged models' tables.
type optColumns struct {
	head  []string
	right []bool
	cells func(elo *float64, p *Perf) []string
}

func (lb *Leaderboard) optionalColumns() optColumns {
	elo, perf := lb.present()
	var oc optColumns
	if elo {
		oc.head, oc.right = append(oc.head, "Elo"), append(oc.right, true)
	}
	for _, c := range perf {
		oc.head, oc.right = append(oc.head, perfColumns[c].head), append(oc.right, true)
	}
	oc.cells = func(e *float64, p *Perf) []string {
		var cells []string
		if elo {
			cells = append(cells, optNum(e, "%.1f"))
		}
		for _, c := range perf {
			var v *float64
			if p != nil {
				v = perfColumns[c].get(p)
			}
			cells = append(cells, optNum(v, perfColumns[c].fmt))
		}
		return cells
	}
	return oc
}

// renderFlagged writes the table of the models left unrated, then what
// each of their reasons means.
func (lb *Leaderboard) renderFlagged(b *strings.Builder, md bool, opt optColumns) {
	if md {
		b.WriteString("\n**Not rated** (no finite maximum-likelihood rating)\n\n")
	} else {
		b.WriteString("\nNot rated (no finite maximum-likelihood rating):\n")
	}
	head := append([]string{"Model", "Reason", "Battles", "Wins", "Losses", "Ties", "Win rate"}, opt.head...)
	right := append([]bool{false, false, true, true, true, true, true}, opt.right...)
	var rows [][]string
	reasons := map[string]bool{}
	for _, m := range lb.Flagged {
		reasons[m.Reason] = true
		row := []string{m.Model, m.Reason, strconv.Itoa(m.Battles), strconv.Itoa(m.Wins), strconv.Itoa(m.Losses),
			strconv.Itoa(m.Ties), pct(m.WinRate)}
		rows = append(rows, append(row, opt.cells(m.Elo, m.Perf)...))
	}
	writeTable(b, head, right, rows, md)
	var keys []string
	for r := range reasons {
		keys = append(keys, r)
	}
	sort.Slice(keys, func(x, y int) bool { return flagOrder[keys[x]] < flagOrder[keys[y]] })
	if md {
		b.WriteString("\n")
	}
	for _, r := range keys {
		if md {
			fmt.Fprintf(b, "- %s: %s\n", r, flagDetails[r])
		} else {
			fmt.Fprintf(b, "  %s: %s\n", r, flagDetails[r])
		}
	}
}

func (lb *Leaderboard) sliceKeys() []string {
	keys := make([]string, 0, len(lb.Slices))
	for k := range lb.Slices {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (mx *Matrix) render(b *strings.Builder, md bool) {
	if md {
		b.WriteString("\n**Pairwise** (row's win rate against column, battles in parentheses)\n\n")
	} else {
		b.WriteString("\nPairwise (row's win rate against column, battles in parentheses):\n")
	}
	head := append([]string{""}, mx.Models...)
	right := make([]bool, len(head))
	var rows [][]string
	for r, name := range mx.Models {
		row := []string{name}
		for c := range mx.Models {
			right[c+1] = true
			switch {
			case r == c:
				row = append(row, "")
			case mx.WinRate[r][c] == nil:
				row = append(row, "-")
			default:
				row = append(row, fmt.Sprintf("%s (%d)", pct(*mx.WinRate[r][c]), mx.Battles[r][c]))
			}
		}
		rows = append(rows, row)
	}
	writeTable(b, head, right, rows, md)
}

// writeTable aligns columns with spaces, or writes a Markdown table.
func writeTable(b *strings.Builder, head []string, right []bool, rows [][]string, md bool) {
	if md {
		esc := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
		line := func(cells []string) {
			b.WriteString("|")
			for _, c := range cells {
				b.WriteString(" " + esc(c) + " |")
			}
			b.WriteString("\n")
		}
		line(head)
		b.WriteString("|")
		for _, r := range right {
			if r {
				b.WriteString("---:|")
			} else {
				b.WriteString("---|")
			}
		}
		b.WriteString("\n")
		for _, row := range rows {
			line(row)
		}
		return
	}
	width := make([]int, len(head))
	for _, row := range append([][]string{head}, rows...) {
		for c, cell := range row {
			width[c] = max(width[c], len([]rune(cell)))
		}
	}
	for _, row := range append([][]string{head}, rows...) {
		var line strings.Builder
		for c, cell := range row {
			pad := strings.Repeat(" ", width[c]-len([]rune(cell)))
			if c > 0 {
				line.WriteString("  ")
			}
			if right[c] {
				line.WriteString(pad + cell)
			} else {
				line.WriteString(cell + pad)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
}

func (lb *Leaderboard) writeCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	elo, perf := lb.present()
	for _, key := range lb.sliceKeys() {
		e, p := lb.Slices[key].present()
		elo = elo || e
		perf = mergeInts(perf, p)
	}
	head := []string{"slice", "rank", "model", "rating", "ci_low", "ci_high", "battles", "wins", "losses", "ties", "win_rate"}
	ctrl := lb.anyControlled()
	if ctrl {
		head = append(head, "uncontrolled_rating", "uncontrolled_rank")
	}
	if elo {
		head = append(head, "elo")
	}
	for _, c := range perf {
		head = append(head, csvPerfNames[c])
	}
	head = append(head, "flag")
	if err := cw.Write(head); err != nil {
		return err
	}
	opt := func(v *float64, prec int) string {
		if v == nil {
			return ""
		}
		return num(*v, prec)
	}
	tail := func(e *float64, p *Perf) []string {
		var cells []string
		if elo {
			cells = append(cells, opt(e, 4))
		}
		for _, c := range perf {
			var v *float64
			if p != nil {
				v = perfColumns[c].get(p)
			}
			cells = append(cells, opt(v, 6))
		}
		return cells
	}
	write := func(slice string, l *Leaderboard) error {
		for _, m := range l.Models {
			row := []string{slice, strconv.Itoa(m.Rank), m.Model, num(m.Rating, 4), opt(m.CILow, 4), opt(m.CIHigh, 4),
				strconv.Itoa(m.Battles), strconv.Itoa(m.Wins), strconv.Itoa(m.Losses), strconv.Itoa(m.Ties), num(m.WinRate, 6)}
			if ctrl {
				row = append(row, csvControlCells(&m)...)
			}
			if err := cw.Write(append(append(row, tail(m.Elo, m.Perf)...), "")); err != nil {
				return err
			}
		}
		for _, m := range l.Flagged {
			row := []string{slice, "", m.Model, "", "", "",
				strconv.Itoa(m.Battles), strconv.Itoa(m.Wins), strconv.Itoa(m.Losses), strconv.Itoa(m.Ties), num(m.WinRate, 6)}
			if ctrl {
				row = append(row, "", "")
			}
			if err := cw.Write(append(append(row, tail(m.Elo, m.Perf)...), m.Reason)); err != nil {
				return err
			}
		}
		return nil
	}
	if err := write("", lb); err != nil {
		return err
	}
	for _, key := range lb.sliceKeys() {
		if err := write(key, lb.Slices[key]); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func ciText(lo, hi *float64, interval string) string {
	if interval == IntervalNone || interval == "" {
		return "-"
	}
	l, h := "-inf", "+inf"
	if lo != nil {
		l = num(*lo, 1)
	}
	if hi != nil {
		h = num(*hi, 1)
	}
	return "[" + l + ", " + h + "]"
}

// num formats with fixed decimals, never "-0.0".
func num(x float64, prec int) string {
	s := strconv.FormatFloat(x, 'f', prec, 64)
	if strings.Trim(s, "-0.") == "" {
		s = strings.TrimPrefix(s, "-")
	}
	return s
}

func pct(x float64) string { return num(100*x, 1) + "%" }

func optNum(v *float64, format string) string {
	switch {
	case v == nil || math.IsNaN(*v):
		return "-"
	case format == "pct":
		return pct(*v)
	}
	s := fmt.Sprintf(format, *v)
	if strings.Trim(s, "+-0.") == "" {
		s = strings.TrimLeft(s, "+-")
	}
	return s
}

func mergeInts(a, b []int) []int {
	seen := map[int]bool{}
	for _, x := range a {
		seen[x] = true
	}
	for _, x := range b {
		if !seen[x] {
			a = append(a, x)
		}
	}
	sort.Ints(a)
	return a
}
