package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlanImportedVotes: on imported votes (with the demo's config, whose
// models have none) the plan is for the models voted on, from their fit.
func TestPlanImportedVotes(t *testing.T) {
	db := filepath.Join(t.TempDir(), "r.db")
	mustRun(t, "import", "battles", "testdata/prd_vicuna80_5models_320.jsonl", "--db", db)
	tm := mustRun(t, "plan", "--db", db, "--sims", "30", "--format", "json")
	var rep struct {
		Votes, Models, Likely, Median, Low, High int
		FromPrior                                bool `json:"from_prior"`
		Ratings                                  []struct{ Model string }
		Undecided                                []struct{ Upper, Lower string }
	}
	if err := json.Unmarshal([]byte(tm.stdout.String()), &rep); err != nil {
		t.Fatalf("%v\n%s", err, tm.stdout)
	}
	if rep.Votes != 320 || rep.Models != 5 || rep.FromPrior || len(rep.Ratings) != 5 || rep.Ratings[0].Model != "gpt4" {
		t.Errorf("plan %+v", rep)
	}
	if len(rep.Undecided) == 0 || rep.Median <= 0 || rep.Low > rep.Median || rep.Likely <= 0 {
		t.Errorf("an undecided board needs votes: %+v", rep)
	}
	fresh := mustRun(t, "plan", "--db", db, "--sims", "30", "--fresh", "--format", "json")
	if err := json.Unmarshal([]byte(fresh.stdout.String()), &rep); err != nil || rep.Median <= 0 || rep.Low > rep.Median {
		t.Errorf("fresh futures: %v %+v", err, rep)
	}
	text := mustRun(t, "plan", "--db", db, "--sims", "30").stdout.String()
	for _, want := range []string{"320 votes so far, 5 models, pairing adaptive", "Further votes needed:", "Undecided:", "gpt4"} {
		if !strings.Contains(text, want) {
			t.Errorf("text plan lacks %q:\n%s", want, text)
		}
	}
}

// TestPlanBeforeAnyVote: on the demo's run, with no vote, the plan rests on
// the prior and the demo's four models.
func TestPlanBeforeAnyVote(t *testing.T) {
	db := filepath.Join(t.TempDir(), "r.db")
	mustRun(t, "run", "--db", db)
	text := mustRun(t, "plan", "--db", db, "--sims", "30").stdout.String()
	for _, want := range []string{"0 votes so far, 4 models", "from the prior (no votes yet)"} {
		if !strings.Contains(text, want) {
			t.Errorf("plan lacks %q:\n%s", want, text)
		}
	}
	tm := newTestMain()
	if code := tm.run(t, "plan", "--db", db, "--format", "xml"); code == exitOK || !strings.Contains(tm.stderr.String(), "--format") {
		t.Errorf("bad format: exit %d, %s", code, tm.stderr)
	}
}
