package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ringside-eval/ringside"
)

// ImportLine is one line of a battle file to store: a battle (source
// import) and the vote of the judge the line names.
type ImportLine struct {
	// Line is the line's number in the file, for errors.
	Line int
	// Battle.ID is the record's battle_id, or "" for a new battle.
	Battle ringside.Battle
	// Vote.BattleID and Vote.JudgeID are filled in by the import.
	Vote                 ringside.Vote
	JudgeKind, JudgeName string
	// Weight is what the vote counts for when JudgeKind is llm (a strong
	// verdict); 1 otherwise. It is stored as the vote's LLM judgment.
	Weight int
	// Measured is set when the line carried measured values, which the
	// battle keeps among its extra fields (see EachImportedMeasures).
	Measured bool
}

// BattleImportResult counts what an import wrote.
type BattleImportResult struct {
	Lines   int `json:"lines"`
	Battles int `json:"battles"`
	Votes   int `json:"votes"`
	// Existing counts lines whose battle and vote were already stored:
	// records with a battle_id imported before, and records without one
	// holding a judgment an earlier import stored (importdup.go).
	Existing int `json:"existing"`
	Judges   int `json:"judges"`
}

// BattleImport stores a battle file in one transaction: a file with a bad
// line, or an import that fails half-way, writes nothing. Lines are
// inserted in batches with multi-row statements, which is what makes a
// million lines take seconds rather than minutes.
type BattleImport struct {
	db     *DB
	tx     *sql.Tx
	file   string
	sha    string
	now    time.Time
	judges map[[2]string]string // (kind, name) → id
	batch  []*ImportLine
	stmts  map[string]*sql.Stmt // by query text, full batches reuse theirs
	res    BattleImportResult
	// measured counts the lines with measured values.
	measured int
	// before: the judgments stored before the import began (importdup.go).
	before int64
}

// importCacheKiB is the page cache while importing (negative: KiB, as
// PRAGMA cache_size takes it); SQLite's default is -2000.
const importCacheKiB = -256 << 10

// resetImportPragmas gives the write connection its defaults back.
func (db *DB) resetImportPragmas() {
	_, _ = db.write.Exec("PRAGMA cache_size = -2000")
	_, _ = db.write.Exec("PRAGMA temp_store = DEFAULT")
}

// importBatch is the number of lines per multi-row INSERT: 12 parameters a
// battle, well below SQLite's limit of 32766.
const importBatch = 128

// BeginBattleImport starts importing the file whose content has the given
// SHA-256. It holds the write lock until Commit or Rollback. Errors:
// ECONFLICT when that content was imported before.
func (db *DB) BeginBattleImport(ctx context.Context, file, sha string) (*BattleImport, error) {
	// A million-line transaction outgrows SQLite's default 2 MB page cache
	// (spilling pages to the WAL before the commit), and each multi-row
	// statement keeps a statement journal, in a temporary file unless told
	// otherwise: both are kept in memory while importing.
	if _, err := db.write.ExecContext(ctx, "PRAGMA temp_store = MEMORY"); err != nil {
		return nil, err
	}
	if _, err := db.write.ExecContext(ctx, fmt.Sprintf("PRAGMA cache_size = %d", importCacheKiB)); err != nil {
		return nil, err
	}
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		db.resetImportPragmas()
		return nil, err
	}
	var prev, when string
	err = tx.QueryRowContext(ctx, "SELECT file, imported_at FROM battle_imports WHERE sha256 = $1", sha).Scan(&prev, &when)
	switch {
	case err == nil:
		tx.Rollback()
		db.resetImportPragmas()
		return nil, ringside.Errorf(ringside.ECONFLICT, "%s was imported before (as %s, %s)", file, prev, when)
	case !errors.Is(err, sql.ErrNoRows):
		tx.Rollback()
		db.resetImportPragmas()
		return nil, err
	}
	before, err := importedBefore(ctx, tx)
	if err != nil {
		tx.Rollback()
		db.resetImportPragmas()
		return nil, err
	}
	return &BattleImport{db: db, tx: tx, file: file, sha: sha, now: db.Now(), before: before,
		judges: map[[2]string]string{}, stmts: map[string]*sql.Stmt{}}, nil
}

