package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/arena"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"
)

// progress shows work going: bars on a terminal, log lines otherwise. Its
// caller reports one item at a time, so it needs no lock of its own.
type progress interface {
	// add counts one item of a group done; failed ones are counted apart.
	add(group string, failed bool)
	// note prints a line of news among the progress.
	note(text string)
	// stop ends the display; bars left incomplete (an interrupted run, a
	// benched model) are cut where they stand.
	stop()
}

// progressSpec is what a progress display counts: total items (the noun
// says of what), and per group the items of that group, each group a bar
// of its own on a terminal.
type progressSpec struct {
	// label starts every log line: "run nightly", "judge gpt".
	label  string
	noun   string
	total  int
	groups map[string]int
}

// isTerminal reports whether w is a terminal, where redrawn bars belong;
// anywhere else they would fill a log with carriage returns. A terminal
// with no width (some CI pseudo-terminals) cannot draw bars either.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return false
	}
	width, _, err := term.GetSize(int(f.Fd()))
	return err == nil && width > 0
}

func startProgress(w io.Writer, tty bool, spec progressSpec) progress {
	if tty {
		return newBarProgress(w, spec)
	}
	return &logProgress{w: w, label: spec.label, noun: spec.noun, total: spec.total, start: time.Now(), last: time.Now()}
}

// runProgress shows a run's generations, a bar per model.
type runProgress struct{ progress }

func newProgress(w io.Writer, tty bool, name string, plan *arena.Plan) runProgress {
	return runProgress{startProgress(w, tty, progressSpec{label: "run " + name, noun: "generations",
		total: plan.Generations, groups: plan.PerModel})}
}

func (r runProgress) generation(g *ringside.Generation) { r.add(g.Model, g.Failed()) }

func (r runProgress) notice(n arena.Notice) { r.note(noticeText(n)) }

// barProgress is one bar for the whole (count, rate, ETA) above one bar per
// group (its count and failures).
type barProgress struct {
	p      *mpb.Progress
	total  *mpb.Bar
	groups map[string]*mpb.Bar
	// Failure counts are atomic: mpb's goroutine reads them to draw while
	// the caller adds to them. The map itself is filled before the first
	// bar is drawn and never changes.
	failures map[string]*atomic.Int64
	all      atomic.Int64
	last     time.Time
}

func newBarProgress(w io.Writer, spec progressSpec) *barProgress {
	b := &barProgress{
		p:      mpb.New(mpb.WithOutput(w), mpb.WithWidth(32), mpb.WithRefreshRate(150*time.Millisecond)),
		groups: map[string]*mpb.Bar{}, failures: map[string]*atomic.Int64{}, last: time.Now(),
	}
	names := make([]string, 0, len(spec.groups))
	width := len(spec.noun)
	for g := range spec.groups {
		names = append(names, g)
		b.failures[g] = &atomic.Int64{}
		width = max(width, len(g))
	}
	slices.Sort(names)
	b.total = b.p.AddBar(int64(spec.total),
		mpb.PrependDecorators(
			decor.Name(spec.noun, decor.WC{W: width + 1, C: decor.DindentRight}),
			decor.CountersNoUnit("%d / %d", decor.WCSyncWidth),
		),
		mpb.AppendDecorators(
			decor.Percentage(decor.WC{W: 5}),
			decor.EwmaSpeed(nil, " %.1f/s", 30),
			decor.Name(" ETA "),
			decor.EwmaETA(decor.ET_STYLE_GO, 30),
			decor.Any(func(decor.Statistics) string { return failed(b.all.Load()) }),
		),
	)
	for _, g := range names {
		b.groups[g] = b.p.AddBar(int64(spec.groups[g]),
			mpb.PrependDecorators(
				decor.Name(g, decor.WC{W: width + 1, C: decor.DindentRight}),
				decor.CountersNoUnit("%d / %d", decor.WCSyncWidth),
			),
			mpb.AppendDecorators(decor.Any(func(decor.Statistics) string { return failed(b.failures[g].Load()) })),
		)
	}
	return b
}

// failed is the failure count a bar shows.
func failed(n int64) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("  %d failed", n)
}

func (b *barProgress) add(group string, fail bool) {
	if fail {
		if n := b.failures[group]; n != nil {
			n.Add(1)
		}
		b.all.Add(1)
	}
	now := time.Now()
	b.total.EwmaIncrement(now.Sub(b.last))
	b.last = now
	if bar := b.groups[group]; bar != nil {
		bar.Increment()
	}
}

func (b *barProgress) note(text string) { fmt.Fprintln(b.p, text) }

func (b *barProgress) stop() {
	for _, bar := range append([]*mpb.Bar{b.total}, mapValues(b.groups)...) {
		if !bar.Completed() {
			bar.Abort(false)
		}
	}
	b.p.Wait()
}

func mapValues(m map[string]*mpb.Bar) []*mpb.Bar {
	out := make([]*mpb.Bar, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// logProgress prints a line at every tenth of the work and at least every
// ten seconds, which a log can hold.
type logProgress struct {
	w           io.Writer
	label, noun string
	total, done int
	failures    int
	start, last time.Time
	tenth       int
}

func (l *logProgress) add(_ string, fail bool) {
	l.done++
	if fail {
		l.failures++
	}
	now := time.Now()
	tenth := 0
	if l.total > 0 {
		tenth = l.done * 10 / l.total
	}
	if tenth == l.tenth && now.Sub(l.last) < 10*time.Second {
		return
	}
	l.tenth, l.last = tenth, now
	elapsed := now.Sub(l.start)
	rate := float64(l.done) / max(elapsed.Seconds(), 1e-9)
	line := fmt.Sprintf("%s: %d/%d %s (%d%%), %d failed, %.1f/s", l.label, l.done, l.total, l.noun, l.done*100/max(l.total, 1), l.failures, rate)
	if left := l.total - l.done; left > 0 && rate > 0 {
		line += ", ETA " + time.Duration(float64(left)/rate*float64(time.Second)).Round(time.Second).String()
	}
	fmt.Fprintln(l.w, line)
}

func (l *logProgress) note(text string) { fmt.Fprintf(l.w, "%s: %s\n", l.label, text) }

func (l *logProgress) stop() {}

// noticeText says what the breaker did and why, without the model's output.
func noticeText(n arena.Notice) string {
	why := ""
	if n.Err != nil {
		why = " (last: " + clipLine(n.Err.Error(), 120) + ")"
	}
	if n.Benched && ringside.OperatorError(ringside.GenerationErrorKind(n.Err)) {
		return fmt.Sprintf("model %s cannot be used%s: no more requests to it in this run", n.Model, why)
	}
	if n.Benched {
		return fmt.Sprintf("model %s failed %d times in a row%s: no more requests to it in this run; its remaining generations are left for the next", n.Model, n.Failures, why)
	}
	pause := n.Pause.Round(100 * time.Millisecond)
	if n.Pause < time.Second {
		pause = n.Pause.Round(time.Millisecond)
	}
	if n.RetryAfter >= n.Pause {
		return fmt.Sprintf("model %s paused for %s, as its server asked%s", n.Model, pause, why)
	}
	return fmt.Sprintf("model %s paused for %s after %d failures in a row%s", n.Model, pause, n.Failures, why)
}

func clipLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
