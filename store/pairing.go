package store

import (
	"context"
	"encoding/json"

	"github.com/ringside-eval/ringside"
)

// PairTally is the votes on battles between ModelA and ModelB (in that
// order) with one winner. Drawn of them were dealt with a stored
// propensity, and InverseSum is the sum of 1/propensity over those.
type PairTally struct {
	ModelA, ModelB string
	Winner         ringside.Winner
	Count          int
	Drawn          int
	InverseSum     float64
}

// PairTallies returns every vote counted by model pair and winner, battles
// with an identity leak left out as the leaderboard leaves them: what
// adaptive dealing starts from and what `ringside plan` fits.
func (db *DB) PairTallies(ctx context.Context) ([]PairTally, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT b.model_a, b.model_b, v.winner, count(*),
		count(d.propensity), coalesce(sum(1.0 / d.propensity), 0)
		FROM votes v JOIN battles b ON b.id = v.battle_id
		LEFT JOIN deals d ON d.battle_id = v.battle_id AND d.judge_id = v.judge_id AND d.propensity > 0
		WHERE b.identity_leak = 0
		GROUP BY b.model_a, b.model_b, v.winner`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []PairTally
	for rows.Next() {
		var t PairTally
		var w string
		if err := rows.Scan(&t.ModelA, &t.ModelB, &w, &t.Count, &t.Drawn, &t.InverseSum); err != nil {
			return nil, err
		}
		t.Winner = ringside.Winner(w)
		out = append(out, t)
	}
	return out, rows.Err()
}

// StoredPair is an ordered pair of models and how many of its stored
// battles may be dealt.
type StoredPair struct {
	ModelA, ModelB string
	Battles        int
}

// runsArg is the runs filter of the stored-battle queries: a JSON array,
// "[]" for every run.
func runsArg(runs []string) string {
	if len(runs) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(runs)
	return string(b)
}

// StoredPairs returns the pairs of models that have stored battles of
// `ringside run` that may be dealt (as StoredCandidates defines them,
// whoever the judge), in the named runs (every run when empty).
func (db *DB) StoredPairs(ctx context.Context, runs []string) ([]StoredPair, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT b.model_a, b.model_b, count(*) FROM battles b
		WHERE b.source = 'run' AND b.identity_leak = 0 AND b.failed_side = 0
		  AND ($1 = '[]' OR b.run_id IN (SELECT r.id FROM runs r WHERE r.name IN (SELECT value FROM json_each($1))))
		GROUP BY b.model_a, b.model_b`, runsArg(runs))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []StoredPair
	for rows.Next() {
		var p StoredPair
		if err := rows.Scan(&p.ModelA, &p.ModelB, &p.Battles); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// StoredPairCandidates is StoredCandidates within one pair of models, in
// either order; gold battles are left out, as there (they are dealt only at
// judging.gold_rate).
func (db *DB) StoredPairCandidates(ctx context.Context, judgeID string, runs []string, modelA, modelB string, limit int) ([]StoredCandidate, error) {
	query, args := qPairCandidates, []any{judgeID, modelA, modelB, limit}
	if len(runs) > 0 {
		query, args = qPairCandidatesInRuns, append(args, runsArg(runs))
	}
	// Every deal runs it: prepared (see readStmts).
	return scanCandidates(db.queryHot(ctx, query, args...))
}

// pairCandidatesOrder is one order of the pair in StoredPairCandidates: a
// walk of battles_pair_to_deal, skipping what the judge was dealt. runs is
// the filter on runs (runsFilter).
func pairCandidatesOrder(a, b, runs string) string {
	return `SELECT id, dealt FROM (SELECT b.id, b.dealt FROM battles b
			WHERE b.model_a = ` + a + ` AND b.model_b = ` + b + ` AND b.source = 'run' AND b.identity_leak = 0 AND b.failed_side = 0` + runs + `
			  AND NOT EXISTS (SELECT 1 FROM deals d WHERE d.battle_id = b.id AND d.judge_id = $1)
			  AND NOT EXISTS (SELECT 1 FROM gold_battles g WHERE g.battle_id = b.id)
			ORDER BY b.dealt, b.id LIMIT $4)`
}

// The query of StoredPairCandidates: $1 judge, $2 and $3 the models, $4
// the limit, $5 the runs (JSON) when filtered. Each case has a text of its
// own, prepared once: a bound value that decides the plan (a test
// "$5 = '[]' OR ...") made SQLite plan the statement again on every deal.
var (
	qPairCandidates = `SELECT id, dealt FROM (` + pairCandidatesOrder("$2", "$3", "") + `
		UNION ALL ` + pairCandidatesOrder("$3", "$2", "") + `) ORDER BY dealt, id LIMIT $4`
	qPairCandidatesInRuns = `SELECT id, dealt FROM (` + pairCandidatesOrder("$2", "$3", runsFilter("$5")) + `
		UNION ALL ` + pairCandidatesOrder("$3", "$2", runsFilter("$5")) + `) ORDER BY dealt, id LIMIT $4`
)

// runsFilter keeps the battles b of the runs named in the JSON array param.
func runsFilter(param string) string {
	return `
			  AND b.run_id IN (SELECT r.id FROM runs r WHERE r.name IN (SELECT value FROM json_each(` + param + `)))`
}