// Add queues one line; lines are written in batches. Errors name the file,
// the line and the field (EINVALID); after an error the import must be
// rolled back.
func (im *BattleImport) Add(ctx context.Context, l *ImportLine) error {
	b := &l.Battle
	b.Source = ringside.SourceImport
	fresh, timed := b.ID == "", !b.CreatedAt.IsZero()
	if b.ID == "" {
		b.ID = newID()
	}
	if b.CreatedAt.IsZero() {
		b.CreatedAt = im.now
	}
	if l.Vote.CreatedAt.IsZero() {
		l.Vote.CreatedAt = b.CreatedAt
	}
	l.Vote.ID = newID()
	l.Vote.BattleID = b.ID
	if err := b.Validate(); err != nil {
		return im.lineError(l, err)
	}
	id, err := im.judge(ctx, l)
	if err != nil {
		return err
	}
	l.Vote.JudgeID = id
	if err := l.Vote.Validate(); err != nil {
		return im.lineError(l, err)
	}
	if l.Weight < 0 {
		return im.lineError(l, ringside.FieldError("vote_weight", "must not be negative"))
	}
	im.res.Lines++
	if fresh {
		if dup, err := im.storedBefore(ctx, l, timed); err != nil || dup {
			if dup {
				im.res.Existing++
			}
			return err
		}
	}
	if l.Measured {
		im.measured++
	}
	im.batch = append(im.batch, l)
	if len(im.batch) == importBatch {
		return im.flush(ctx)
	}
	return nil
}

// lineError names the file and the line in an EINVALID error.
func (im *BattleImport) lineError(l *ImportLine, err error) error {
	le := &ringside.LineError{File: im.file, Line: l.Line, Err: err}
	var fe *ringside.Error
	if errors.As(err, &fe) {
		if fe.Code != ringside.EINVALID {
			return err
		}
		le.Field, le.Err = fe.Field, errors.New(fe.Message)
	}
	return ringside.Errorf(ringside.EINVALID, "%s", le.Error())
}

// judge returns the id of the line's judge, creating it the first time.
// Imported judges never have an invite token, which keeps an imported
// "human:alice" apart from an invited person of the same name.
func (im *BattleImport) judge(ctx context.Context, l *ImportLine) (string, error) {
	key := [2]string{l.JudgeKind, l.JudgeName}
	if id, ok := im.judges[key]; ok {
		return id, nil
	}
	j := &ringside.Judge{Kind: l.JudgeKind, Name: l.JudgeName}
	if err := j.Validate(); err != nil {
		var fe *ringside.Error
		if errors.As(err, &fe) {
			err = ringside.FieldError("judge", "%s", fe.Message)
		}
		return "", im.lineError(l, err)
	}
	err := im.tx.QueryRowContext(ctx, "SELECT id FROM judges WHERE kind = $1 AND name = $2 AND token_hash IS NULL ORDER BY created_at LIMIT 1",
		j.Kind, j.Name).Scan(&j.ID)
	if errors.Is(err, sql.ErrNoRows) {
		j.ID = newID()
		_, err = im.tx.ExecContext(ctx, "INSERT INTO judges (id, kind, name, quota, created_at) VALUES ($1, $2, $3, 0, $4)",
			j.ID, j.Kind, j.Name, formatTime(im.now))
		im.res.Judges++
	}
	if err != nil {
		return "", fmt.Errorf("store: judge %s: %w", j.Label(), err)
	}
	im.judges[key] = j.ID
	return j.ID, nil
}

// stmt prepares a multi-row statement: head, then n rows of cols
// placeholders, then tail.
func (im *BattleImport) stmt(ctx context.Context, head string, cols, n int, tail string) (*sql.Stmt, error) {
	var q strings.Builder
	q.WriteString(head)
	// Anonymous "?" placeholders: the driver looks every parameter's name
	// up in a list that holds named ones only, so $N costs a scan per
	// parameter, quadratic in the batch.
	row := "(?" + strings.Repeat(",?", cols-1) + ")"
	for r := 0; r < n; r++ {
		if r > 0 {
			q.WriteByte(',')
		}
		q.WriteString(row)
	}
	q.WriteString(tail)
	key := q.String()
	if s, ok := im.stmts[key]; ok {
		return s, nil
	}
	s, err := im.tx.PrepareContext(ctx, key)
	if err != nil {
		return nil, err
	}
	im.stmts[key] = s
	return s, nil
}

