package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/ringside-eval/ringside"
)

// Deal states.
const (
	DealOpen    = "open"
	DealVoted   = "voted"
	DealSkipped = "skipped"
	DealVoid    = "void"
)

// The group writer's statements, prepared once (see GroupWriter).
const (
	qSavepoint  = "SAVEPOINT op"
	qRollbackTo = "ROLLBACK TO op"
	qRelease    = "RELEASE op"
	qInsertDeal = "INSERT INTO deals (battle_id, judge_id, state, dealt_at, propensity) VALUES ($1, $2, 'open', $3, $4)"
	qCloseDeal  = "UPDATE deals SET state = $3, closed_at = $4 WHERE battle_id = $1 AND judge_id = $2 AND state = 'open'"
	qDealState  = `SELECT d.state, j.revoked_at IS NOT NULL FROM deals d JOIN judges j ON j.id = d.judge_id
		WHERE d.battle_id = $1 AND d.judge_id = $2`
	qVoteBy         = "SELECT " + voteColumns + " FROM votes WHERE battle_id = $1 AND judge_id = $2"
	qDealVoted      = "UPDATE deals SET state = 'voted', closed_at = $3 WHERE battle_id = $1 AND judge_id = $2"
	qVoteOnOpenDeal = `UPDATE deals SET state = 'voted', closed_at = $3 WHERE battle_id = $1 AND judge_id = $2 AND state = 'open'
		AND NOT EXISTS (SELECT 1 FROM judges WHERE id = $2 AND revoked_at IS NOT NULL)`
	qFinishBattle = `UPDATE battles SET generation_a = coalesce($2, generation_a),
		generation_b = coalesce($3, generation_b), identity_leak = identity_leak OR $4 WHERE id = $1`
	// The same rows as insertBattle and insertGeneration write, as
	// prepared statements for the judging path, where they run thousands
	// of times a second.
	qInsertLiveBattle = `INSERT INTO battles (id, source, prompt_id, sample, model_a, model_b, category, kind, tags, created_at, prompt_set)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`
	qInsertLiveGeneration = `INSERT INTO generations
		(id, prompt_id, model, sample, output, ttft_ms, latency_ms, tokens_in, tokens_out,
		 tokens_estimated, cost_usd, finish_reason, error_kind, error, created_at, prompt_set)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`
)

var groupQueries = []string{qSavepoint, qRollbackTo, qRelease, qInsertDeal, qCloseDeal, qDealState,
	qVoteBy, qInsertVote, qDealVoted, qVoteOnOpenDeal, qFinishBattle, qInsertLiveBattle, qInsertLiveGeneration}

// Deal records that a battle was shown to a judge.
type Deal struct {
	BattleID string
	JudgeID  string
	State    string
	DealtAt  time.Time
}

// DealBattle records that battle b is dealt to the judge, storing b first
// when it is new (a live battle: no run, no generations yet). Dealing the
// same battle to the same judge twice is ECONFLICT.
func (g *GroupWriter) DealBattle(ctx context.Context, b *ringside.Battle, isNew bool, judgeID string) error {
	return g.DealBattleDrawn(ctx, b, isNew, judgeID, 0)
}

// DealBattleDrawn is DealBattle for a battle whose pair was drawn with
// probability propensity (see package pairing), which the deal keeps; 0
// stores none.
func (g *GroupWriter) DealBattleDrawn(ctx context.Context, b *ringside.Battle, isNew bool, judgeID string, propensity float64) error {
	if isNew {
		if err := b.Validate(); err != nil {
			return err
		}
		if b.ID == "" {
			b.ID = newID()
		}
		if b.CreatedAt.IsZero() {
			b.CreatedAt = g.db.Now()
		}
	}
	return g.Do(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if isNew {
			if err := g.insertLiveBattle(ctx, tx, b); err != nil {
				return err
			}
		}
		return g.insertDeal(ctx, tx, b.ID, judgeID, g.db.Now(), propensity)
	})
}

func (g *GroupWriter) insertLiveBattle(ctx context.Context, tx *sql.Tx, b *ringside.Battle) error {
	if b.RunID != "" || b.GenerationA != "" || b.GenerationB != "" || len(b.Extra) > 0 {
		return g.db.insertBattle(ctx, tx, b) // not a new live battle: the general path
	}
	tags := b.Tags
	if tags == nil {
		tags = []string{}
	}
	tagsJSON, _ := json.Marshal(tags)
	_, err := g.exec(ctx, tx, qInsertLiveBattle, b.ID, b.Source, b.PromptID, b.Sample, b.ModelA, b.ModelB,
		b.Category, b.Kind, string(tagsJSON), formatTime(b.CreatedAt), b.PromptSet)
	if isUniqueViolation(err) {
		return ringside.Errorf(ringside.ECONFLICT, "battle %s already exists", b.ID)
	}
	return err
}

