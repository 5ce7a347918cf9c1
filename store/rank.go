package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/ringside-eval/ringside"
)

// RankVote is one vote as a leaderboard sees it: who met whom, who won, and
// what the leaderboard can be sliced by.
type RankVote struct {
	ModelA, ModelB string
	Winner         ringside.Winner
	// Judge is the judge's label as battle records write it ("human:7f3c").
	Judge          string
	Category, Kind string
	Tags           []string
	Dimensions     map[string]ringside.Winner
	IdentityLeak   bool
	// Weight is how many battles the vote counts for: an LLM judge's
	// strong_weight for a strong verdict given in both orders, else 1.
	Weight int
	// Time is when the vote was cast, as VoteTime gives it (the order of
	// online Elo); zero unless RankFilter.Time asks for it.
	Time float64
	// StyleA and StyleB are what the two responses measure on the control
	// features of style control, in the order of rank.Controls: length
	// (output tokens, else words), headers, lists, bold, cost in dollars,
	// latency in ms. Bit f of StyleKnown says feature f is known for both
	// sides; all zero unless RankFilter.Style asks for them.
	StyleA, StyleB [6]float64
	StyleKnown     uint8
	// ImportExtra is an imported battle's extra fields when they may hold
	// what its record measured (conv_metadata, tokens_out_a, ...) and
	// RankFilter.Style asks for style; imported battles have no
	// generations to measure.
	ImportExtra string
	// Unit is the battle's row number: votes with the same Unit are on the
	// same battle, and share one unit of weight in a board.
	Unit int64
	// Gold marks a vote on a gold battle, which grades its judge and never
	// counts in a board.
	Gold bool
	// Propensity is the probability with which the vote's deal drew its
	// pair (adaptive pairing); 0 when none was stored, or unless
	// RankFilter.Propensity asks for it.
	Propensity float64
}

// VoteTime is a vote's time in seconds since the epoch as a float, the
// battle files' tstamp: an export writes it and a ranking from the
// database orders online Elo by it, so that the two agree exactly.
func VoteTime(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }

// RankFilter selects the votes EachRankVote streams.
type RankFilter struct {
	// RunID keeps the votes on one run's battles; "" keeps every vote.
	RunID string
	// Time fills RankVote.Time, which costs a date parse per vote.
	Time bool
	// Style fills the style fields of RankVote, which costs reading both
	// outputs of each battle (counted once per generation and read).
	Style bool
	// Propensity fills RankVote.Propensity, which costs a look-up of the
	// vote's deal.
	Propensity bool
	// After and Through bound the votes' row ids, After < rowid <= Through
	// (Through 0: no bound), so that a reader that keeps what it read can
	// read only the votes appended since (see RankState).
	After, Through int64
}

// EachRankVote calls fn for every vote matching f, in the order the votes
// were stored, and stops at fn's first error. The vote is reused by the next
// call; its strings, tags and dimensions are shared (interned) between calls
// and must not be modified.
//
// It is built for a million votes: votes in rowid order (which needs no
// sort), judges joined by rowid and named from a map, winners read as
// numbers, text read into reused buffers, and, over all votes, ranges of
// rowids read on several connections at once (see eachRankVoteParallel).
func (db *DB) EachRankVote(ctx context.Context, f RankFilter, fn func(*RankVote) error) error {
	rq, err := db.newRankQuery(ctx, f)
	if err != nil {
		return err
	}
	if f.RunID == "" {
		return db.eachRankVoteParallel(ctx, rq, f, rankSpan, fn)
	}
	// Battles first, through the run's index, then their votes.
	rows, err := db.read.QueryContext(ctx, rq.cols+` FROM battles b
		JOIN votes v ON v.battle_id = b.id JOIN judges j ON j.id = v.judge_id `+rq.joins+`
		WHERE b.run_id = $1 AND v.rowid > $2 AND ($3 = 0 OR v.rowid <= $3) ORDER BY v.rowid`, f.RunID, f.After, f.Through)
	if err != nil {
		return err
	}
	defer rows.Close()
	return rq.scan(rows, newInterner(), fn)
}

// rankQuery is what every reader of rank votes shares: the columns, the
// judges' labels and the votes' weights.
type rankQuery struct {
	cols    string
	joins   string // the generations' joins when reading style
	labels  map[int64]string
	weights map[string]int
	time    bool
}

