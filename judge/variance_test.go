package judge_test

import (
	"math"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/judge"
)

// sample is one generation's overall row: passed of checks, all weight 1.
func sample(model, prompt string, k, passed, checks int) ringside.CheckScore {
	return ringside.CheckScore{Model: model, PromptID: prompt, Sample: k, Category: "cat-" + prompt, Kind: "typical",
		Checks: checks, Passed: passed, Weight: float64(checks), WeightPassed: float64(passed)}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestPassStatsWithOneSample(t *testing.T) {
	got := judge.ComputePassStats([]ringside.CheckScore{
		sample("m1", "p1", 0, 2, 2),
		sample("m1", "p2", 0, 1, 2),
		sample("m1", "p3", 0, 4, 4),
		sample("m1", "p4", 0, 0, 0), // no checks: says nothing
	})
	if len(got) != 1 {
		t.Fatalf("stats = %+v", got)
	}
	s := got[0]
	// With k = 1, pass rate, pass^1 and pass@1 are the same number.
	if s.K != 1 || s.Prompts != 3 || s.Samples != 3 || s.UnevenK ||
		!near(s.PassRate, 2.0/3) || !near(s.PassAllK, 2.0/3) || !near(s.PassAtK, 2.0/3) {
		t.Fatalf("stats = %+v", s)
	}
	if !near(s.MeanScore, 2.5/3) || !near(s.WorstScore, 2.5/3) || s.Spread != 0 {
		t.Fatalf("scores = %+v", s)
	}
}

func TestPassStatsWithThreeSamples(t *testing.T) {
	samples := []ringside.CheckScore{
		// m1 passes everything, every time.
		sample("m1", "p1", 0, 2, 2), sample("m1", "p1", 1, 2, 2), sample("m1", "p1", 2, 2, 2),
		sample("m1", "p2", 0, 2, 2), sample("m1", "p2", 1, 2, 2), sample("m1", "p2", 2, 2, 2),
		// m2 fails one sample of three on p2, passing half its checks.
		sample("m2", "p1", 0, 2, 2), sample("m2", "p1", 1, 2, 2), sample("m2", "p1", 2, 2, 2),
		sample("m2", "p2", 0, 2, 2), sample("m2", "p2", 1, 1, 2), sample("m2", "p2", 2, 2, 2),
	}
	got := judge.ComputePassStats(samples)
	if len(got) != 2 || got[0].Model != "m1" || got[1].Model != "m2" {
		t.Fatalf("stats = %+v", got)
	}
	m1, m2 := got[0], got[1]
	if m1.K != 3 || m1.PassRate != 1 || m1.PassAllK != 1 || m1.PassAtK != 1 || m1.Spread != 0 || m1.WorstScore != 1 {
		t.Fatalf("m1 = %+v", m1)
	}
	// pass rate 5/6; pass^3: p1 only of 2 prompts; pass@3: both.
	if m2.K != 3 || m2.Samples != 6 || !near(m2.PassRate, 5.0/6) || !near(m2.PassAllK, 0.5) || !near(m2.PassAtK, 1) {
		t.Fatalf("m2 = %+v", m2)
	}
	// Scores: p1 1,1,1; p2 1,0.5,1. Mean 5.5/6; worst (1+0.5)/2; spread
	// (0 + sd(1,0.5,1))/2 with sd = sqrt(((1/6)²·2 + (1/3)²)/3) = sqrt(1/18).
	if !near(m2.MeanScore, 5.5/6) || !near(m2.WorstScore, 0.75) || !near(m2.Spread, math.Sqrt(1.0/18)/2) {
		t.Fatalf("m2 scores = %+v", m2)
	}

	// One prompt, one failed sample of three: pass^3 is 0, pass@3 is 1.
	one := judge.ComputePassStats(samples[9:12])[0]
	if !near(one.PassRate, 2.0/3) || one.PassAllK != 0 || one.PassAtK != 1 {
		t.Fatalf("one prompt = %+v", one)
	}
}

func TestPassStatsUnevenSamples(t *testing.T) {
	got := judge.ComputePassStats([]ringside.CheckScore{
		sample("m", "p1", 0, 1, 1), sample("m", "p1", 1, 1, 1), sample("m", "p1", 2, 0, 1),
		sample("m", "p2", 0, 1, 1),
	})[0]
	if got.K != 3 || !got.UnevenK || !near(got.PassAllK, 0.5) || got.PassAtK != 1 {
		t.Fatalf("stats = %+v", got)
	}
}

func TestPassStatsBySlice(t *testing.T) {
	fa := sample("m", "p1", 0, 1, 1)
	fa.Dimension = "factual_accuracy"
	ff := sample("m", "p1", 0, 0, 1)
	ff.Dimension = "format_compliance"
	overall := sample("m", "p1", 0, 1, 2)
	overall.Tags = []string{"billing", "vip"}
	other := sample("m", "p2", 0, 1, 1)
	other.Tags = []string{"billing"}
	samples := []ringside.CheckScore{overall, fa, ff, other}

	byDim, err := judge.PassStatsBy(samples, "dimension")
	if err != nil {
		t.Fatal(err)
	}
	if len(byDim) != 2 || byDim["factual_accuracy"][0].PassRate != 1 || byDim["format_compliance"][0].PassRate != 0 {
		t.Fatalf("by dimension = %+v", byDim)
	}
	byTag, _ := judge.PassStatsBy(samples, "tag")
	if byTag["billing"][0].Prompts != 2 || !near(byTag["billing"][0].PassRate, 0.5) || byTag["vip"][0].Prompts != 1 {
		t.Fatalf("by tag = %+v", byTag)
	}
	byCat, _ := judge.PassStatsBy(samples, "category")
	if len(byCat) != 2 || byCat["cat-p1"][0].Samples != 1 {
		t.Fatalf("by category = %+v", byCat)
	}
	if _, err := judge.PassStatsBy(samples, "model"); err == nil {
		t.Fatal("an unknown slicing was accepted")
	}
}
