package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/rank"
	"github.com/ringside-eval/ringside/store"
)

// arenaFixture is a database as ringside leaves it after runs and judging:
// two runs, prompts with categories, kinds and tags, measured generations
// (one failed), and votes by two people, the rules judge (with check
// results and dimensions) and an LLM judge whose strong verdicts weigh 3.
type arenaFixture struct {
	dbPath string
	votes  int
}

func mustArenaFixture(t *testing.T) *arenaFixture {
	t.Helper()
	ctx := context.Background()
	f := &arenaFixture{dbPath: filepath.Join(t.TempDir(), "arena.db")}
	db, err := store.Open(ctx, f.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	clock := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	db.Now = func() time.Time { clock = clock.Add(1500 * time.Millisecond); return clock }
	var prompts []ringside.Prompt
	for i, p := range []struct{ cat, kind, tag string }{
		{"refunds", "typical", "billing"}, {"refunds", "edge", ""}, {"coding", "typical", "json"}, {"coding", "adversarial", ""},
	} {
		pr := ringside.Prompt{ID: fmt.Sprintf("p%d", i), Category: p.cat, Kind: p.kind,
			Messages: []ringside.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: fmt.Sprintf("Question %d?", i)}}}
		if p.tag != "" {
			pr.Tags = []string{p.tag}
		}
		prompts = append(prompts, pr)
	}
	if _, err := db.UpsertPrompts(ctx, "set", prompts); err != nil {
		t.Fatal(err)
	}
	judge := func(kind, name string) string {
		j, err := db.EnsureJudge(ctx, kind, name)
		if err != nil {
			t.Fatal(err)
		}
		return j.ID
	}
	ann, bob, rules, llm := judge("human", "ann"), judge("human", "bob"), judge("rules", "rules"), judge("llm", "gj")
	models := []string{"m1", "m2", "m3"}
	strength := map[string]int{"m1": 3, "m2": 2, "m3": 1}
	k := 0
	for _, runName := range []string{"r1", "r2"} {
		run := &ringside.Run{Name: runName, Models: models, PromptSets: []string{"set"}, Samples: 2}
		if err := db.CreateRun(ctx, run); err != nil {
			t.Fatal(err)
		}
		samples := 2
		if runName == "r2" {
			samples = 1
		}
		for _, p := range prompts {
			for s := 0; s < samples; s++ {
				gens := map[string]*ringside.Generation{}
				for mi, m := range models {
					g := &ringside.Generation{RunID: run.ID, PromptID: p.ID, PromptSet: "set", Model: m, Sample: s,
						Output: fmt.Sprintf("%s answers %s #%d", m, p.ID, s),
						TTFTMs: float64(100 * (mi + 1)), LatencyMs: float64(700*(mi+1) + 10*s), TokensIn: 20,
						TokensOut: 50 + 10*mi, CostUSD: 0.001 * float64(mi+1)}
					if runName == "r1" && p.ID == "p3" && s == 1 && m == "m3" {
						g.ErrorKind, g.Error, g.Output = ringside.ErrKindTimeout, "deadline", ""
					}
					if err := db.CreateGeneration(ctx, g); err != nil {
						t.Fatal(err)
					}
					gens[m] = g
					// A check per generation, passed by the stronger models more often.
					pass := (k+mi)%(5-strength[m]) != 0
					if err := db.ReplaceCheckResults(ctx, rules, []string{g.ID}, []ringside.CheckResult{{GenerationID: g.ID,
						Source: "prompt", Index: 0, Type: "max_words", Dimension: "format_compliance", Weight: 1, Pass: pass}}); err != nil {
						t.Fatal(err)
					}
				}
				for i := range models {
					for j := i + 1; j < len(models); j++ {
						a, b := models[i], models[j]
						if k%2 == 1 {
							a, b = b, a
						}
						bt := &ringside.Battle{RunID: run.ID, Source: ringside.SourceRun, PromptID: p.ID, PromptSet: "set", Sample: s,
							ModelA: a, ModelB: b, GenerationA: gens[a].ID, GenerationB: gens[b].ID,
							Category: p.Category, Kind: p.Kind, Tags: p.Tags, IdentityLeak: k == 5}
						if err := db.CreateBattle(ctx, bt); err != nil {
							t.Fatal(err)
						}
						f.vote(t, db, bt, ann, k, strength, nil)
						if k%2 == 0 {
							f.vote(t, db, bt, bob, k+1, strength, nil)
						}
						f.vote(t, db, bt, rules, k+2, strength, map[string]ringside.Winner{"format_compliance": outcome(k+3, bt, strength)})
						if k%3 == 0 {
							w := outcome(k, bt, strength)
							weight := 1
							if w == ringside.WinnerA || w == ringside.WinnerB {
								weight = 3
							}
							v := &ringside.Vote{BattleID: bt.ID, JudgeID: llm, Winner: w}
							if err := db.SaveLLMJudgment(ctx, &store.LLMJudgment{BattleID: bt.ID, JudgeID: llm, Weight: weight}, v); err != nil {
								t.Fatal(err)
							}
							f.votes++
						}
						k++
					}
				}
			}
		}
	}
	return f
}