// flush writes the queued lines: their battles (an existing battle_id is
// left alone, after checking it is the same battle), their votes (a vote
// already there is left alone), and the weights of LLM votes.
func (im *BattleImport) flush(ctx context.Context) error {
	if len(im.batch) == 0 {
		return nil
	}
	lines := im.batch
	im.batch = im.batch[:0:0]
	st, err := im.stmt(ctx, `INSERT INTO battles (id, source, prompt_id, sample, model_a, model_b,
		category, kind, tags, identity_leak, extra, created_at) VALUES `, 12, len(lines),
		` ON CONFLICT (id) DO NOTHING RETURNING id`)
	if err != nil {
		return err
	}
	args := make([]any, 0, 12*len(lines))
	for _, l := range lines {
		b := &l.Battle
		tags := "[]"
		if len(b.Tags) > 0 {
			t, _ := json.Marshal(b.Tags)
			tags = string(t)
		}
		var extra any
		if len(b.Extra) > 0 {
			extra = string(b.Extra)
		}
		args = append(args, b.ID, b.Source, b.PromptID, b.Sample, b.ModelA, b.ModelB,
			b.Category, b.Kind, tags, b.IdentityLeak, extra, formatTime(b.CreatedAt))
	}
	inserted, err := returnedIDs(ctx, st, args)
	if err != nil {
		return fmt.Errorf("store: import battles: %w", err)
	}
	im.res.Battles += len(inserted)
	// Rows go in in order, so a battle the statement inserted was inserted
	// by the first line naming it; every other line must agree with it.
	first := make(map[string]bool, len(inserted))
	for _, l := range lines {
		if id := l.Battle.ID; inserted[id] && !first[id] {
			first[id] = true
		} else if err := im.sameBattle(ctx, l); err != nil {
			return err
		}
	}
	st, err = im.stmt(ctx, `INSERT INTO votes (id, battle_id, judge_id, winner, dimensions, reason, duration_ms, created_at) VALUES `,
		8, len(lines), ` ON CONFLICT (battle_id, judge_id) DO NOTHING RETURNING id`)
	if err != nil {
		return err
	}
	args = args[:0]
	for _, l := range lines {
		v := &l.Vote
		dims := "{}"
		if len(v.Dimensions) > 0 {
			d, _ := json.Marshal(v.Dimensions)
			dims = string(d)
		}
		args = append(args, v.ID, v.BattleID, v.JudgeID, string(v.Winner), dims, v.Reason, v.DurationMs, formatTime(v.CreatedAt))
	}
	votes, err := returnedIDs(ctx, st, args)
	if err != nil {
		return fmt.Errorf("store: import votes: %w", err)
	}
	im.res.Votes += len(votes)
	im.res.Existing += len(lines) - len(votes)
	for _, l := range lines {
		if !votes[l.Vote.ID] || l.JudgeKind != ringside.JudgeLLM || l.Weight == 1 {
			continue
		}
		// The weight of an LLM vote lives in its judgment (see VoteWeights).
		if _, err := im.tx.ExecContext(ctx, `INSERT INTO llm_judgments (id, battle_id, judge_id, vote_id, status, winner, weight, created_at)
			VALUES ($1, $2, $3, $4, 'ok', $5, $6, $7)`, newID(), l.Vote.BattleID, l.Vote.JudgeID, l.Vote.ID,
			string(l.Vote.Winner), l.Weight, formatTime(l.Vote.CreatedAt)); err != nil {
			return fmt.Errorf("store: import vote weight: %w", err)
		}
	}
	return nil
}

// returnedIDs runs a statement with RETURNING id and collects the ids.
func returnedIDs(ctx context.Context, st *sql.Stmt, args []any) (map[string]bool, error) {
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[string]bool, len(args))
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out[id] = true
	}
	return out, rows.Err()
}

// sameBattle checks that a line naming a stored battle_id describes that
// battle: the same models on the same sides. Anything else would attach a
// vote to a battle its judge never saw.
func (im *BattleImport) sameBattle(ctx context.Context, l *ImportLine) error {
	var a, b, prompt string
	if err := im.tx.QueryRowContext(ctx, "SELECT model_a, model_b, prompt_id FROM battles WHERE id = $1", l.Battle.ID).
		Scan(&a, &b, &prompt); err != nil {
		return fmt.Errorf("store: battle %s: %w", l.Battle.ID, err)
	}
	if a != l.Battle.ModelA || b != l.Battle.ModelB || prompt != l.Battle.PromptID {
		return im.lineError(l, ringside.FieldError("battle_id",
			"battle %s is stored as %s vs %s on question %q; this line has %s vs %s on %q",
			l.Battle.ID, a, b, prompt, l.Battle.ModelA, l.Battle.ModelB, l.Battle.PromptID))
	}
	return nil
}

// Commit writes what is queued, records the file and commits.
func (im *BattleImport) Commit(ctx context.Context) (BattleImportResult, error) {
	defer im.Rollback()
	if err := im.flush(ctx); err != nil {
		return BattleImportResult{}, err
	}
	if _, err := im.tx.ExecContext(ctx, `INSERT INTO battle_imports (sha256, file, lines, battles, votes, measured, imported_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`, im.sha, im.file, im.res.Lines, im.res.Battles, im.res.Votes, im.measured,
		formatTime(im.now)); err != nil {
		return BattleImportResult{}, err
	}
	for _, s := range im.stmts {
		s.Close()
	}
	im.stmts = nil
	err := im.tx.Commit()
	im.tx = nil
	im.db.resetImportPragmas()
	if err != nil {
		return BattleImportResult{}, err
	}
	return im.res, nil
}

// Rollback abandons the import; after Commit it does nothing.
func (im *BattleImport) Rollback() {
	for _, s := range im.stmts {
		s.Close()
	}
	im.stmts = nil
	if im.tx != nil {
		im.tx.Rollback()
		im.tx = nil
		im.db.resetImportPragmas()
	}
}
