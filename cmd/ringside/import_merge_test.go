package main

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ringside-eval/ringside/battlefile"
)

// TestImportMergesOneBattlesJudges: lines describing one battle (same
// question, models and conversations) voted by different judges become
// one battle with a vote each; a judge's repeated line (Arena-Hard's
// weighting), a line without a judge repeated, another conversation or
// the models swapped stay battles of their own.
func TestImportMergesOneBattlesJudges(t *testing.T) {
	conv := func(a, b string) string {
		return `"conversation_a": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "` + a +
			`"}], "conversation_b": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "` + b + `"}]`
	}
	lines := []string{
		`{"question_id": "q1", "model_a": "gemma", "model_b": "llama", "winner": "model_a", "judge": "ana", ` + conv("x", "y") + `}`,
		`{"question_id": "q1", "model_a": "gemma", "model_b": "llama", "winner": "model_a", "judge": "bo", ` + conv("x", "y") + `}`,
		`{"question_id": "q1", "model_a": "gemma", "model_b": "llama", "winner": "tie", "judge": "llm:gpt", ` + conv("x", "y") + `}`,
		`{"question_id": "q1", "model_a": "gemma", "model_b": "llama", "winner": "model_b", "judge": "cy", ` + conv("x", "z") + `}`,
		`{"question_id": "q1", "model_a": "llama", "model_b": "gemma", "winner": "model_b", "judge": "cy", ` + conv("y", "x") + `}`,
		`{"question_id": "q2", "model_a": "gemma", "model_b": "llama", "winner": "model_b", "judge": "ana"}`,
		`{"question_id": "q2", "model_a": "gemma", "model_b": "llama", "winner": "model_b", "judge": "ana"}`,
		`{"question_id": "q2", "model_a": "gemma", "model_b": "llama", "winner": "model_a", "judge": "bo"}`,
		`{"question_id": "q3", "model_a": "gemma", "model_b": "llama", "winner": "model_a"}`,
		`{"question_id": "q3", "model_a": "gemma", "model_b": "llama", "winner": "model_a"}`,
	}
	dir := t.TempDir()
	src, db, out := filepath.Join(dir, "multi.jsonl"), filepath.Join(dir, "r.db"), filepath.Join(dir, "out.jsonl")
	if err := os.WriteFile(src, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tm := mustRun(t, "import", "battles", src, "--db", db)
	if !strings.Contains(tm.stdout.String(), "10 lines: 7 battles and 10 votes added") {
		t.Fatalf("import printed %q", tm.stdout)
	}
	mustRun(t, "export", "battles", "--db", db, "-o", out)
	byBattle := map[string][]string{}
	readRecords(t, out, func(r *battlefile.Record) {
		byBattle[r.BattleID] = append(byBattle[r.BattleID], r.QuestionID+" "+r.ModelA+" "+r.Judge)
	})
	var got []string
	for _, js := range byBattle {
		sort.Strings(js)
		got = append(got, strings.Join(js, " | "))
	}
	sort.Strings(got)
	want := []string{
		"q1 gemma human:ana | q1 gemma human:bo | q1 gemma llm:gpt",
		"q1 gemma human:cy",
		"q1 llama human:cy",
		"q2 gemma human:ana",
		"q2 gemma human:ana | q2 gemma human:bo",
		"q3 gemma human:import:multi.jsonl",
		"q3 gemma human:import:multi.jsonl",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("battles:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The board counts the three-judge battle once.
	tm = mustRun(t, "rank", "--db", db, "--judges", "all", "--bootstrap", "0", "--format", "json")
	if !strings.Contains(tm.stdout.String(), `"battles": 7`) && !strings.Contains(tm.stdout.String(), `"battles":7`) {
		t.Fatalf("rank: %s", tm.stdout)
	}
}
