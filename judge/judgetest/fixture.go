// Package judgetest holds what the judge runner's tests and the judge
// command's share: battles stored in a real SQLite database, and a fake
// OpenAI-compatible judge model on the loopback interface.
package judgetest

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/store"
)

// Fixture is a run stored directly through the store, as `ringside
// run` would leave it: two models, one prompt, a battle per sample.
type Fixture struct {
	DBPath  string
	Run     *ringside.Run
	Battles []*ringside.Battle
	Gens    [][2]*ringside.Generation // per battle: side a, side b
}

// MustFixture stores a prompt and one battle per pair of outputs
// (side a, side b). An output "FAIL" is a failed generation.
func MustFixture(t *testing.T, prompt ringside.Prompt, outputs ...[2]string) *Fixture {
	t.Helper()
	ctx := context.Background()
	f := &Fixture{DBPath: filepath.Join(t.TempDir(), "r.db")}
	db, err := store.Open(ctx, f.DBPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := prompt.Validate(); err != nil {
		t.Fatal(err)
	}
	if _, err := db.UpsertPrompts(ctx, "fixture", []ringside.Prompt{prompt}); err != nil {
		t.Fatal(err)
	}
	f.Run = &ringside.Run{Name: "r1", Models: []string{"m1", "m2"}, PromptSets: []string{"fixture"}, Samples: len(outputs)}
	if err := db.CreateRun(ctx, f.Run); err != nil {
		t.Fatal(err)
	}
	for k, pair := range outputs {
		var gens [2]*ringside.Generation
		for side, model := range []string{"m1", "m2"} {
			g := &ringside.Generation{RunID: f.Run.ID, PromptID: prompt.ID, PromptSet: "fixture", Model: model, Sample: k, Output: pair[side], LatencyMs: 800}
			if pair[side] == "FAIL" {
				g.Output, g.ErrorKind = "", ringside.ErrKindServer
			}
			if err := db.CreateGeneration(ctx, g); err != nil {
				t.Fatal(err)
			}
			gens[side] = g
		}
		b := &ringside.Battle{RunID: f.Run.ID, Source: ringside.SourceRun, PromptID: prompt.ID, PromptSet: "fixture", Sample: k,
			ModelA: "m1", ModelB: "m2", GenerationA: gens[0].ID, GenerationB: gens[1].ID}
		if err := db.CreateBattle(ctx, b); err != nil {
			t.Fatal(err)
		}
		f.Battles = append(f.Battles, b)
		f.Gens = append(f.Gens, gens)
	}
	return f
}

// Open opens the fixture's database for the test.
func (f *Fixture) Open(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), f.DBPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// MustCheck decodes a check from its JSON.
func MustCheck(t *testing.T, js string) ringside.Check {
	t.Helper()
	var c ringside.Check
	if err := json.Unmarshal([]byte(js), &c); err != nil {
		t.Fatal(err)
	}
	return c
}