func (db *DB) newRankQuery(ctx context.Context, f RankFilter) (*rankQuery, error) {
	labels, err := db.judgeLabels(ctx)
	if err != nil {
		return nil, err
	}
	// Weights other than 1 are few (strong LLM verdicts); looking them up
	// by vote id in a map costs less than a join on every vote, and the id
	// is not even read when there are none.
	weights, err := db.rankWeights(ctx, f.After)
	if err != nil {
		return nil, err
	}
	voteID := "''"
	if len(weights) > 0 {
		voteID = "v.id"
	}
	// An imported battle is timed by its record's tstamp, kept exactly
	// among its extra fields (none: 0), as export writes it back.
	prop := "NULL"
	if f.Propensity {
		prop = "(SELECT d.propensity FROM deals d WHERE d.battle_id = v.battle_id AND d.judge_id = v.judge_id)"
	}
	when := "'', NULL"
	if f.Time {
		when = `CASE WHEN b.source = 'import' THEN '' ELSE v.created_at END,
			CASE WHEN b.source = 'import' THEN coalesce(json_extract(b.extra, '$.tstamp'), 0.0) END`
	}
	cols := `SELECT b.model_a, b.model_b,
		CASE v.winner WHEN 'a' THEN 0 WHEN 'b' THEN 1 WHEN 'tie' THEN 2 ELSE 3 END,
		j.rowid, b.category, b.kind,
		CASE WHEN b.tags = '[]' THEN NULL ELSE b.tags END,
		CASE WHEN v.dimensions = '{}' THEN NULL ELSE v.dimensions END,
		b.identity_leak, ` + voteID + `, ` + when + `, b.rowid,
		EXISTS (SELECT 1 FROM gold_battles g WHERE g.battle_id = b.id), ` + prop
	rq := &rankQuery{labels: labels, weights: weights, time: f.Time}
	if f.Style {
		// An imported battle has no generations; what its record carried
		// (conv_metadata, tokens_out_a, ...) is among its extra fields.
		cols += `, ga.id, ga.tokens_out, ga.cost_usd, ga.latency_ms, ga.output,
			gb.id, gb.tokens_out, gb.cost_usd, gb.latency_ms, gb.output,
			CASE WHEN b.source = 'import' AND (instr(b.extra, '"conv_metadata"') > 0 OR instr(b.extra, '"tokens_out_') > 0
				OR instr(b.extra, '"cost_usd_') > 0 OR instr(b.extra, '"latency_ms_') > 0) THEN b.extra END`
		rq.joins = `LEFT JOIN generations ga ON ga.id = b.generation_a LEFT JOIN generations gb ON gb.id = b.generation_b`
	} else {
		cols += `, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL`
	}
	rq.cols = cols
	return rq, nil
}

// scan reads rows of rq.cols and calls emit for each, with one reused vote.
func (rq *rankQuery) scan(rows *sql.Rows, in *interner, emit func(*RankVote) error) error {
	var (
		a, b, cat, kind, id sql.RawBytes
		tags, dims, when    sql.RawBytes
		winner, judgeRow    int64
		leak                bool
		tstamp, prop        sql.NullFloat64
		sa, sb              styleCols
		extra               sql.RawBytes
		v                   RankVote
		err                 error
	)
	for rows.Next() {
		if err := rows.Scan(&a, &b, &winner, &judgeRow, &cat, &kind, &tags, &dims, &leak, &id, &when, &tstamp, &v.Unit, &v.Gold, &prop,
			&sa.id, &sa.tokens, &sa.cost, &sa.latency, &sa.output,
			&sb.id, &sb.tokens, &sb.cost, &sb.latency, &sb.output, &extra); err != nil {
			return err
		}
		if err := in.style(&v, &sa, &sb, extra); err != nil {
			return err
		}
		switch {
		case tstamp.Valid:
			v.Time = tstamp.Float64
		case rq.time:
			v.Time = VoteTime(parseTime(string(when)))
		}
		j, ok := rq.labels[judgeRow]
		if !ok {
			return fmt.Errorf("store: vote by unknown judge row %d", judgeRow)
		}
		v.ModelA, v.ModelB = in.str(a), in.str(b)
		v.Winner = winnerCodes[winner&3]
		v.Judge = j
		v.Category, v.Kind = in.str(cat), in.str(kind)
		if v.Tags, err = in.tags(tags); err != nil {
			return err
		}
		if v.Dimensions, err = in.dims(dims); err != nil {
			return err
		}
		v.IdentityLeak = leak
		v.Propensity = prop.Float64 // 0 when NULL
		v.Weight = 1
		if w, ok := rq.weights[string(id)]; ok {
			v.Weight = w
		}
		if err := emit(&v); err != nil {
			return err
		}
	}
	return rows.Err()
}

// rankWeights is VoteWeights for the votes after row id after: a reader
// of the votes appended since its last read needs only theirs.
func (db *DB) rankWeights(ctx context.Context, after int64) (map[string]int, error) {
	if after <= 0 {
		return db.VoteWeights(ctx)
	}
	rows, err := db.read.QueryContext(ctx, `SELECT l.vote_id, l.weight FROM llm_judgments l
		JOIN votes v ON v.id = l.vote_id WHERE l.weight <> 1 AND v.rowid > $1`, after)
	return countsByID(rows, err)
}

var winnerCodes = [4]ringside.Winner{ringside.WinnerA, ringside.WinnerB, ringside.WinnerTie, ringside.WinnerBothBad}