func (g *GroupWriter) insertLiveGeneration(ctx context.Context, tx *sql.Tx, gen *ringside.Generation) error {
	if err := gen.Validate(); err != nil {
		return err
	}
	if gen.RunID != "" {
		return g.db.insertGeneration(ctx, tx, gen) // not live: the general path
	}
	if gen.ID == "" {
		gen.ID = newID()
	}
	if gen.CreatedAt.IsZero() {
		gen.CreatedAt = g.db.Now()
	}
	_, err := g.exec(ctx, tx, qInsertLiveGeneration, gen.ID, gen.PromptID, gen.Model, gen.Sample, gen.Output,
		gen.TTFTMs, gen.LatencyMs, gen.TokensIn, gen.TokensOut, gen.TokensEstimated, gen.CostUSD,
		gen.FinishReason, gen.ErrorKind, gen.Error, formatTime(gen.CreatedAt), gen.PromptSet)
	return err
}

func (g *GroupWriter) insertDeal(ctx context.Context, tx *sql.Tx, battleID, judgeID string, now time.Time, propensity float64) error {
	var p any
	if propensity > 0 {
		p = propensity
	}
	_, err := g.exec(ctx, tx, qInsertDeal,
		battleID, judgeID, formatTime(now), p)
	switch {
	case isUniqueViolation(err):
		return ringside.Errorf(ringside.ECONFLICT, "battle %s was already dealt to this judge", battleID)
	case isForeignKeyViolation(err):
		return ringside.Errorf(ringside.ENOTFOUND, "battle %s or judge %s not found", battleID, judgeID)
	}
	return err
}

// CloseDeal ends an open deal as skipped or void. A deal that is not open
// is left as it is (a vote won the race), which the caller learns from
// ECONFLICT.
func (g *GroupWriter) CloseDeal(ctx context.Context, battleID, judgeID, state string) error {
	if state != DealSkipped && state != DealVoid {
		return ringside.FieldError("state", "%q is not skipped or void", state)
	}
	return g.Do(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := g.exec(ctx, tx, qCloseDeal,
			battleID, judgeID, state, formatTime(g.db.Now()))
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ringside.Errorf(ringside.ECONFLICT, "battle %s is not open", battleID)
		}
		return nil
	})
}

// CastVote commits a human judge's vote on a battle dealt to that judge and
// closes the deal. A battle never dealt to the judge, or a revoked judge, is
// EUNAUTHORIZED. A
// second vote returns the first one with ECONFLICT, as CreateVote does; a
// vote on a skipped or void battle is ECONFLICT with no vote. canOpen says
// whether voting on this battle is open now: when it is false, a battle the
// judge has not voted on yet is EINVALID. The vote is durable when this
// returns nil.
func (g *GroupWriter) CastVote(ctx context.Context, v *ringside.Vote, canOpen bool) (*ringside.Vote, error) {
	if err := v.Validate(); err != nil {
		return nil, err
	}
	fillVote(v, g.db.Now)
	var first *ringside.Vote
	err := g.DoUrgent(ctx, func(ctx context.Context, tx *sql.Tx) error {
		first = nil
		if canOpen {
			// The common case in two statements: an open deal of a judge
			// still invited becomes voted, and the vote is stored.
			res, err := g.exec(ctx, tx, qVoteOnOpenDeal, v.BattleID, v.JudgeID, formatTime(v.CreatedAt))
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 1 {
				return g.insertVote(ctx, tx, v)
			}
		}
		// Otherwise find out why not.
		var state string
		var revoked bool
		err := g.queryRow(ctx, tx, qDealState, v.BattleID, v.JudgeID).Scan(&state, &revoked)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return ringside.Errorf(ringside.EUNAUTHORIZED, "battle %s was not dealt to you", v.BattleID)
		case err != nil:
			return err
		case revoked:
			// Revoked by another process (the CLI): the server holding the
			// connection learns it here.
			return ringside.Errorf(ringside.EUNAUTHORIZED, "your invite was revoked")
		}
		switch state {
		case DealVoted:
			first, err = scanVote(g.queryRow(ctx, tx, qVoteBy, v.BattleID, v.JudgeID))
			if err != nil {
				return err
			}
			return ringside.Errorf(ringside.ECONFLICT, "you already voted on battle %s", v.BattleID)
		case DealSkipped, DealVoid:
			return ringside.Errorf(ringside.ECONFLICT, "battle %s was %s", v.BattleID, state)
		}
		if !canOpen {
			return ringside.Errorf(ringside.EINVALID, "voting on battle %s is not open", v.BattleID)
		}
		if err := g.insertVote(ctx, tx, v); err != nil {
			return err
		}
		_, err = g.exec(ctx, tx, qDealVoted,
			v.BattleID, v.JudgeID, formatTime(v.CreatedAt))
		return err
	})
	if first != nil {
		return first, err
	}
	if err != nil {
		return nil, err
	}
	return v, nil
}

func (g *GroupWriter) insertVote(ctx context.Context, tx *sql.Tx, v *ringside.Vote) error {
	_, err := g.exec(ctx, tx, qInsertVote, voteArgs(v)...)
	if isUniqueViolation(err) {
		// Only reachable for a vote stored outside a deal (an import).
		return ringside.Errorf(ringside.ECONFLICT, "you already voted on battle %s", v.BattleID)
	}
	return err
}

