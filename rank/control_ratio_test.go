package rank_test

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ringside-eval/ringside/battlefile"
	"github.com/ringside-eval/ringside/leaderboard"
	"github.com/ringside-eval/ringside/rank"
)

// BenchmarkStyleControl1M measures the speed target of issue 14: `rank
// --control style` on 1,000,000 battles among 150 models with 100 bootstrap
// rounds, reading the file included, within 3× the plain run on the same
// file. The machine it runs on is shared, so one process runs plain,
// controlled, plain, controlled… (RINGSIDE_STYLE_PAIRS pairs, 3 by default)
// and reports each pair's ratio and their median: load that comes and goes
// falls on both halves of a pair alike. The plain run reads the file as a
// plain `rank` needs it (conv_metadata left unparsed), the controlled one as
// `rank --control` does (battlefile.ReadStyled, leaderboard.RecordBattle),
// so the ratio charges the controlled run with everything it adds. Run
// with -benchtime 1x.
func BenchmarkStyleControl1M(b *testing.B) {
	path := rank.StyledBenchFile(b)
	pairs := 3
	if s := os.Getenv("RINGSIDE_STYLE_PAIRS"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			pairs = int(n)
		}
	}
	style := []string{rank.ControlLength, rank.ControlHeaders, rank.ControlLists, rank.ControlBold}
	for i := 0; i < b.N; i++ {
		var wall, cpu []float64
		for p := 0; p < pairs; p++ {
			pw, pc := timeRun(b, path, nil)
			sw, sc := timeRun(b, path, style)
			wall, cpu = append(wall, sw/pw), append(cpu, sc/pc)
			b.Logf("pair %d: plain %.2f s (cpu %.2f s), style %.2f s (cpu %.2f s): ratio %.2f (cpu %.2f); load %s",
				p+1, pw, pc, sw, sc, sw/pw, sc/pc, loadAverage())
		}
		b.ReportMetric(median(wall), "ratio")
		b.ReportMetric(median(cpu), "cpu-ratio")
	}
}

// timeRun reads path and ranks it with 100 rounds and the given controls,
// and returns the wall and CPU seconds it took.
func timeRun(b *testing.B, path string, controls []string) (wall, cpu float64) {
	b.Helper()
	c0, t0 := cpuSeconds(), time.Now()
	bs := readStyled(b, path, len(controls) > 0)
	lb, err := rank.Rank(bs, rank.Options{Rounds: 100, Seed: 1, Controls: controls})
	if err != nil {
		b.Fatal(err)
	}
	wall, cpu = time.Since(t0).Seconds(), cpuSeconds()-c0
	if len(controls) > 0 && len(lb.Coefficients) != len(controls) {
		b.Fatalf("coefficients %v, notes %v", lb.Coefficients, lb.Notes)
	}
	return wall, cpu
}

func readStyled(b *testing.B, path string, withStyle bool) *rank.Battles {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	bs := rank.NewBattles()
	read := battlefile.Read
	if withStyle {
		read = battlefile.ReadStyled // as the CLI reads
	}
	err = read(f, path, func(_ int, r *battlefile.Record) error {
		bt := rank.Battle{ModelA: r.ModelA, ModelB: r.ModelB, Winner: r.Winner, Judge: r.Judge}
		if withStyle {
			var err error
			if bt, err = leaderboard.RecordBattle(r, nil); err != nil {
				return err
			}
		}
		return bs.Add(bt)
	})
	if err != nil {
		b.Fatal(err)
	}
	return bs
}

// cpuSeconds is the CPU time (user and system) this process has used.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}
