package store_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/store"
)

// A chat battle is stored turn by turn: the harvested question once, each
// question when asked, the answers with the conversation and the day's
// tokens once in. Battles with follow-ups are not judged as one prompt.
func TestChatBattleStoredTurnByTurn(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	w := db.NewGroupWriter(8)
	defer w.Close()
	ana := &ringside.Judge{Kind: ringside.JudgeHuman, Name: "ana"}
	if err := db.CreateJudge(ctx, ana, "hash-ana"); err != nil {
		t.Fatal(err)
	}
	rules, err := db.EnsureJudge(ctx, ringside.JudgeRules, "rules")
	if err != nil {
		t.Fatal(err)
	}
	harvest := &ringside.Prompt{ID: "q-1", Set: "arena", Kind: ringside.KindUser,
		Messages: []ringside.Message{{Role: "user", Content: "What is DNS?"}}}
	gen := func(model, out string) *ringside.Generation {
		return &ringside.Generation{PromptID: "q-1", PromptSet: "arena", Model: model, Output: out, TokensIn: 4, TokensOut: 6}
	}
	var ids []string
	for turns := 1; turns <= 2; turns++ {
		b := &ringside.Battle{Source: ringside.SourceLive, PromptID: "q-1", PromptSet: "arena", ModelA: "m1", ModelB: "m2", Kind: ringside.KindUser}
		if err := w.StartChat(ctx, b, ana.ID, harvest, "What is DNS?"); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, b.ID)
		for turn := 1; turn <= turns; turn++ {
			if turn > 1 {
				if err := w.AskChat(ctx, b.ID, turn, "And DHCP?"); err != nil {
					t.Fatal(err)
				}
			}
			conv, _ := json.Marshal(map[string]any{"turn": turn})
			r := &store.ChatTurnResult{BattleID: b.ID, JudgeID: ana.ID, Turn: turn, GenA: gen("m1", "a"), GenB: gen("m2", "b"),
				Conversation: conv, Tokens: 20}
			if err := w.FinishChatTurn(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.AskChat(ctx, ids[1], 2, "again"); ringside.ErrorCode(err) != ringside.ECONFLICT {
		t.Fatalf("a turn asked twice: %v", err)
	}
	if got, err := db.Prompts(ctx, "arena"); err != nil || len(got) != 1 || got[0].Kind != ringside.KindUser {
		t.Fatalf("harvest = %+v, %v; want the question once", got, err)
	}
	turns, err := db.ChatTurns(ctx, ids[1])
	if err != nil || len(turns) != 2 || turns[1].Question != "And DHCP?" {
		t.Fatalf("turns = %+v, %v", turns, err)
	}
	if n, err := db.ChatTokens(ctx, ana.ID, store.ChatDay(db.Now())); err != nil || n != 60 {
		t.Fatalf("tokens today = %d, %v; want 3 turns x 20", n, err)
	}
	b, err := db.Battle(ctx, ids[1])
	if err != nil || string(b.Extra) != `{"turn":2}` || b.GenerationA == "" {
		t.Fatalf("battle after two turns: %+v, %v", b, err)
	}
	todo, err := db.BattlesToJudge(ctx, rules.ID, "")
	if err != nil || len(todo) != 1 || todo[0].ID != ids[0] {
		t.Fatalf("battles to judge = %+v, %v; want the single-turn one only", todo, err)
	}
}
