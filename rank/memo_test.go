package rank

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ringside-eval/ringside"
)

// A memo changes no number: boards computed through it equal boards
// computed without, before and after a battle is added; and after that
// battle only the slices it fell in (and the whole board) bootstrap again.
func TestMemoGivesTheSameBoards(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	bs := NewBattles()
	names := []string{"a", "b", "c", "d", "e"}
	winners := []ringside.Winner{ringside.WinnerA, ringside.WinnerB, ringside.WinnerTie, ringside.WinnerA}
	addOne := func(i int) {
		x, y := rng.IntN(5), rng.IntN(4)
		if y >= x {
			y++
		}
		if err := bs.Add(Battle{ModelA: names[x], ModelB: names[y], Winner: winners[rng.IntN(4)],
			Category: fmt.Sprintf("c%d", i%4)}); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 400; i++ {
		addOne(i)
	}
	memo := NewMemo()
	same := func(step string) {
		t.Helper()
		for _, by := range []string{"", ByCategory} {
			plain := mustRank(t, bs, Options{Rounds: 30, Seed: 4, By: by})
			with := mustRank(t, bs, Options{Rounds: 30, Seed: 4, By: by, Memo: memo})
			p, _ := json.Marshal(plain)
			w, _ := json.Marshal(with)
			if string(p) != string(w) {
				t.Fatalf("%s, by %q: the memo changed the board:\n%s\n---\n%s", step, by, w, p)
			}
		}
	}
	same("first")
	if n := len(memo.entries); n != 5 {
		t.Fatalf("%d bootstraps kept, want 5 (the whole board and 4 categories)", n)
	}
	same("again")
	if n := len(memo.entries); n != 5 {
		t.Fatalf("%d bootstraps kept after the same boards, want 5", n)
	}
	addOne(1) // category c1
	same("after a battle")
	if n := len(memo.entries); n != 7 {
		t.Fatalf("%d bootstraps kept after a battle, want 7 (5 + the whole board and c1 again)", n)
	}
}
