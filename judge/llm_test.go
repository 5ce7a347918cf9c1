package judge_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/judge"
)

// scripted is a judge model that answers from a script, one answer per call,
// and records the prompts it was sent.
type scripted struct {
	mu      sync.Mutex
	answers []string // "" fails the call
	prompts []string
}

func (s *scripted) Stream(ctx context.Context, req ringside.Request, emit func(ringside.Delta)) (ringside.Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prompts = append(s.prompts, req.Messages[len(req.Messages)-1].Content)
	if req.Params.Temperature == nil || *req.Params.Temperature != 0 {
		return ringside.Result{}, errors.New("the judge should ask for temperature 0")
	}
	if len(s.answers) == 0 {
		return ringside.Result{}, errors.New("script exhausted: one call too many")
	}
	a := s.answers[0]
	s.answers = s.answers[1:]
	if a == "" {
		return ringside.Result{}, &ringside.GenerationError{Kind: ringside.ErrKindServer, Err: errors.New("503")}
	}
	emit(ringside.Delta{Text: a})
	return ringside.Result{Text: a, TokensIn: 1000, TokensOut: 50, Total: 1500 * time.Millisecond}, nil
}

var (
	judgeModel = ringside.Model{Name: "judge", Provider: "openai", ModelID: "j", PriceInPerM: 1, PriceOutPerM: 4}
	prompt     = &ringside.Prompt{ID: "p1", Reference: "The total is 702.", Messages: []ringside.Message{
		{Role: "system", Content: "You are Northwind's assistant."},
		{Role: "user", Content: "What is the invoice total?"},
		{Role: "assistant", Content: "Which invoice?"},
		{Role: "user", Content: "BPC-2024-0117."},
	}}
	genA = &ringside.Generation{ID: "ga", Output: "ANSWER-ONE: 702"}
	genB = &ringside.Generation{ID: "gb", Output: "ANSWER-TWO: 720"}
)

func verdict(l judge.Label) string { return "Rationale: because.\nVerdict: [[" + string(l) + "]]" }

func TestLLMJudgesBothOrders(t *testing.T) {
	s := &scripted{answers: []string{verdict(judge.AMuchBetter), verdict(judge.BMuchBetter)}}
	j := &judge.LLM{Model: judgeModel, Streamer: s, UseReference: true, StrongWeight: 3}
	jm, err := j.Judge(context.Background(), prompt, genA, genB)
	if err != nil || jm.Failed {
		t.Fatalf("Judge = %+v, %v", jm, err)
	}
	if jm.Winner != ringside.WinnerA || jm.Weight != 3 || len(jm.Calls) != 2 {
		t.Fatalf("winner %s weight %d calls %d", jm.Winner, jm.Weight, len(jm.Calls))
	}
	// The first call shows side a first, the second side b first.
	first, second := s.prompts[0], s.prompts[1]
	if strings.Index(first, "ANSWER-ONE") > strings.Index(first, "ANSWER-TWO") ||
		strings.Index(second, "ANSWER-TWO") > strings.Index(second, "ANSWER-ONE") {
		t.Fatal("the second call did not swap the answers")
	}
	for _, want := range []string{"The total is 702.", "You are Northwind's assistant.", "User: What is the invoice total?",
		"Assistant: Which invoice?", "BPC-2024-0117."} {
		if !strings.Contains(first, want) {
			t.Errorf("the judging prompt lacks %q", want)
		}
	}
	if jm.Calls[1].Swapped != true || jm.Calls[0].Label != judge.AMuchBetter || jm.Calls[1].Rationale != "because." {
		t.Fatalf("calls = %+v", jm.Calls)
	}
	// 2 × (1000 in × $1/M + 50 out × $4/M)
	if want := 2 * (0.001 + 0.0002); abs(jm.CostUSD-want) > 1e-12 || jm.TokensIn != 2000 {
		t.Fatalf("cost = %g, tokens in %d", jm.CostUSD, jm.TokensIn)
	}
	if !strings.Contains(jm.Reason, "a shown first: A>>B") || !strings.Contains(jm.Reason, "b shown first: B>>A") {
		t.Fatalf("reason = %q", jm.Reason)
	}
}

func TestLLMWithoutReferenceHidesIt(t *testing.T) {
	s := &scripted{answers: []string{verdict(judge.ABetter), verdict(judge.ABetter)}}
	j := &judge.LLM{Model: judgeModel, Streamer: s}
	jm, _ := j.Judge(context.Background(), prompt, genA, genB)
	if strings.Contains(s.prompts[0], "The total is 702.") || strings.Contains(s.prompts[0], "reference answer") {
		t.Fatal("the reference was shown")
	}
	// A>B then A>B again once swapped: position bias, so a tie.
	if jm.Winner != ringside.WinnerTie || jm.Weight != 1 {
		t.Fatalf("winner = %s, weight %d", jm.Winner, jm.Weight)
	}
}

