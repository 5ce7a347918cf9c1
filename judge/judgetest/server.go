package judgetest

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ringside-eval/ringside"
)

// FakeServer is an OpenAI-compatible chat-completions server whose
// verdicts follow markers in the answers it is shown: GOOD wins (GREAT wins
// strongly), BIASED always gets A>B, GARBAGE gets no verdict until fixed.
// Asked for dimension verdicts, it gives them as dimensionLines does.
type FakeServer struct {
	*httptest.Server
	mu    sync.Mutex
	calls map[string]int // battle marker → requests
	// Fixed makes GARBAGE answers readable.
	Fixed atomic.Bool
	// BadTemps counts requests without temperature 0, DimAsks those that
	// asked for dimension verdicts.
	BadTemps, DimAsks atomic.Int32
	// RubricAsks counts requests that graded one answer (llm_rubric).
	RubricAsks atomic.Int32
}

// NewFakeServer starts the server for the test.
func NewFakeServer(t *testing.T) *FakeServer {
	s := &FakeServer{calls: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	return s
}

// Calls returns how many requests showed each battle's answers, by
// marker "(bN)".
func (s *FakeServer) Calls() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.calls)
}

func (s *FakeServer) handle(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Messages    []ringside.Message `json:"messages"`
		Temperature *float64           `json:"temperature"`
		Stream      bool               `json:"stream"`
	}
	if r.URL.Path != "/v1/chat/completions" || json.NewDecoder(r.Body).Decode(&req) != nil || !req.Stream || len(req.Messages) == 0 {
		http.Error(w, `{"error": {"message": "bad request"}}`, http.StatusBadRequest)
		return
	}
	if req.Temperature == nil || *req.Temperature != 0 {
		s.BadTemps.Add(1)
	}
	text := req.Messages[len(req.Messages)-1].Content
	if answer := section(text, "[Answer]", "[End of answer]"); answer != "" {
		s.RubricAsks.Add(1)
		writeAnswer(w, rubricVerdict(answer))
		return
	}
	a := section(text, "[Answer A]", "[End of answer A]")
	b := section(text, "[Answer B]", "[End of answer B]")
	s.mu.Lock()
	s.calls[marker(a)]++
	s.mu.Unlock()

	verdict := "A=B"
	switch {
	case strings.Contains(a, "GARBAGE") && !s.Fixed.Load():
		verdict = ""
	case strings.Contains(a, "BIASED"):
		verdict = "A>B"
	case strings.Contains(a, "GOOD"):
		verdict = map[bool]string{true: "A>>B", false: "A>B"}[strings.Contains(a, "GREAT")]
	case strings.Contains(b, "GOOD"):
		verdict = map[bool]string{true: "B>>A", false: "B>A"}[strings.Contains(b, "GREAT")]
	}
	answer := "Rationale: one answer follows the instructions.\nVerdict: [[" + verdict + "]]"
	if verdict == "" {
		answer = "Both answers have strengths and weaknesses; I cannot decide."
	}
	if lines := dimensionLines(text, a, b); lines != "" {
		s.DimAsks.Add(1)
		answer += lines
	}
	writeAnswer(w, answer)
}

// rubricVerdict grades one answer (an llm_rubric check): PASSME passes,
// MUMBLE gets prose instead of the JSON verdict, anything else fails.
func rubricVerdict(answer string) string {
	switch {
	case strings.Contains(answer, "PASSME"):
		return `{"pass": true, "reason": "meets the rubric"}`
	case strings.Contains(answer, "MUMBLE"):
		return "The answer is mostly fine, I think it passes."
	}
	return "```json\n{\"pass\": false, \"reason\": \"ignores the rubric\"}\n```"
}

// writeAnswer streams answer in two chunks, then a usage of 1000 tokens in
// and 20 out.
func writeAnswer(w http.ResponseWriter, answer string) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, part := range []string{answer[:10], answer[10:]} {
		chunk, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]string{"content": part}}}})
		fmt.Fprintf(w, "data: %s\n\n", chunk)
	}
	fmt.Fprint(w, "data: {\"choices\": [], \"usage\": {\"prompt_tokens\": 1000, \"completion_tokens\": 20}}\n\n")
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// dimensionRequestRE finds the dimension lines a judging prompt asks for.
var dimensionRequestRE = regexp.MustCompile(`(?m)^(\w+): \[\[LABEL\]\]$`)

// dimensionLines answers each dimension the request asks about, a line
// each: the answer marked WIN-<dimension> wins it (A when both are), and
// A=B otherwise; an answer A marked NODIMS gets none.
func dimensionLines(text, a, b string) string {
	if strings.Contains(a, "NODIMS") {
		return ""
	}
	asked := dimensionRequestRE.FindAllStringSubmatch(text, -1)
	var lines strings.Builder
	for _, m := range asked {
		if m[1] == "Verdict" {
			continue // the overall verdict's line
		}
		label := "A=B"
		switch {
		case strings.Contains(a, "WIN-"+m[1]):
			label = "A>B"
		case strings.Contains(b, "WIN-"+m[1]):
			label = "B>A"
		}
		fmt.Fprintf(&lines, "\n%s: [[%s]]", m[1], label)
	}
	return lines.String()
}

func section(text, start, end string) string {
	i, j := strings.Index(text, start), strings.Index(text, end)
	if i < 0 || j < i {
		return ""
	}
	return text[i:j]
}

// marker finds the battle marker "(bN)" in an answer.
func marker(s string) string {
	i := strings.Index(s, "(b")
	if i < 0 {
		return "?"
	}
	return s[i : i+4]
}

// WriteConfig writes a ringside config whose model judge-model is the fake
// judge server, with top (top-level keys) before it and judges after it,
// and returns its path.
func WriteConfig(t *testing.T, srv *FakeServer, top, judges string) string {
	t.Helper()
	conf := filepath.Join(t.TempDir(), "c.toml")
	cfg := fmt.Sprintf("%s\n\n[[models]]\nname = \"judge-model\"\nprovider = \"openai\"\nmodel = \"gpt-judge-1\"\nbase_url = %q\n%s",
		top, srv.URL+"/v1", judges)
	if err := os.WriteFile(conf, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return conf
}
