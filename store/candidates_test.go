package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/store"
)

// candidateFixture is a run with five battles on prompts p1..p5 between m1
// and m2: p3's m2 side failed and p4's battle names a model, so only p1,
// p2 and p5 may be dealt. It has three human judges.
type candidateFixture struct {
	run     *ringside.Run
	battles map[string]*ringside.Battle // by prompt
	judges  []*ringside.Judge
}

func mustCandidateFixture(t *testing.T, db *store.DB) *candidateFixture {
	t.Helper()
	ctx := context.Background()
	f := &candidateFixture{run: mustCreateRun(t, db), battles: map[string]*ringside.Battle{}}
	for _, p := range []string{"p1", "p2", "p3", "p4", "p5"} {
		kind := ""
		if p == "p3" {
			kind = ringside.ErrKindServer
		}
		a, b := runGen(f.run, p, "m1", ""), runGen(f.run, p, "m2", kind)
		if err := db.SaveRunGeneration(ctx, a, nil); err != nil {
			t.Fatal(err)
		}
		bt := runBattle(f.run, p, "m1", "m2")
		bt.GenerationA = a.ID
		if err := db.SaveRunGeneration(ctx, b, []*ringside.Battle{bt}); err != nil {
			t.Fatal(err)
		}
		f.battles[p] = bt
	}
	// A battle marked as naming a model, as ringside run marks it.
	raw, err := sql.Open("sqlite", "file:"+db.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.ExecContext(ctx, "UPDATE battles SET identity_leak = 1 WHERE id = $1", f.battles["p4"].ID); err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"ana", "bob", "cy"} {
		j := &ringside.Judge{Kind: ringside.JudgeHuman, Name: name}
		if err := db.CreateJudge(ctx, j, fmt.Sprint("hash", i)); err != nil {
			t.Fatal(err)
		}
		f.judges = append(f.judges, j)
	}
	return f
}

// prompts names the candidates by prompt, with how often each was dealt.
func (f *candidateFixture) prompts(cands []store.StoredCandidate) []string {
	var out []string
	for _, c := range cands {
		for p, b := range f.battles {
			if b.ID == c.BattleID {
				out = append(out, fmt.Sprintf("%s:%d", p, c.Dealt))
			}
		}
	}
	return out
}

func TestStoredCandidatesLeastDealtFirstAndCountsKept(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	f := mustCandidateFixture(t, db)
	ana, bob, cy := f.judges[0], f.judges[1], f.judges[2]
	w := db.NewGroupWriter(8)
	defer w.Close()
	want := func(judge *ringside.Judge, limit int, prompts ...string) {
		t.Helper()
		cands, err := db.StoredCandidates(ctx, judge.ID, nil, limit)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.prompts(cands); !reflect.DeepEqual(got, prompts) {
			t.Fatalf("candidates for %s = %v, want %v", judge.Name, got, prompts)
		}
	}
	deal := func(p string, j *ringside.Judge) {
		t.Helper()
		if err := w.DealBattle(ctx, f.battles[p], false, j.ID); err != nil {
			t.Fatal(err)
		}
	}
	// Neither the failed battle (p3) nor the one naming a model (p4); ties
	// in creation order (ids are UUIDv7).
	want(ana, 10, "p1:0", "p2:0", "p5:0")
	want(ana, 2, "p1:0", "p2:0")

	// An open deal counts; the judge it went to no longer sees it.
	deal("p1", bob)
	want(ana, 10, "p2:0", "p5:0", "p1:1")
	want(bob, 10, "p2:0", "p5:0")

	// A skip gives the deal back; a vote keeps it.
	if err := w.CloseDeal(ctx, f.battles["p1"].ID, bob.ID, store.DealSkipped); err != nil {
		t.Fatal(err)
	}
	want(ana, 10, "p1:0", "p2:0", "p5:0")
	deal("p2", bob)
	deal("p2", cy)
	if _, err := w.CastVote(ctx, &ringside.Vote{BattleID: f.battles["p2"].ID, JudgeID: bob.ID, Winner: ringside.WinnerA}, true); err != nil {
		t.Fatal(err)
	}
	want(ana, 10, "p1:0", "p5:0", "p2:2")
	// A void battle gives the deal back too.
	if err := w.CloseDeal(ctx, f.battles["p2"].ID, cy.ID, store.DealVoid); err != nil {
		t.Fatal(err)
	}
	want(ana, 10, "p1:0", "p5:0", "p2:1")

	// Limited to a run: another run's battles are left out.
	other := &ringside.Run{Name: "other", Models: []string{"m1", "m2"}, Samples: 1}
	if err := db.CreateRun(ctx, other); err != nil {
		t.Fatal(err)
	}
	if cands, err := db.StoredCandidates(ctx, ana.ID, []string{"other"}, 10); err != nil || len(cands) != 0 {
		t.Fatalf("candidates of an empty run = %v, %v", cands, err)
	}
	if cands, err := db.StoredCandidates(ctx, ana.ID, []string{"r"}, 10); err != nil || len(cands) != 3 {
		t.Fatalf("candidates of run r = %v, %v", cands, err)
	}
	// The same within the pair, in either order, filtered or not.
	for _, c := range []struct {
		runs []string
		want int
	}{{nil, 3}, {[]string{"r"}, 3}, {[]string{"other"}, 0}} {
		for _, pair := range [][2]string{{"m1", "m2"}, {"m2", "m1"}} {
			cands, err := db.StoredPairCandidates(ctx, ana.ID, c.runs, pair[0], pair[1], 10)
			if err != nil || len(cands) != c.want {
				t.Fatalf("pair %v candidates of runs %v = %v, %v; want %d", pair, c.runs, cands, err, c.want)
			}
		}
	}
	if cands, err := db.StoredPairCandidates(ctx, ana.ID, nil, "m1", "m3", 10); err != nil || len(cands) != 0 {
		t.Fatalf("candidates of a pair with no battles = %v, %v", cands, err)
	}
}

// GenerationPair reads a battle's two sides in one query, each on its own
// side whatever order the rows come in, and names a missing one.
func TestGenerationPairKeepsTheSides(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	f := mustCandidateFixture(t, db)
	b := f.battles["p1"]
	for _, ids := range [][2]string{{b.GenerationA, b.GenerationB}, {b.GenerationB, b.GenerationA}} {
		gens, err := db.GenerationPair(ctx, ids[0], ids[1])
		if err != nil {
			t.Fatal(err)
		}
		if gens[0].ID != ids[0] || gens[1].ID != ids[1] {
			t.Fatalf("GenerationPair(%s, %s) = %s, %s", ids[0], ids[1], gens[0].ID, gens[1].ID)
		}
	}
	if _, err := db.GenerationPair(ctx, b.GenerationA, "gone"); ringside.ErrorCode(err) != ringside.ENOTFOUND || !strings.Contains(err.Error(), "gone") {
		t.Fatalf("a missing side: %v, want ENOTFOUND naming it", err)
	}
}
