package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
)

// An imported line without a battle_id gets a new battle, so a second file
// holding the same judgments as an earlier one (the same public data set
// downloaded twice, or cut differently) would add every vote again. Such a
// line is recognised as one already stored: an imported battle stored
// before this import with the same question and models on the same sides,
// a vote by the same judge with the same verdict and per-dimension
// verdicts, the same other fields (conversations, turn, measured values:
// everything the battle keeps beside its columns) and the same time when
// the line carries a timestamp. It is counted as existing and written
// nowhere. A line without a question id is never taken for another: with
// nothing to tell judgments apart, the same judge may well have given the
// same verdict on the same pair twice. Battles of the file being imported
// are not compared with each other: a file is the unit of import, and its
// own lines stand. The test is strict on purpose: a judgment taken for a
// stored one is lost without a word, one imported twice is only counted
// twice.
const qStoredJudgment = `SELECT EXISTS (SELECT 1 FROM battles b JOIN votes v ON v.battle_id = b.id
	WHERE b.source = 'import' AND b.prompt_id = $1 AND b.model_a = $2 AND b.model_b = $3 AND b.rowid <= $4
	AND v.judge_id = $5 AND v.winner = $6 AND v.dimensions = $7
	AND ($8 = '' OR b.created_at = $8) AND b.extra IS $9)`

// importedBefore is the last battle row stored before the import began;
// 0 when no imported battle exists, which spares a first import the check.
func importedBefore(ctx context.Context, tx *sql.Tx) (int64, error) {
	var last int64
	err := tx.QueryRowContext(ctx, `SELECT CASE WHEN EXISTS (SELECT 1 FROM battles WHERE source = 'import')
		THEN (SELECT max(rowid) FROM battles) ELSE 0 END`).Scan(&last)
	return last, err
}

// storedBefore reports whether the line's judgment was stored by an
// earlier import. timed says the line carried its own timestamp.
func (im *BattleImport) storedBefore(ctx context.Context, l *ImportLine, timed bool) (bool, error) {
	if im.before == 0 || l.Battle.PromptID == "" {
		return false, nil
	}
	b, v := &l.Battle, &l.Vote
	dims := "{}"
	if len(v.Dimensions) > 0 {
		d, _ := json.Marshal(v.Dimensions)
		dims = string(d)
	}
	at := ""
	if timed {
		at = formatTime(b.CreatedAt)
	}
	var extra any // stored as NULL when the line has no other fields
	if len(b.Extra) > 0 {
		extra = string(b.Extra)
	}
	st, ok := im.stmts[qStoredJudgment]
	if !ok {
		var err error
		if st, err = im.tx.PrepareContext(ctx, qStoredJudgment); err != nil {
			return false, err
		}
		im.stmts[qStoredJudgment] = st
	}
	var found bool
	if err := st.QueryRowContext(ctx, b.PromptID, b.ModelA, b.ModelB, im.before, v.JudgeID, string(v.Winner),
		dims, at, extra).Scan(&found); err != nil {
		return false, fmt.Errorf("store: import: find a stored judgment: %w", err)
	}
	return found, nil
}
