package judging

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/store"
)

// The cache serves a prompt's messages without the database until they are
// promptsMaxAge old, then reads the prompt again (an edit shows).
func TestPromptCacheKeepsMessagesForTheirAge(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "ringside.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	put := func(text string) {
		t.Helper()
		p := ringside.Prompt{ID: "p1", Kind: "typical", Messages: []ringside.Message{{Role: "user", Content: text}}}
		if _, err := db.UpsertPrompts(ctx, "s", []ringside.Prompt{p}); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	e := &Engine{db: db, now: func() time.Time { return now }}
	get := func() string {
		t.Helper()
		m, err := e.prompts.messages(ctx, e, "s", "p1")
		if err != nil {
			t.Fatal(err)
		}
		return m[0].Content
	}
	put("first")
	if got := get(); got != "first" {
		t.Fatalf("messages = %q", got)
	}
	put("edited")
	now = now.Add(promptsMaxAge - time.Second)
	if got := get(); got != "first" {
		t.Fatalf("within the age: %q, want the cached %q", got, "first")
	}
	now = now.Add(time.Second)
	if got := get(); got != "edited" {
		t.Fatalf("after the age: %q, want %q", got, "edited")
	}
	if _, err := e.prompts.messages(ctx, e, "s", "gone"); ringside.ErrorCode(err) != ringside.ENOTFOUND {
		t.Fatalf("a missing prompt: %v, want ENOTFOUND", err)
	}
}
