package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/store"
)

// evilOutput is model output that would run script if it were shown as HTML.
const evilOutput = "**bold** <script>window.__pwned = 1</script> <img src=x onerror=\"window.__pwned = 2\"> [click](javascript:window.__pwned=3)"

// addEvilRun stores a run "xss" of two models on the demo's first prompt:
// m-evil writes HTML and script, m-plain fails; a battle between them has a
// vote with a reason.
func (d *demoServer) addEvilRun() (evil, plain *ringside.Generation) {
	d.t.Helper()
	ctx := context.Background()
	p := d.demo.Prompts[0]
	run := &ringside.Run{Name: "xss", Models: []string{"m-evil", "m-plain"}, PromptSets: []string{"examples"}, Samples: 1}
	if err := d.db.CreateRun(ctx, run); err != nil {
		d.t.Fatal(err)
	}
	evil = &ringside.Generation{RunID: run.ID, PromptSet: p.Set, PromptID: p.ID, Model: "m-evil", Output: evilOutput, LatencyMs: 1234, CostUSD: 0.0021}
	plain = &ringside.Generation{RunID: run.ID, PromptSet: p.Set, PromptID: p.ID, Model: "m-plain", ErrorKind: ringside.ErrKindRateLimit, Error: "429 slow down"}
	for _, g := range []*ringside.Generation{evil, plain} {
		if err := d.db.CreateGeneration(ctx, g); err != nil {
			d.t.Fatal(err)
		}
	}
	b := &ringside.Battle{RunID: run.ID, Source: ringside.SourceRun, PromptSet: p.Set, PromptID: p.ID, ModelA: "m-evil", ModelB: "m-plain",
		GenerationA: evil.ID, GenerationB: plain.ID}
	if err := d.db.CreateBattle(ctx, b); err != nil {
		d.t.Fatal(err)
	}
	j := &ringside.Judge{Kind: ringside.JudgeHuman, Name: "rita"}
	if err := d.db.CreateJudge(ctx, j, ringside.HashToken(ringside.NewToken())); err != nil {
		d.t.Fatal(err)
	}
	if _, err := d.db.CreateVote(ctx, &ringside.Vote{BattleID: b.ID, JudgeID: j.ID, Winner: ringside.WinnerA, Reason: "the other side said nothing"}); err != nil {
		d.t.Fatal(err)
	}
	return evil, plain
}