// FinishLiveBattle stores the two generations of a live battle and links
// them to it, marking the battle when a side named its model. A nil
// generation (a side cut short before it produced a result) is skipped.
func (g *GroupWriter) FinishLiveBattle(ctx context.Context, battleID string, genA, genB *ringside.Generation, identityLeak bool) error {
	return g.Do(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var ids [2]any
		for i, gen := range []*ringside.Generation{genA, genB} {
			if gen == nil {
				continue
			}
			if err := g.insertLiveGeneration(ctx, tx, gen); err != nil {
				return err
			}
			ids[i] = gen.ID
		}
		_, err := g.exec(ctx, tx, qFinishBattle,
			battleID, ids[0], ids[1], identityLeak)
		return err
	})
}

// OpenDeal returns the judge's most recent open deal, or ENOTFOUND.
func (db *DB) OpenDeal(ctx context.Context, judgeID string) (*Deal, error) {
	var d Deal
	var dealt string
	err := db.read.QueryRowContext(ctx, `SELECT battle_id, judge_id, state, dealt_at FROM deals
		WHERE judge_id = $1 AND state = 'open' ORDER BY dealt_at DESC LIMIT 1`, judgeID).
		Scan(&d.BattleID, &d.JudgeID, &d.State, &dealt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ringside.Errorf(ringside.ENOTFOUND, "no open battle")
	} else if err != nil {
		return nil, err
	}
	d.DealtAt = parseTime(dealt)
	return &d, nil
}

// CountJudgeVotes returns how many votes the judge has cast.
func (db *DB) CountJudgeVotes(ctx context.Context, judgeID string) (int, error) {
	var n int
	err := db.read.QueryRowContext(ctx, "SELECT count(*) FROM votes WHERE judge_id = $1", judgeID).Scan(&n)
	return n, err
}

// StoredCandidates returns up to limit battles of `ringside run` that can be
// dealt to the judge, least-dealt first: both sides generated without error,
// no identity leak, not dealt to this judge before, not gold (gold battles
// are dealt at judging.gold_rate only: GoldCandidates). runs limits them to the
// named runs (every run when empty). Each comes with how often it was dealt
// to anyone (skips and voids left out), so the caller can draw among the
// least-dealt.
func (db *DB) StoredCandidates(ctx context.Context, judgeID string, runs []string, limit int) ([]StoredCandidate, error) {
	query, args := qCandidates, []any{judgeID, limit}
	if len(runs) > 0 {
		query, args = qCandidatesInRuns, append(args, runsArg(runs))
	}
	// Every deal runs it: prepared (see readStmts).
	return scanCandidates(db.queryHot(ctx, query, args...))
}

// scanCandidates reads the (battle id, dealt) rows of a candidate query.
func scanCandidates(rows *sql.Rows, err error) ([]StoredCandidate, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []StoredCandidate
	for rows.Next() {
		var c StoredCandidate
		if err := rows.Scan(&c.BattleID, &c.Dealt); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// The query of StoredCandidates: $1 judge, $2 the limit, $3 the runs
// (JSON) when filtered, a text for each case (see qPairCandidates). The
// WHERE clause repeats battles_to_deal's, so that the query walks that
// index in order and stops after limit battles.
func candidatesQuery(runs string) string {
	return `SELECT b.id, b.dealt FROM battles b
		WHERE b.source = 'run' AND b.identity_leak = 0 AND b.failed_side = 0` + runs + `
		  AND NOT EXISTS (SELECT 1 FROM deals d WHERE d.battle_id = b.id AND d.judge_id = $1)
		  AND NOT EXISTS (SELECT 1 FROM gold_battles g WHERE g.battle_id = b.id)
		ORDER BY b.dealt, b.id LIMIT $2`
}

var (
	qCandidates       = candidatesQuery("")
	qCandidatesInRuns = candidatesQuery(runsFilter("$3"))
)

// StoredCandidate is a stored battle that may be dealt, and how often it was.
type StoredCandidate struct {
	BattleID string
	Dealt    int
}

// Revealed is a battle a judge voted on, with its models.
type Revealed struct {
	BattleID string
	ModelA   string
	ModelB   string
	Winner   ringside.Winner
}

// JudgeVotedBattles returns the battles the judge voted on, newest first,
// at most limit.
func (db *DB) JudgeVotedBattles(ctx context.Context, judgeID string, limit int) ([]Revealed, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT b.id, b.model_a, b.model_b, v.winner
		FROM votes v JOIN battles b ON b.id = v.battle_id
		WHERE v.judge_id = $1 ORDER BY v.id DESC LIMIT $2`, judgeID, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Revealed
	for rows.Next() {
		var r Revealed
		var w string
		if err := rows.Scan(&r.BattleID, &r.ModelA, &r.ModelB, &w); err != nil {
			return nil, err
		}
		r.Winner = ringside.Winner(w)
		out = append(out, r)
	}
	return out, rows.Err()
}
