package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ringside-eval/ringside/rank"
)

// summary prints the run's per-model table over everything it has stored,
// not only this invocation's share, so a resumed run ends with the whole
// picture. planned is the generations this invocation covers: when the
// run holds more (an earlier invocation asked for more samples or
// models), the table says so, rather than contradict the headline.
func (h *runHandle) summary(ctx context.Context, m *Main, planned int) error {
	gens, err := h.db.RunGenerationStats(ctx, h.run.ID)
	if err != nil {
		return err
	}
	sums := rank.SummarizeRun(gens)
	stored := 0
	for _, s := range sums {
		stored += s.Generations
	}
	if stored > planned {
		fmt.Fprintf(m.Stdout, "run %q holds %d generations in all (earlier invocations asked for more samples or models than this one's %d); the table covers them all:\n",
			h.run.Name, stored, planned)
	}
	writeSummary(m.Stdout, sums)
	failed := 0
	for _, s := range sums {
		failed += s.ErrorCount
	}
	if failed > 0 {
		fmt.Fprintf(m.Stdout, "%d failed generations are kept as results (they count in error rates; their battles are not judged); --retry-errors tries them again\n", failed)
	}
	return nil
}

// writeSummary prints one row per model: generations, errors by kind,
// TTFT and total latency p50/p95 (successful generations only), tokens
// and cost.
func writeSummary(w io.Writer, sums []rank.ModelSummary) {
	// Numbers align right; the model column is padded by hand so that it
	// reads left-aligned in a right-aligning table.
	width := len("model")
	for _, s := range sums {
		width = max(width, len(s.Model))
	}
	left := func(s string) string { return fmt.Sprintf("%-*s", width, s) }
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, left("model")+"\tgenerations\terrors\tTTFT p50\tTTFT p95\ttotal p50\ttotal p95\ttokens in\ttokens out\tcost\t")
	estimated := false
	var tot rank.ModelSummary
	for _, s := range sums {
		mark := ""
		if s.Estimated > 0 {
			mark, estimated = "~", true
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s%d\t%s%d\t%s\t\n", left(s.Model), s.Generations, errorsText(s),
			msText(s.TTFTP50), msText(s.TTFTP95), msText(s.LatencyP50), msText(s.LatencyP95),
			mark, s.TokensIn, mark, s.TokensOut, costText(s.CostUSD))
		tot.Generations += s.Generations
		tot.ErrorCount += s.ErrorCount
		tot.TokensIn += s.TokensIn
		tot.TokensOut += s.TokensOut
		tot.CostUSD += s.CostUSD
	}
	if len(sums) > 1 {
		fmt.Fprintf(tw, "%s\t%d\t%d\t\t\t\t\t%d\t%d\t%s\t\n", left("all"), tot.Generations, tot.ErrorCount, tot.TokensIn, tot.TokensOut, costText(tot.CostUSD))
	}
	tw.Flush()
	if estimated {
		fmt.Fprintln(w, "~ some token counts are estimates: the server sent no usage")
	}
}

// errorsText is the error count with its kinds, most frequent first.
func errorsText(s rank.ModelSummary) string {
	if s.ErrorCount == 0 {
		return "0"
	}
	kinds := make([]string, 0, len(s.Errors))
	for k := range s.Errors {
		kinds = append(kinds, k)
	}
	slices.SortFunc(kinds, func(a, b string) int {
		if s.Errors[a] != s.Errors[b] {
			return s.Errors[b] - s.Errors[a]
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%s %d", k, s.Errors[k])
	}
	return fmt.Sprintf("%d (%s)", s.ErrorCount, strings.Join(parts, ", "))
}

func msText(ms float64) string {
	if math.IsNaN(ms) {
		return "-"
	}
	d := time.Duration(ms * float64(time.Millisecond))
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(10 * time.Millisecond).String()
}

func costText(usd float64) string {
	if usd >= 1 {
		return fmt.Sprintf("$%.2f", usd)
	}
	return fmt.Sprintf("$%.4f", usd)
}
