package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/ringside-eval/ringside"
)

// goSteps are the migrations SQL cannot express, by version. Each runs after
// the .sql file of its version, in the same transaction and before the
// version is recorded, so it runs once and a failure leaves the database at
// the previous version. The .sql file says what the step does and keeps the
// versions one numbered sequence.
var goSteps = map[int]func(context.Context, *sql.Tx) error{
	7: remarkIdentityLeaks,
}

// remarkIdentityLeaks marks the stored battles whose outputs name a model
// under ringside.NamesAModel. It never clears a mark: model ids are not
// stored, so a mark `ringside run` set for a provider id cannot be checked
// again, and imported battles keep the mark their file gave.
func remarkIdentityLeaks(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, `SELECT b.id, b.model_a, b.model_b, coalesce(p.messages, '[]'), ga.output, gb.output
		FROM battles b JOIN generations ga ON ga.id = b.generation_a JOIN generations gb ON gb.id = b.generation_b
		LEFT JOIN prompts p ON p.id = b.prompt_id
		WHERE b.identity_leak = 0`)
	if err != nil {
		return err
	}
	defer rows.Close()
	var leaks []string
	for rows.Next() {
		var id, modelA, modelB, messages, outA, outB string
		if err := rows.Scan(&id, &modelA, &modelB, &messages, &outA, &outB); err != nil {
			return err
		}
		var prompt []ringside.Message
		if err := json.Unmarshal([]byte(messages), &prompt); err != nil {
			return fmt.Errorf("battle %s: prompt messages: %w", id, err)
		}
		if ringside.NamesAModel(prompt, []string{outA, outB}, []ringside.Model{{Name: modelA}, {Name: modelB}}) {
			leaks = append(leaks, id)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	// The marks are written once the read is over: SQLite leaves undefined
	// what a query sees of rows its own connection changes under it.
	rows.Close()
	stmt, err := tx.PrepareContext(ctx, "UPDATE battles SET identity_leak = 1 WHERE id = $1")
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, id := range leaks {
		if _, err := stmt.ExecContext(ctx, id); err != nil {
			return fmt.Errorf("battle %s: %w", id, err)
		}
	}
	return nil
}