// outcome is a deterministic verdict that mostly favours the stronger
// model, with ties and upsets.
func outcome(k int, b *ringside.Battle, strength map[string]int) ringside.Winner {
	switch k % 7 {
	case 0:
		return ringside.WinnerTie
	case 3:
		return ringside.WinnerB // upsets when b is the weaker
	case 5:
		return ringside.WinnerBothBad
	}
	if strength[b.ModelA] > strength[b.ModelB] {
		return ringside.WinnerA
	}
	return ringside.WinnerB
}

func (f *arenaFixture) vote(t *testing.T, db *store.DB, b *ringside.Battle, judgeID string, k int, strength map[string]int, dims map[string]ringside.Winner) {
	t.Helper()
	v := &ringside.Vote{BattleID: b.ID, JudgeID: judgeID, Winner: outcome(k, b, strength), Dimensions: dims, Reason: "because"}
	if _, err := db.CreateVote(context.Background(), v); err != nil {
		t.Fatal(err)
	}
	f.votes++
}

// leaderboardOf decodes rank's JSON and drops what only the database
// knows (per-model performance, of the whole board and of each slice,
// comes from generations there, from the battle records in a file).
func leaderboardOf(t *testing.T, out string) string {
	t.Helper()
	var lb rank.Leaderboard
	if err := json.Unmarshal([]byte(out), &lb); err != nil {
		t.Fatal(err)
	}
	lb.SetPerf(nil)
	for _, sl := range lb.Slices {
		sl.SetPerf(nil)
	}
	b, _ := json.MarshalIndent(&lb, "", " ")
	return string(b)
}

