package leaderboard

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/store"
)

// importStyled stores n imported battles whose records carry FastChat's
// conv_metadata, the longer side winning more often.
func importStyled(t *testing.T, db *store.DB, from, n int) {
	t.Helper()
	ctx := context.Background()
	im, err := db.BeginBattleImport(ctx, fmt.Sprintf("s%d.jsonl", from), fmt.Sprintf("sha-s%d", from))
	if err != nil {
		t.Fatal(err)
	}
	defer im.Rollback()
	for i := from; i < from+n; i++ {
		la, lb := 100+(i*37)%400, 100+(i*53)%400
		l := &store.ImportLine{Line: i - from + 1, Weight: 1, JudgeKind: ringside.JudgeHuman, JudgeName: "j"}
		l.Battle = ringside.Battle{ModelA: fmt.Sprintf("m%d", i%4), ModelB: fmt.Sprintf("m%d", (i+1+i%3)%4),
			Extra: []byte(fmt.Sprintf(`{"conv_metadata": {"sum_assistant_a_tokens": %d, "sum_assistant_b_tokens": %d,
				"bold_count_a": {"**": %d, "__": 0}, "bold_count_b": {"**": %d, "__": 0}}}`, la, lb, i%3, i%2))}
		switch {
		case i%7 == 0:
			l.Vote.Winner = ringside.WinnerTie
		case (la > lb) != (i%5 == 0):
			l.Vote.Winner = ringside.WinnerA
		default:
			l.Vote.Winner = ringside.WinnerB
		}
		if err := im.Add(ctx, l); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := im.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}

// A controlled board from the database reads the features imported
// records carried; kept up to date as votes come, it equals one computed
// from scratch, and asking for controls once reads every vote again.
func TestServiceControlled(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cfg := config.Defaults()
	cfg.Rank.Bootstrap = 30
	importStyled(t, db, 0, 300)
	svc := NewService(db, cfg)
	if _, err := svc.Board(ctx, Query{}); err != nil {
		t.Fatal(err)
	}
	style := "style"
	q := Query{Control: &style}
	b, err := svc.Board(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	lb := b.Report.Leaderboard
	if got := lb.Method.Controls; len(got) != 2 || got[0] != "length" || got[1] != "bold" {
		t.Fatalf("controls %v, notes %v", got, lb.Notes)
	}
	if lb.Coefficients[0].Value <= 0 || lb.Models[0].UncontrolledRank == nil {
		t.Fatalf("length coefficient %v (judges prefer longer answers), models %+v", lb.Coefficients[0], lb.Models[0])
	}
	if svc.fullReads != 2 {
		t.Fatalf("%d full reads, want 2 (plain, then with style)", svc.fullReads)
	}
	importStyled(t, db, 300, 50)
	got, err := svc.Board(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	want, err := NewService(db, cfg).Board(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if string(got.JSON) != string(want.JSON) || svc.fullReads != 2 {
		t.Fatalf("kept board (%d full reads) differs from one from scratch:\n%s\n---\n%s", svc.fullReads, got.JSON, want.JSON)
	}
	bad := "shininess"
	if _, err := svc.Board(ctx, Query{Control: &bad}); ringside.ErrorCode(err) != ringside.EINVALID {
		t.Fatalf("control=shininess: %v", err)
	}
}
