package judge_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/judge"
)

func TestLLMDimensionVerdictsCombineBothOrders(t *testing.T) {
	// The second order shows side b as A, so its labels read the other way.
	first := "Verdict: [[A>B]]\n" +
		"instruction_following: [[B>A]]\n" +
		"factual_accuracy: [[A>B]]\n" +
		"format_compliance: [[A>B]]\n" +
		"long_context_retention: [[A=B]]\n" +
		"tone: [[A>B]]\n" + // not read in the second order
		"Rationale: A keeps the format."
	swapped := "Rationale: B keeps the format.\n" +
		"instruction_following: [[A>B]]\n" + // b, both times
		"factual_accuracy: [[A>B]]\n" + // position bias: a tie
		"format_compliance: [[B>A]]\n" + // a, both times
		"long_context_retention: [[A=B]]\n" +
		"multi_turn_consistency: [[A>>B]]\n" + // not read in the first order
		"Verdict: [[B>A]]"
	s := &scripted{answers: []string{first, swapped}}
	dims := append(append([]string(nil), ringside.DefaultDimensions...), "tone")
	j := &judge.LLM{Model: judgeModel, Streamer: s, Dimensions: dims}
	jm, err := j.Judge(context.Background(), prompt, genA, genB)
	if err != nil || jm.Failed || len(jm.Calls) != 2 {
		t.Fatalf("Judge = %+v, %v", jm, err)
	}
	if jm.Winner != ringside.WinnerA || jm.Weight != 1 {
		t.Fatalf("overall %s weight %d, want a 1", jm.Winner, jm.Weight)
	}
	want := map[string]ringside.Winner{
		ringside.DimInstructionFollowing: ringside.WinnerB,
		ringside.DimFactualAccuracy:      ringside.WinnerTie,
		ringside.DimFormatCompliance:     ringside.WinnerA,
		ringside.DimLongContext:          ringside.WinnerTie,
	}
	if fmt.Sprint(jm.Dimensions) != fmt.Sprint(want) {
		t.Fatalf("dimensions = %v, want %v", jm.Dimensions, want)
	}
	if c := jm.Calls[0]; len(c.DimensionLabels) != 5 || c.DimensionLabels[ringside.DimInstructionFollowing] != judge.BBetter {
		t.Fatalf("first call's dimension labels = %v", c.DimensionLabels)
	}
	if c := jm.Calls[1]; len(c.DimensionLabels) != 5 || c.DimensionLabels[ringside.DimMultiTurn] != judge.AMuchBetter {
		t.Fatalf("second call's dimension labels = %v", c.DimensionLabels)
	}
	// The dimension lines are verdicts, not reasons.
	if r := jm.Calls[1].Rationale; r != "B keeps the format." {
		t.Fatalf("rationale = %q", r)
	}
}

func TestLLMDimensionVerdictsNeverFailAJudgment(t *testing.T) {
	// Unreadable dimension lines in one order, none in the other: the
	// overall verdicts stand, and nothing is asked again.
	first := verdict(judge.ABetter) + "\nformat_compliance: [[A>A]]\nfactual_accuracy: A is better\ninstruction_following: [[A?B]]"
	s := &scripted{answers: []string{first, verdict(judge.BBetter)}}
	j := &judge.LLM{Model: judgeModel, Streamer: s, Dimensions: ringside.DefaultDimensions}
	jm, err := j.Judge(context.Background(), prompt, genA, genB)
	if err != nil || jm.Failed || jm.Winner != ringside.WinnerA || len(jm.Calls) != 2 {
		t.Fatalf("Judge = %+v, %v", jm, err)
	}
	if jm.Dimensions != nil || jm.Calls[0].DimensionLabels != nil {
		t.Fatalf("dimensions = %v, first call's labels %v", jm.Dimensions, jm.Calls[0].DimensionLabels)
	}
}

func TestLLMOverallVerdictBesideDimensionLines(t *testing.T) {
	dims := "format_compliance: [[B>>A]]\nfactual_accuracy: [[A=B]]\n"
	for _, tc := range []struct {
		name, answer string
	}{
		{"verdict first", "Verdict: [[A>B]]\n" + dims},
		{"verdict last", "Rationale: fine.\n" + dims + "Verdict: [[A>B]]"},
		{"verdict between", "Rationale: fine.\nformat_compliance: [[B>>A]]\nVerdict: [[A>B]]\nfactual_accuracy: [[A=B]]"},
		// Without a "Verdict:" line the one bracketed label left, once
		// the dimension lines are taken out, is the verdict.
		{"bracket only", "Rationale: fine.\n[[A>B]]\n" + dims},
		{"bold dimension lines", "Verdict: [[A>B]]\n**format_compliance**: [[B>>A]]\n- Factual accuracy: A=B"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &scripted{answers: []string{tc.answer, tc.answer}}
			j := &judge.LLM{Model: judgeModel, Streamer: s, Dimensions: []string{ringside.DimFormatCompliance, ringside.DimFactualAccuracy}}
			jm, err := j.Judge(context.Background(), prompt, genA, genB)
			if err != nil || jm.Failed || len(jm.Calls) != 2 {
				t.Fatalf("Judge = %+v, %v", jm, err)
			}
			c := jm.Calls[0]
			if c.Label != judge.ABetter {
				t.Fatalf("overall label = %q, want A>B", c.Label)
			}
			if c.DimensionLabels[ringside.DimFormatCompliance] != judge.BMuchBetter || c.DimensionLabels[ringside.DimFactualAccuracy] != judge.Same {
				t.Fatalf("dimension labels = %v", c.DimensionLabels)
			}
			// The same answers in both orders: position bias, all ties.
			if jm.Dimensions[ringside.DimFormatCompliance] != ringside.WinnerTie {
				t.Fatalf("dimensions = %v", jm.Dimensions)
			}
		})
	}
}

