package judging

import (
	"context"
	"sync"
	"time"

	"github.com/ringside-eval/ringside"
)

// promptCache keeps the messages of the prompts that stored battles were
// dealt on, for promptsMaxAge, as the live source keeps its prompt list:
// every deal shows one, a run has few, and reading and decoding one per deal
// was a twelfth of the server's work when judging flat out. An edit by a
// new import shows within the age. The messages are shared by every deal
// of the prompt and never changed.
type promptCache struct {
	mu sync.Mutex
	m  map[[2]string]cachedPrompt
}

type cachedPrompt struct {
	messages []ringside.Message
	at       time.Time
}

// promptCacheMax bounds the cache: past it, it starts over.
const promptCacheMax = 10_000

// messages returns the messages of prompt id of set.
func (c *promptCache) messages(ctx context.Context, e *Engine, set, id string) ([]ringside.Message, error) {
	k, now := [2]string{set, id}, e.now()
	c.mu.Lock()
	p, ok := c.m[k]
	c.mu.Unlock()
	if ok && now.Sub(p.at) < promptsMaxAge {
		return p.messages, nil
	}
	prompt, err := e.db.Prompt(ctx, set, id)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= promptCacheMax {
		c.m = map[[2]string]cachedPrompt{}
	}
	c.m[k] = cachedPrompt{messages: prompt.Messages, at: now}
	return prompt.Messages, nil
}