// judgeLabels maps each judge's rowid to its label, made once per judge
// rather than once per vote.
func (db *DB) judgeLabels(ctx context.Context) (map[int64]string, error) {
	rows, err := db.read.QueryContext(ctx, "SELECT rowid, kind, name FROM judges")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]string{}
	for rows.Next() {
		var row int64
		var j ringside.Judge
		if err := rows.Scan(&row, &j.Kind, &j.Name); err != nil {
			return nil, err
		}
		out[row] = j.Label()
	}
	return out, rows.Err()
}

// interner keeps one copy of each string, tag list and dimension map read
// from the many rows that repeat them. Its caches are bounded so that a
// column of unique values cannot grow them without limit.
type interner struct {
	strs map[string]string
	tagl map[string][]string
	dimm map[string]map[string]ringside.Winner
	gens map[string]genStyle // style features per generation id
}

const internLimit = 1 << 16

func newInterner() *interner {
	return &interner{strs: map[string]string{}, tagl: map[string][]string{}, dimm: map[string]map[string]ringside.Winner{}}
}

func (in *interner) str(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if s, ok := in.strs[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(in.strs) < internLimit {
		in.strs[s] = s
	}
	return s
}

func (in *interner) tags(b []byte) ([]string, error) {
	if len(b) == 0 {
		return nil, nil
	}
	if t, ok := in.tagl[string(b)]; ok {
		return t, nil
	}
	var t []string
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("store: battle tags %s: %w", b, err)
	}
	for i := range t {
		t[i] = in.str([]byte(t[i]))
	}
	if len(t) == 0 {
		t = nil
	}
	if len(in.tagl) < internLimit {
		in.tagl[string(b)] = t
	}
	return t, nil
}

func (in *interner) dims(b []byte) (map[string]ringside.Winner, error) {
	if len(b) == 0 {
		return nil, nil
	}
	if d, ok := in.dimm[string(b)]; ok {
		return d, nil
	}
	var d map[string]ringside.Winner
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("store: vote dimensions %s: %w", b, err)
	}
	if len(d) == 0 {
		d = nil
	}
	if len(in.dimm) < internLimit {
		in.dimm[string(b)] = d
	}
	return d, nil
}

// EachGenerationStat calls fn for every generation of a run (of every run
// and live play when runID is ""), with all fields but Output, which is
// left empty: per-model latency, cost and error summaries need no text.
// The generation is reused by the next call.
func (db *DB) EachGenerationStat(ctx context.Context, runID string, fn func(*ringside.Generation) error) error {
	rows, err := db.read.QueryContext(ctx, "SELECT "+generationStatColumns+" FROM generations WHERE $1 = '' OR run_id = $1", runID)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		g, err := scanGeneration(rows)
		if err != nil {
			return err
		}
		if err := fn(g); err != nil {
			return err
		}
	}
	return rows.Err()
}

// ImportedMeasures is an imported battle whose record carried measured
// values (latency_ms_a, cost_usd_b, ...): imported battles have no stored
// generations, so these live in the battle's extra fields.
type ImportedMeasures struct {
	ModelA, ModelB string
	// Extra is the battle's extra fields; the measured ones are among them.
	Extra json.RawMessage
}

// EachImportedMeasures calls fn for every imported battle of a run (all
// when runID is "") whose extra fields hold one of the measured fields
// named in keys (battlefile.MeasuredFields).
func (db *DB) EachImportedMeasures(ctx context.Context, runID string, keys []string, fn func(*ImportedMeasures) error) error {
	// Most imports (the public files) carry no measurements: then there is
	// nothing to look for among a million battles.
	var any bool
	if err := db.read.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM battle_imports WHERE measured > 0)").Scan(&any); err != nil {
		return err
	}
	if !any {
		return nil
	}
	// instr is a cheap filter, so that files without measurements (the
	// public ones) cost a scan of the battles and no JSON parsing.
	cond := ""
	for i, k := range keys {
		if i > 0 {
			cond += " OR "
		}
		cond += `instr(extra, '"` + k + `"') > 0`
	}
	rows, err := db.read.QueryContext(ctx, `SELECT model_a, model_b, extra FROM battles
		WHERE source = 'import' AND extra IS NOT NULL AND ($1 = '' OR run_id = $1) AND (`+cond+`)`, runID)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var m ImportedMeasures
		var extra string
		if err := rows.Scan(&m.ModelA, &m.ModelB, &extra); err != nil {
			return err
		}
		m.Extra = json.RawMessage(extra)
		if err := fn(&m); err != nil {
			return err
		}
	}
	return rows.Err()
}

// RulesJudges lists the rules judges that stored check results, by name.
func (db *DB) RulesJudges(ctx context.Context) ([]ringside.Judge, error) {
	rows, err := db.read.QueryContext(ctx, "SELECT "+judgeColumns+` FROM judges j
		WHERE kind = 'rules' AND EXISTS (SELECT 1 FROM check_results c WHERE c.judge_id = j.id)`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ringside.Judge
	for rows.Next() {
		j, err := scanJudge(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *j)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	sort.Slice(out, func(x, y int) bool { return out[x].Name < out[y].Name })
	return out, nil
}