func TestOutputsAPIPagesAndFilters(t *testing.T) {
	d := newDemoServer(t)
	if code, _ := d.do("GET", "/api/admin/outputs?run=demo", false, "", nil); code != http.StatusUnauthorized {
		t.Fatalf("without the admin token: %d", code)
	}
	// Walking every page of ten prompts sees each prompt once.
	seen := map[string]bool{}
	pages := 0
	for after := ""; ; pages++ {
		var page store.OutputsPage
		if code, body := d.do("GET", "/api/admin/outputs?run=demo&limit=10&after="+after, true, "", &page); code != http.StatusOK {
			t.Fatalf("page %d: %d %s", pages, code, body)
		}
		for _, r := range page.Rows {
			if seen[r.PromptID] {
				t.Fatalf("prompt %s on two pages", r.PromptID)
			}
			seen[r.PromptID] = true
			if len(r.Cells) != len(d.demo.Models) {
				t.Fatalf("prompt %s: %d cells for %d models", r.PromptID, len(r.Cells), len(d.demo.Models))
			}
		}
		if page.Next == "" {
			break
		}
		after = page.Next
	}
	if len(seen) != len(d.demo.Prompts) || pages != (len(d.demo.Prompts)-1)/10 {
		t.Fatalf("%d prompts on %d pages, want %d", len(seen), pages+1, len(d.demo.Prompts))
	}

	for _, tc := range []struct {
		query string
		ok    func(r store.OutputRow) bool
	}{
		{"kind=adversarial", func(r store.OutputRow) bool { return r.Kind == "adversarial" }},
		{"category=extraction", func(r store.OutputRow) bool { return r.Category == "extraction" }},
		{"failed=1&model=sim-breeze", func(r store.OutputRow) bool {
			c := r.Cells[0]
			return c.ErrorKind != "" || strings.Contains(checkPasses(c.Checks), "0")
		}},
	} {
		var page store.OutputsPage
		d.do("GET", "/api/admin/outputs?run=demo&limit=200&"+tc.query, true, "", &page)
		if len(page.Rows) == 0 || len(page.Rows) >= len(d.demo.Prompts) {
			t.Errorf("%s: %d rows, want some but not all", tc.query, len(page.Rows))
		}
		for _, r := range page.Rows {
			if !tc.ok(r) {
				t.Errorf("%s: row %+v does not match", tc.query, r)
			}
		}
	}
	var one store.OutputsPage
	d.do("GET", "/api/admin/outputs?run=demo&limit=200&model=sim-breeze", true, "", &one)
	for _, r := range one.Rows {
		if len(r.Cells) != 1 || r.Cells[0].Model != "sim-breeze" || len(one.Models) != 1 {
			t.Fatalf("model=sim-breeze: row %s has cells %+v, columns %v", r.PromptID, r.Cells, one.Models)
		}
	}
	tag := d.demo.Prompts[0].Tags[0]
	var page store.OutputsPage
	d.do("GET", "/api/admin/outputs?run=demo&limit=200&tag="+tag, true, "", &page)
	for _, r := range page.Rows {
		if !strings.Contains(strings.Join(r.Tags, ","), tag) {
			t.Errorf("tag %s: row %s has tags %v", tag, r.PromptID, r.Tags)
		}
	}

	for _, bad := range []struct {
		query string
		code  int
	}{{"limit=0", 400}, {"limit=201", 400}, {"limit=x", 400}, {"failed=maybe", 400}, {"run=nope", 404}} {
		if code, body := d.do("GET", "/api/admin/outputs?"+bad.query, true, "", nil); code != bad.code {
			t.Errorf("%s: %d %s, want %d", bad.query, code, body, bad.code)
		}
	}
}

// checkPasses is each check's pass as 1 or 0.
func checkPasses(rs []ringside.CheckResult) string {
	var b strings.Builder
	for _, r := range rs {
		b.WriteString(map[bool]string{true: "1", false: "0"}[r.Pass])
	}
	return b.String()
}

func TestOutputDetailAPI(t *testing.T) {
	d := newDemoServer(t)
	evil, plain := d.addEvilRun()
	var det store.OutputDetail
	if code, body := d.do("GET", "/api/admin/outputs/"+evil.ID, true, "", &det); code != http.StatusOK {
		t.Fatalf("%d %s", code, body)
	}
	if det.Generation.Output != evilOutput || det.Run != "xss" || det.Prompt == nil || det.Prompt.ID != d.demo.Prompts[0].ID {
		t.Fatalf("detail %+v", det)
	}
	if len(det.Battles) != 1 || det.Battles[0].Side != "a" || det.Battles[0].Opponent != "m-plain" ||
		det.Battles[0].OpponentGenID != plain.ID || len(det.Battles[0].Votes) != 1 || det.Battles[0].Votes[0].JudgeName != "rita" {
		t.Fatalf("battles %+v", det.Battles)
	}
	// A demo generation has the rules judge's results and its battles' votes.
	var page store.OutputsPage
	d.do("GET", "/api/admin/outputs?run=demo&limit=1", true, "", &page)
	d.do("GET", "/api/admin/outputs/"+page.Rows[0].Cells[0].GenerationID, true, "", &det)
	if len(det.Checks) == 0 || det.Checks[0].JudgeName != "rules" || len(det.Battles) != len(d.demo.Models)-1 {
		t.Fatalf("demo detail: %d checks, %d battles", len(det.Checks), len(det.Battles))
	}
	if code, _ := d.do("GET", "/api/admin/outputs/nope", true, "", nil); code != http.StatusNotFound {
		t.Fatalf("unknown generation: %d", code)
	}
}
