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

// progress shows a run going: bars on a terminal, log lines otherwise. The
// runner calls it one event at a time, so it needs no lock of its own.
type progress interface {
	generation(g *ringside.Generation)
	notice(n arena.Notice)
	// stop ends the display; bars left incomplete (an interrupted run, a
	// benched model) are cut where they stand.
	stop()
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

func newProgress(w io.Writer, tty bool, name string, plan *arena.Plan) progress {
	if tty {
		return newBarProgress(w, plan)
	}
	return &logProgress{w: w, name: name, total: plan.Generations, start: time.Now(), last: time.Now()}
}

// barProgress is one bar for the whole run (count, rate, ETA) above one bar
// per model (its count and failures).
type barProgress struct {
	p      *mpb.Progress
	total  *mpb.Bar
	models map[string]*mpb.Bar
	// Failure counts are atomic: mpb's goroutine reads them to draw while
	// the runner's observer adds to them. The map itself is filled before
	// the first bar is drawn and never changes.
	failures map[string]*atomic.Int64
	all      atomic.Int64
	last     time.Time
}

func newBarProgress(w io.Writer, plan *arena.Plan) *barProgress {
	b := &barProgress{
		p:      mpb.New(mpb.WithOutput(w), mpb.WithWidth(32), mpb.WithRefreshRate(150*time.Millisecond)),
		models: map[string]*mpb.Bar{}, failures: map[string]*atomic.Int64{}, last: time.Now(),
	}
	names := make([]string, 0, len(plan.PerModel))
	width := len("generations")
	for m := range plan.PerModel {
		names = append(names, m)
		b.failures[m] = &atomic.Int64{}
		width = max(width, len(m))
	}
	slices.Sort(names)
	b.total = b.p.AddBar(int64(plan.Generations),
		mpb.PrependDecorators(
			decor.Name("generations", decor.WC{W: width + 1, C: decor.DindentRight}),
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
	for _, m := range names {
		b.models[m] = b.p.AddBar(int64(plan.PerModel[m]),
			mpb.PrependDecorators(
				decor.Name(m, decor.WC{W: width + 1, C: decor.DindentRight}),
				decor.CountersNoUnit("%d / %d", decor.WCSyncWidth),
			),
			mpb.AppendDecorators(decor.Any(func(decor.Statistics) string { return failed(b.failures[m].Load()) })),
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

func (b *barProgress) generation(g *ringside.Generation) {
	if g.Failed() {
		if n := b.failures[g.Model]; n != nil {
			n.Add(1)
		}
		b.all.Add(1)
	}
	now := time.Now()
	b.total.EwmaIncrement(now.Sub(b.last))
	b.last = now
	if bar := b.models[g.Model]; bar != nil {
		bar.Increment()
	}
}

func (b *barProgress) notice(n arena.Notice) { fmt.Fprintln(b.p, noticeText(n)) }

func (b *barProgress) stop() {
	for _, bar := range append([]*mpb.Bar{b.total}, mapValues(b.models)...) {
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

// logProgress prints a line at every tenth of the run and at least every
// ten seconds, which a log can hold.
type logProgress struct {
	w           io.Writer
	name        string
	total, done int
	failures    int
	start, last time.Time
	tenth       int
}

func (l *logProgress) generation(g *ringside.Generation) {
	l.done++
	if g.Failed() {
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
	line := fmt.Sprintf("run %s: %d/%d generations (%d%%), %d failed, %.1f/s", l.name, l.done, l.total, l.done*100/max(l.total, 1), l.failures, rate)
	if left := l.total - l.done; left > 0 && rate > 0 {
		line += ", ETA " + time.Duration(float64(left)/rate*float64(time.Second)).Round(time.Second).String()
	}
	fmt.Fprintln(l.w, line)
}

func (l *logProgress) notice(n arena.Notice) { fmt.Fprintf(l.w, "run %s: %s\n", l.name, noticeText(n)) }

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