func TestLLMWithoutDimensionsAsksForNone(t *testing.T) {
	// Dimension lines the judge volunteers are not read either.
	answer := verdict(judge.ABetter) + "\nformat_compliance: [[A>B]]"
	s := &scripted{answers: []string{answer, verdict(judge.BBetter)}}
	jm, err := (&judge.LLM{Model: judgeModel, Streamer: s}).Judge(context.Background(), prompt, genA, genB)
	if err != nil || jm.Failed || jm.Winner != ringside.WinnerA {
		t.Fatalf("Judge = %+v, %v", jm, err)
	}
	if jm.Dimensions != nil || jm.Calls[0].DimensionLabels != nil {
		t.Fatalf("dimensions = %v, labels %v", jm.Dimensions, jm.Calls[0].DimensionLabels)
	}
	for _, unwanted := range append([]string{"dimension", "Besides the overall verdict"}, ringside.DefaultDimensions...) {
		if strings.Contains(s.prompts[0], unwanted) {
			t.Errorf("the judging prompt mentions %q", unwanted)
		}
	}
	if !strings.Contains(s.prompts[0], "write nothing after the verdict:\nRationale:") {
		t.Error("the prompt without dimensions lost its reply format")
	}
}

func TestDefaultPromptAsksForEachDimension(t *testing.T) {
	s := &scripted{answers: []string{verdict(judge.Same), verdict(judge.Same)}}
	j := &judge.LLM{Model: judgeModel, Streamer: s, Dimensions: []string{ringside.DimFormatCompliance, "tone"}}
	if _, err := j.Judge(context.Background(), prompt, genA, genB); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"- format_compliance: is the output in the form asked for",
		"- tone\n", // a custom dimension, by name only
		"use A=B for it",
		"Verdict: [[LABEL]]\nformat_compliance: [[LABEL]]\ntone: [[LABEL]]\n",
	} {
		if !strings.Contains(s.prompts[0], want) {
			t.Errorf("the judging prompt lacks %q", want)
		}
	}
}

func TestCustomTemplateSeesDimensions(t *testing.T) {
	// The dimension fields are tried when the template is parsed, though
	// the judge may never be asked for dimensions.
	if _, err := judge.ParseTemplate("mine.txt", "{{range .Dimensions}}{{.Nmae}}{{end}}"); err == nil {
		t.Fatal("a misspelt dimension field was accepted")
	}
	tmpl, err := judge.ParseTemplate("mine.txt", "{{.A}} {{.B}}{{range .Dimensions}} {{.}}={{.Description}};{{end}}")
	if err != nil {
		t.Fatal(err)
	}
	s := &scripted{answers: []string{verdict(judge.Same), verdict(judge.Same)}}
	j := &judge.LLM{Model: judgeModel, Streamer: s, Template: tmpl, Dimensions: []string{ringside.DimFactualAccuracy, "tone"}}
	if _, err := j.Judge(context.Background(), prompt, genA, genB); err != nil {
		t.Fatal(err)
	}
	want := "ANSWER-ONE: 702 ANSWER-TWO: 720 factual_accuracy=are the facts, numbers, names, dates and steps right, with nothing invented?; tone=;"
	if s.prompts[0] != want {
		t.Fatalf("prompt = %q\nwant %q", s.prompts[0], want)
	}
}

func TestParseDimensionVerdicts(t *testing.T) {
	names := []string{"format", "format_compliance", "tone"}
	text := "Rationale: close.\n" +
		"Format compliance: A>B\n" + // spaces for underscores, no brackets
		"**format**: [[ b >> a ]]\n" +
		"Verdict: [[A=B]]\n" +
		"tone: [[A>B]]\n" +
		"tone: [[B>A]]\n" // the judge corrected itself: the last line counts
	labels, rest := judge.ParseDimensionVerdicts(text, names)
	want := map[string]judge.Label{"format": judge.BMuchBetter, "format_compliance": judge.ABetter, "tone": judge.BBetter}
	if fmt.Sprint(labels) != fmt.Sprint(want) {
		t.Fatalf("labels = %v, want %v", labels, want)
	}
	if rest != "Rationale: close.\nVerdict: [[A=B]]\n" {
		t.Fatalf("rest = %q", rest)
	}
	if labels, rest := judge.ParseDimensionVerdicts(text, nil); labels != nil || rest != text {
		t.Fatalf("no names: %v, %q", labels, rest)
	}
	// A line about a dimension that gives no label is not a verdict line.
	if labels, _ := judge.ParseDimensionVerdicts("tone: A is warmer\ntone: [[A>A]]", names); labels != nil {
		t.Fatalf("labels = %v", labels)
	}
}