// The leaderboard from the database equals the leaderboard of the battles
// it exports, slice by slice, with the same intervals and online Elo.
func TestRankFromDatabaseEqualsRankOfExport(t *testing.T) {
	f := mustArenaFixture(t)
	file := filepath.Join(t.TempDir(), "battles.jsonl")
	mustRun(t, "export", "battles", "--db", f.dbPath, "-o", file)
	for _, args := range [][]string{
		{"--bootstrap", "50", "--seed", "3", "--elo"},
		{"--bootstrap", "20", "--by", "judge"},
		{"--bootstrap", "20", "--by", "dimension", "--include-leaks"},
		{"--bootstrap", "20", "--by", "tag", "--anchor", "m2=1000"},
		{"--interval", "sandwich", "--by", "kind"},
	} {
		fromDB := mustRun(t, append([]string{"rank", "--format", "json", "--db", f.dbPath}, args...)...)
		fromFile := mustRun(t, append([]string{"rank", "--format", "json", "--battles", file}, args...)...)
		if a, b := leaderboardOf(t, fromDB.stdout.String()), leaderboardOf(t, fromFile.stdout.String()); a != b {
			t.Errorf("rank %v: the database and its export differ:\n%s\n---\n%s", args, a, b)
		}
	}
	// The LLM judge's strong verdicts count 3 times in both.
	var lb rank.Leaderboard
	out := mustRun(t, "rank", "--format", "json", "--db", f.dbPath, "--bootstrap", "0", "--include-leaks", "--judges", "all")
	if err := json.Unmarshal([]byte(out.stdout.String()), &lb); err != nil {
		t.Fatal(err)
	}
	if lb.CountedVotes <= f.votes {
		t.Errorf("%d votes ranked from %d stored: weights not applied", lb.CountedVotes, f.votes)
	}

	// Imported battles beside ringside's own: online Elo orders imported
	// votes by their file's tstamp (none: 0), from the database as from
	// the export.
	noTime := filepath.Join(t.TempDir(), "no-tstamp.jsonl")
	if err := os.WriteFile(noTime, []byte(`{"model_a": "m1", "model_b": "alpha", "winner": "model_b"}
{"model_a": "alpha", "model_b": "m3", "winner": "tie", "judge": "llm:gj", "vote_weight": 3}
{"model_a": "m2", "model_b": "beta", "winner": "model_a"}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "import", "battles", rankBattles, "--db", f.dbPath)
	mustRun(t, "import", "battles", noTime, "--db", f.dbPath)
	mixed := filepath.Join(t.TempDir(), "mixed.jsonl")
	mustRun(t, "export", "battles", "--db", f.dbPath, "-o", mixed)
	args := []string{"--bootstrap", "30", "--elo", "--by", "judge_kind", "--include-leaks"}
	fromDB := mustRun(t, append([]string{"rank", "--format", "json", "--db", f.dbPath}, args...)...)
	fromFile := mustRun(t, append([]string{"rank", "--format", "json", "--battles", mixed}, args...)...)
	if a, b := leaderboardOf(t, fromDB.stdout.String()), leaderboardOf(t, fromFile.stdout.String()); a != b {
		t.Errorf("with imported battles, the database and its export differ:\n%s\n---\n%s", a, b)
	}
}

func TestRankFromDatabaseAddsMeasuresAndJudges(t *testing.T) {
	f := mustArenaFixture(t)
	out := rankJSON(t, newTestMain(), "--db", f.dbPath, "--bootstrap", "0", "--by", "judge")
	m1 := out["models"].([]any)[0].(map[string]any)
	for _, k := range []string{"ttft_p50_ms", "latency_p95_ms", "output_tokens_per_s", "cost_per_battle_usd", "cost_per_1k_responses_usd", "error_rate"} {
		if m1[k] == nil {
			t.Errorf("%s missing from %v", k, m1)
		}
	}
	pass := out["pass"].(map[string]any)["rules:rules"].([]any)
	if len(pass) != 3 || out["agreement"] == nil || out["judges"] == nil {
		t.Errorf("pass %v, agreement %v, judges %v", pass, out["agreement"], out["judges"])
	}
	if slices := out["slices"].(map[string]any); len(slices) != 4 {
		t.Errorf("%d judge slices", len(slices))
	}
	tm := mustRun(t, "rank", "--db", f.dbPath, "--bootstrap", "10", "--run", "r2")
	text := tm.stdout.String()
	for _, want := range []string{"Bradley-Terry, ", "pass rates (rules:rules)", "pass^k", "TTFT p50 ms"} {
		if !strings.Contains(text, want) {
			t.Errorf("rank table lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "agreement between judges") {
		t.Errorf("agreement without --by judge")
	}
	// r2 has one sample per prompt: 12 battles, one of them no leak.
	r2 := rankJSON(t, newTestMain(), "--db", f.dbPath, "--bootstrap", "0", "--run", "r2")
	all := rankJSON(t, newTestMain(), "--db", f.dbPath, "--bootstrap", "0")
	if r2["battles"].(float64) >= all["battles"].(float64) {
		t.Errorf("--run r2 ranked %v battles of %v", r2["battles"], all["battles"])
	}
	if code := newTestMain().run(t, "rank", "--db", f.dbPath, "--run", "nope"); code != exitUsage {
		t.Errorf("unknown run exited %d", code)
	}
}

func TestExportVotesGenerationsChecksAndDPO(t *testing.T) {
	f := mustArenaFixture(t)
	dir := t.TempDir()
	lines := func(path string) []string {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	}
	votes := filepath.Join(dir, "votes.jsonl")
	wrote := mustRun(t, "export", "votes", "--db", f.dbPath, "-o", votes)
	vl := lines(votes)
	if want := fmt.Sprintf("wrote %d votes rows (jsonl) to %s\n", f.votes, votes); wrote.stdout.String() != want {
		t.Errorf("export -o printed %q, want %q", wrote.stdout, want)
	}
	if len(vl) != f.votes {
		t.Fatalf("%d vote lines, %d votes", len(vl), f.votes)
	}
	var v voteRow
	if err := json.Unmarshal([]byte(vl[0]), &v); err != nil || v.VoteID == "" || v.Judge != "human:ann" || v.Reason != "because" {
		t.Errorf("first vote %+v, %v", v, err)
	}
	weighted := 0
	for _, l := range vl {
		if strings.Contains(l, `"weight":3`) {
			weighted++
		}
	}
	if weighted == 0 {
		t.Error("no vote with weight 3")
	}
	tm := mustRun(t, "export", "votes", "--db", f.dbPath, "--format", "csv", "--run", "r2")
	rows, err := csv.NewReader(strings.NewReader(tm.stdout.String())).ReadAll()
	if err != nil || len(rows) < 2 || strings.Join(rows[0], ",") != strings.Join(voteCSVHead, ",") || len(rows)-1 >= f.votes {
		t.Fatalf("votes csv: %d rows, %v", len(rows), err)
	}

	dpo := filepath.Join(dir, "dpo.jsonl")
	mustRun(t, "export", "votes", "--format", "dpo", "--db", f.dbPath, "-o", dpo)
	pairs := lines(dpo)
	if len(pairs) == 0 {
		t.Fatal("no preference pairs")
	}
	for _, l := range pairs {
		var p dpoRow
		if err := json.Unmarshal([]byte(l), &p); err != nil {
			t.Fatal(err)
		}
		var msgs []ringside.Message
		if err := json.Unmarshal(p.Prompt, &msgs); err != nil || len(msgs) != 2 || msgs[1].Role != "user" {
			t.Fatalf("prompt %s", p.Prompt)
		}
		if p.VotesChosen <= p.VotesRejected || !strings.HasPrefix(p.Chosen[0].Content, p.ChosenModel+" answers") ||
			!strings.HasPrefix(p.Rejected[0].Content, p.RejectedModel+" answers") || p.Chosen[0].Role != "assistant" {
			t.Fatalf("pair %+v", p)
		}
	}
	anyJudge := mustRun(t, "export", "votes", "--format", "dpo", "--db", f.dbPath, "--judge-kind", "any")
	if n := strings.Count(anyJudge.stdout.String(), "\n"); n < len(pairs) {
		t.Errorf("%d pairs from any judge, %d from people", n, len(pairs))
	}

	gens := mustRun(t, "export", "generations", "--db", f.dbPath, "--run", "r1")
	sc := bufio.NewScanner(strings.NewReader(gens.stdout.String()))
	n, failed := 0, 0
	for sc.Scan() {
		var g ringside.Generation
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatal(err)
		}
		n++
		if g.Failed() {
			failed++
		}
	}
	if n != 4*3*2 || failed != 1 {
		t.Errorf("%d generations, %d failed", n, failed)
	}
	gcsv := mustRun(t, "export", "generations", "--db", f.dbPath, "--format", "csv")
	if rows, err := csv.NewReader(strings.NewReader(gcsv.stdout.String())).ReadAll(); err != nil || len(rows) != 1+4*3*3 {
		t.Errorf("generations csv: %d rows, %v", len(rows), err)
	}
	checks := mustRun(t, "export", "checks", "--db", f.dbPath, "--format", "csv")
	if rows, err := csv.NewReader(strings.NewReader(checks.stdout.String())).ReadAll(); err != nil || len(rows) != 1+4*3*3 {
		t.Errorf("checks csv: %d rows, %v", len(rows), err)
	} else if strings.Join(rows[0][:4], ",") != "run,model,prompt_id,sample" || rows[1][0] == "" || rows[1][1] == "" || rows[1][2] == "" {
		t.Errorf("checks csv does not name run, model and prompt: %v / %v", rows[0], rows[1])
	}
	lbmd := mustRun(t, "export", "leaderboard", "--db", f.dbPath, "--format", "md", "--bootstrap", "10")
	if !strings.HasPrefix(lbmd.stdout.String(), "Bradley-Terry") || !strings.Contains(lbmd.stdout.String(), "| Rank |") {
		t.Errorf("leaderboard md:\n%s", lbmd.stdout)
	}

	for _, args := range [][]string{
		{"export"}, {"export", "things"}, {"export", "battles", "--format", "csv"}, {"export", "votes", "--judge-kind", "robot"},
	} {
		if code := newTestMain().run(t, append(args, "--db", f.dbPath)...); code != exitUsage {
			t.Errorf("%v exited %d, want %d", args, code, exitUsage)
		}
	}
}