func TestLLMRetriesAnUnreadableVerdictOnce(t *testing.T) {
	s := &scripted{answers: []string{"Both fine I guess.", verdict(judge.BBetter), verdict(judge.ABetter)}}
	jm, _ := (&judge.LLM{Model: judgeModel, Streamer: s}).Judge(context.Background(), prompt, genA, genB)
	if jm.Failed || jm.Winner != ringside.WinnerB || len(jm.Calls) != 3 {
		t.Fatalf("jm = %+v", jm)
	}
	if c := jm.Calls[0]; c.Label != "" || c.Error == "" || c.Raw != "Both fine I guess." || c.Attempt != 1 {
		t.Fatalf("first call = %+v", c)
	}
	if c := jm.Calls[1]; c.Attempt != 2 || c.Swapped {
		t.Fatalf("retry = %+v", c)
	}
}

func TestLLMFailsAfterTwoUnreadableVerdicts(t *testing.T) {
	s := &scripted{answers: []string{verdict(judge.ABetter), "garbage", "more garbage"}}
	jm, err := (&judge.LLM{Model: judgeModel, Streamer: s}).Judge(context.Background(), prompt, genA, genB)
	if err != nil || !jm.Failed || jm.Winner != "" || len(jm.Calls) != 3 || !strings.Contains(jm.Error, "unreadable") {
		t.Fatalf("jm = %+v, %v", jm, err)
	}
	if jm.CostUSD == 0 {
		t.Fatal("a failure's calls cost nothing")
	}
}

func TestLLMFailsOnAFailedCall(t *testing.T) {
	s := &scripted{answers: []string{""}}
	jm, _ := (&judge.LLM{Model: judgeModel, Streamer: s}).Judge(context.Background(), prompt, genA, genB)
	if !jm.Failed || len(jm.Calls) != 1 || !strings.Contains(jm.Error, "503") {
		t.Fatalf("jm = %+v", jm)
	}
}

func TestLLMDoesNotCallForFailedGenerations(t *testing.T) {
	s := &scripted{}
	failed := &ringside.Generation{ErrorKind: ringside.ErrKindTimeout}
	j := &judge.LLM{Model: judgeModel, Streamer: s}
	for _, tc := range []struct {
		a, b *ringside.Generation
		want ringside.Winner
	}{{failed, genB, ringside.WinnerB}, {genA, failed, ringside.WinnerA}, {failed, failed, ringside.WinnerBothBad}} {
		jm, _ := j.Judge(context.Background(), prompt, tc.a, tc.b)
		if jm.Failed || jm.Winner != tc.want || len(jm.Calls) != 0 {
			t.Fatalf("jm = %+v, want %s", jm, tc.want)
		}
	}
	if len(s.prompts) != 0 {
		t.Fatal("the judge model was called")
	}
}

func TestLLMStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := &scripted{answers: []string{""}}
	if _, err := (&judge.LLM{Model: judgeModel, Streamer: s}).Judge(ctx, prompt, genA, genB); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

func TestCustomTemplate(t *testing.T) {
	if _, err := judge.ParseTemplate("mine.txt", "Q: {{.Question}} A: {{.A}} B: {{.Bee}}"); err == nil || !strings.Contains(err.Error(), "mine.txt") {
		t.Fatalf("a misspelt field: %v", err)
	}
	tmpl, err := judge.ParseTemplate("mine.txt", "Q: {{.Question}}\nA: {{.A}}\nB: {{.B}}\nVerdict as [[A>B]] etc.")
	if err != nil {
		t.Fatal(err)
	}
	s := &scripted{answers: []string{verdict(judge.Same), verdict(judge.Same)}}
	jm, _ := (&judge.LLM{Model: judgeModel, Streamer: s, Template: tmpl}).Judge(context.Background(), prompt, genA, genB)
	if jm.Winner != ringside.WinnerTie || s.prompts[0] != "Q: BPC-2024-0117.\nA: ANSWER-ONE: 702\nB: ANSWER-TWO: 720\nVerdict as [[A>B]] etc." {
		t.Fatalf("prompt = %q, winner %s", s.prompts[0], jm.Winner)
	}
}

func TestDefaultPromptParses(t *testing.T) {
	if _, err := judge.ParseTemplate("default", judge.DefaultPrompt); err != nil {
		t.Fatal(err)
	}
	for _, l := range judge.Labels {
		if !strings.Contains(judge.DefaultPrompt, string(l)) {
			t.Errorf("the default prompt does not offer %s", l)
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
