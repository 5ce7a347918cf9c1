package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/ringside-eval/ringside"
)

// Chat battles (judging.source "chat"): the judge writes the question and
// may follow up. Each question is stored when asked and each turn's two
// answers once both are in, so nothing the judge was told of is lost to a
// crash. The conversation is also kept among the battle's extra fields
// (conversation_a, conversation_b, turn), where the battle export writes
// it in the Chatbot Arena battle format.

// singleTurn keeps out of a query the chat battles with follow-ups, whose
// answers belong to a conversation the battle's prompt does not hold: what
// reads a battle as one prompt and two outputs (an LLM judge, preference
// pairs) would judge the last answers against the first question.
const singleTurn = `NOT EXISTS (SELECT 1 FROM chat_turns t WHERE t.battle_id = b.id AND t.turn > 1)`

// StartChat stores a new chat battle dealt to the judge, its first
// question, and the question as a prompt of the chat set (kept once however
// often it is asked, so counting the judges who voted on it is a join).
// harvest is nil for a question drawn from a prompt set, which is stored
// already; question is the first turn's text.
func (g *GroupWriter) StartChat(ctx context.Context, b *ringside.Battle, judgeID string, harvest *ringside.Prompt, question string) error {
	var row promptRow
	if harvest != nil {
		if err := harvest.Validate(); err != nil {
			return err
		}
		var err error
		if row, err = promptColumns(harvest); err != nil {
			return err
		}
	}
	if err := b.Validate(); err != nil {
		return err
	}
	if b.ID == "" {
		b.ID = newID()
	}
	now := g.db.Now()
	if b.CreatedAt.IsZero() {
		b.CreatedAt = now
	}
	return g.Do(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if err := g.insertHarvest(ctx, tx, harvest, row, now); err != nil {
			return err
		}
		if err := g.insertLiveBattle(ctx, tx, b); err != nil {
			return err
		}
		if err := g.insertDeal(ctx, tx, b.ID, judgeID, now, 0); err != nil {
			return err
		}
		return g.insertTurn(ctx, tx, b.ID, 1, question, now)
	})
}

func (g *GroupWriter) insertTurn(ctx context.Context, tx *sql.Tx, battleID string, turn int, question string, at time.Time) error {
	_, err := g.exec(ctx, tx, `INSERT INTO chat_turns (battle_id, turn, question, asked_at) VALUES ($1, $2, $3, $4)`,
		battleID, turn, question, formatTime(at))
	if isUniqueViolation(err) {
		return ringside.Errorf(ringside.ECONFLICT, "battle %s already has turn %d", battleID, turn)
	}
	return err
}

// AskChat stores a follow-up question, turn 2 on, of a chat battle.
func (g *GroupWriter) AskChat(ctx context.Context, battleID string, turn int, question string) error {
	return g.Do(ctx, func(ctx context.Context, tx *sql.Tx) error {
		return g.insertTurn(ctx, tx, battleID, turn, question, g.db.Now())
	})
}

// ChatTurnResult is a chat turn's two answers and what they change.
type ChatTurnResult struct {
	BattleID, JudgeID string
	Turn              int
	// GenA and GenB are the answers; nil for a side cut short by the
	// server stopping, which measured nothing.
	GenA, GenB *ringside.Generation
	// Conversation is the battle's extra fields after this turn.
	Conversation json.RawMessage
	// IdentityLeak is set when an answer named a model.
	IdentityLeak bool
	// Tokens is what the turn used, counted against the judge's day.
	Tokens int
}

// FinishChatTurn stores a turn's answers: the generations, linked to the
// turn and, as its latest, to the battle, the conversation so far, the
// identity mark and the judge's tokens of the day.
func (g *GroupWriter) FinishChatTurn(ctx context.Context, r *ChatTurnResult) error {
	return g.Do(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var ids [2]any
		for i, gen := range []*ringside.Generation{r.GenA, r.GenB} {
			if gen == nil {
				continue
			}
			if err := g.insertLiveGeneration(ctx, tx, gen); err != nil {
				return err
			}
			ids[i] = gen.ID
		}
		if _, err := g.exec(ctx, tx, `UPDATE chat_turns SET generation_a = $3, generation_b = $4
			WHERE battle_id = $1 AND turn = $2`, r.BattleID, r.Turn, ids[0], ids[1]); err != nil {
			return err
		}
		if _, err := g.exec(ctx, tx, qFinishBattle, r.BattleID, ids[0], ids[1], r.IdentityLeak); err != nil {
			return err
		}
		if _, err := g.exec(ctx, tx, `UPDATE battles SET extra = $2 WHERE id = $1`, r.BattleID, string(r.Conversation)); err != nil {
			return err
		}
		_, err := g.exec(ctx, tx, `INSERT INTO chat_usage (judge_id, day, tokens) VALUES ($1, $2, $3)
			ON CONFLICT (judge_id, day) DO UPDATE SET tokens = tokens + excluded.tokens`,
			r.JudgeID, ChatDay(g.db.Now()), r.Tokens)
		return err
	})
}

// ChatDay is the UTC day a judge's token use counts against.
func ChatDay(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// ChatTokens returns the tokens the judge's conversations used on day.
func (db *DB) ChatTokens(ctx context.Context, judgeID, day string) (int, error) {
	var n int
	err := db.read.QueryRowContext(ctx, "SELECT tokens FROM chat_usage WHERE judge_id = $1 AND day = $2", judgeID, day).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return n, err
}

// ChatTurn is one question of a chat battle.
type ChatTurn struct {
	Turn     int
	Question string
}

// ChatTurns returns a chat battle's questions in order; none for any other
// battle.
func (db *DB) ChatTurns(ctx context.Context, battleID string) ([]ChatTurn, error) {
	rows, err := db.read.QueryContext(ctx, "SELECT turn, question FROM chat_turns WHERE battle_id = $1 ORDER BY turn", battleID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ChatTurn
	for rows.Next() {
		var t ChatTurn
		if err := rows.Scan(&t.Turn, &t.Question); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// insertHarvest stores a judge's question as a prompt of the chat set,
// once: asked again, it is the same prompt.
func (g *GroupWriter) insertHarvest(ctx context.Context, tx *sql.Tx, p *ringside.Prompt, row promptRow, now time.Time) error {
	if p == nil {
		return nil
	}
	_, err := g.exec(ctx, tx, `INSERT INTO prompts
		(id, prompt_set, messages, category, kind, tags, reference, checks, content_hash, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, '', $7, $8, $9, $9) ON CONFLICT DO NOTHING`,
		p.ID, p.Set, row.messages, p.Category, p.Kind, row.tags, row.checks, row.hash, formatTime(now))
	return err
}
