package battlefile

// This file maps a record to the database rows an import writes and back
// to the record an export writes. Fields without a column of their own
// (see field.columnless) travel in the battle's extra fields.

import (
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/store"
)

// ImportLine converts one record into what the store imports: a battle
// (source import) and the vote of the judge the record names (defJudge,
// a person, when it names none). It copies what it keeps: a Reader reuses
// the record.
func ImportLine(rec *Record, line int, defJudge string) (*store.ImportLine, error) {
	l := &store.ImportLine{Line: line, Measured: rec.Measured()}
	l.JudgeKind, l.JudgeName = ImportJudge(rec.Judge, defJudge)
	weight, err := rec.Weight()
	if err != nil {
		return nil, err
	}
	l.Weight = weight
	var created time.Time
	if rec.Tstamp > 0 && rec.Tstamp < 1e11 {
		sec, frac := math.Modf(rec.Tstamp)
		created = time.Unix(int64(sec), int64(frac*1e9)).UTC()
	}
	l.Battle = ringside.Battle{ID: rec.BattleID, PromptID: rec.QuestionID, Sample: rec.Sample,
		ModelA: rec.ModelA, ModelB: rec.ModelB, Category: rec.Category, Kind: rec.Kind,
		Tags: append([]string(nil), rec.Tags...), IdentityLeak: rec.IdentityLeak, CreatedAt: created}
	if kept := importExtra(rec, l.JudgeKind); len(kept) > 0 {
		l.Battle.Extra = extraObject(kept)
	}
	l.Vote = ringside.Vote{Winner: rec.Winner, CreatedAt: created}
	if len(rec.Dimensions) > 0 {
		l.Vote.Dimensions = make(map[string]ringside.Winner, len(rec.Dimensions))
		for k, v := range rec.Dimensions {
			l.Vote.Dimensions[k] = v
		}
	}
	return l, nil
}

// ImportJudge reads a record's judge: "KIND:NAME" for the three judge
// kinds, a person by that name otherwise, and def for a record without.
func ImportJudge(label, def string) (kind, name string) {
	if label == "" {
		return ringside.JudgeHuman, def
	}
	if k, n, ok := strings.Cut(label, ":"); ok && n != "" {
		for _, kind := range ringside.JudgeKinds {
			if k == kind {
				return kind, n
			}
		}
	}
	return ringside.JudgeHuman, label
}

// extraField is one field kept among a battle's extra fields.
type extraField struct {
	key string
	raw []byte
}

// importExtra is what a battle keeps among its extra fields: the unknown
// fields, verbatim, and the known ones without a column.
func importExtra(rec *Record, judgeKind string) []extraField {
	kept := make([]extraField, 0, len(rec.Extra)+4)
	for k, v := range rec.Extra {
		// An LLM vote's weight is stored as its weight; any other
		// vote_weight is just an unknown field.
		if k != VoteWeightField || judgeKind != ringside.JudgeLLM {
			kept = append(kept, extraField{k, v})
		}
	}
	for i := range fields {
		f := &fields[i]
		if f.columnless == nil || !f.columnless(rec) {
			continue
		}
		// Values were checked when the record was read; only a
		// dimension can make value fail, and it has a column.
		if v, ok, _ := f.value(rec, nil); ok {
			kept = append(kept, extraField{f.name, v})
		}
	}
	return kept
}

// extraObject writes the fields as one JSON object, keys in order and each
// value verbatim as the file had it (the reader has checked it is JSON), so
// that an export gives back the very bytes.
func extraObject(kept []extraField) json.RawMessage {
	sort.Slice(kept, func(x, y int) bool { return kept[x].key < kept[y].key })
	n := 2
	for _, f := range kept {
		n += len(f.key) + len(f.raw) + 4
	}
	b := make([]byte, 0, n)
	b = append(b, '{')
	for i, f := range kept {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(appendJSONKey(b, f.key), ':')
		b = append(b, f.raw...)
	}
	return append(b, '}')
}

// appendJSONKey quotes a key; keys of plain printable ASCII, nearly all of
// them, need no escaping.
func appendJSONKey(b []byte, k string) []byte {
	for i := 0; i < len(k); i++ {
		if c := k[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			q, _ := json.Marshal(k)
			return append(b, q...)
		}
	}
	return append(append(append(b, '"'), k...), '"')
}

// FromExportVote builds the record an export writes for one vote.
func FromExportVote(e *store.ExportVote) (*Record, error) {
	b, v := &e.Battle, &e.Vote
	rec := &Record{ModelA: b.ModelA, ModelB: b.ModelB, Winner: v.Winner, Judge: e.JudgeLabel(),
		QuestionID: b.PromptID, BattleID: b.ID, Category: b.Category, Kind: b.Kind, Tags: b.Tags,
		Dimensions: v.Dimensions, Sample: b.Sample, IdentityLeak: b.IdentityLeak}
	// A battle of ringside's own is timed by its vote, as rank reads the
	// time from the database (so both order online Elo alike); an imported
	// one keeps the tstamp its file had, or none.
	if b.Source != ringside.SourceImport {
		rec.Tstamp = store.VoteTime(v.CreatedAt)
	}
	setSide(e.GenA, &rec.TTFTMsA, &rec.LatencyMsA, &rec.CostUSDA, &rec.TokensOutA, &rec.ErrorA)
	setSide(e.GenB, &rec.TTFTMsB, &rec.LatencyMsB, &rec.CostUSDB, &rec.TokensOutB, &rec.ErrorB)
	if len(b.Extra) > 0 {
		var extra map[string]json.RawMessage
		if err := json.Unmarshal(b.Extra, &extra); err != nil {
			return nil, ringside.Errorf(ringside.EINTERNAL, "battle %s: extra fields: %v", b.ID, err)
		}
		if err := putBack(rec, extra); err != nil {
			return nil, ringside.Errorf(ringside.EINTERNAL, "battle %s: %v", b.ID, err)
		}
		if len(extra) > 0 {
			rec.Extra = extra
		}
	}
	if err := setConvMetadata(rec, e); err != nil {
		return nil, err
	}
	if e.Weight != 1 {
		if rec.Extra == nil {
			rec.Extra = map[string]json.RawMessage{}
		}
		rec.Extra[VoteWeightField] = json.RawMessage(strconv.Itoa(e.Weight))
	}
	return rec, nil
}

// setConvMetadata writes FastChat's conv_metadata (token sums and Markdown
// counts of both sides) for a battle of ringside's own, so that style
// control travels with the exported data; an imported battle keeps the one
// it came with.
func setConvMetadata(rec *Record, e *store.ExportVote) error {
	if e.GenA == nil || e.GenB == nil || rec.Extra["conv_metadata"] != nil {
		return nil
	}
	a, b := e.GenA, e.GenB
	cm, err := json.Marshal(ConvMetadata{
		SumAssistantATokens: ptr(float64(a.TokensOut)), SumAssistantBTokens: ptr(float64(b.TokensOut)),
		HeaderCountA: headerCounts(a.Markdown), HeaderCountB: headerCounts(b.Markdown),
		ListCountA: listCounts(a.Markdown), ListCountB: listCounts(b.Markdown),
		BoldCountA: boldCounts(a.Markdown), BoldCountB: boldCounts(b.Markdown),
	})
	if err != nil {
		return err
	}
	if rec.Extra == nil {
		rec.Extra = map[string]json.RawMessage{}
	}
	rec.Extra["conv_metadata"] = cm
	return nil
}

// FastChat's keys for the counts per level.
func headerCounts(c store.MarkdownCounts) map[string]int {
	m := map[string]int{}
	for h, n := range c.Headers {
		m["h"+strconv.Itoa(h+1)] = n
	}
	return m
}

func listCounts(c store.MarkdownCounts) map[string]int {
	return map[string]int{"ordered": c.Ordered, "unordered": c.Unordered}
}

func boldCounts(c store.MarkdownCounts) map[string]int {
	return map[string]int{"**": c.BoldStar, "__": c.BoldUnders}
}

// setSide fills one side's measurements from its stored generation.
// Timings of zero were not measured; cost and tokens always were.
func setSide(g *store.Measures, ttft, latency, cost **float64, tokens **int, errText *string) {
	if g == nil {
		return
	}
	if g.TTFTMs > 0 {
		*ttft = ptr(g.TTFTMs)
	}
	if g.LatencyMs > 0 {
		*latency = ptr(g.LatencyMs)
	}
	*cost, *tokens, *errText = ptr(g.CostUSD), ptr(g.TokensOut), g.ErrorKind
}

func ptr[T any](v T) *T { return &v }

// FromImportedMeasures is the record of an imported battle's measured
// values and other extra fields, for the per-model summaries
// (leaderboard.AddRecordMeasures) and style control (leaderboard.RecordStyle).
func FromImportedMeasures(im *store.ImportedMeasures) (*Record, error) {
	rec := &Record{ModelA: im.ModelA, ModelB: im.ModelB}
	var extra map[string]json.RawMessage
	err := json.Unmarshal(im.Extra, &extra)
	if err == nil {
		err = putBack(rec, extra)
	}
	if err != nil {
		return nil, ringside.Errorf(ringside.EINTERNAL, "battle extra fields: %v", err)
	}
	if len(extra) > 0 {
		rec.Extra = extra // conv_metadata among them, for style control
	}
	return rec, nil
}

// putBack moves the fields an import kept among a battle's extra fields
// (field.columnless) from extra into place. They are read as a battle
// file's are, so what import wrote reads back the same.
func putBack(rec *Record, extra map[string]json.RawMessage) error {
	var d *decoder
	for k, raw := range extra {
		f := fieldByName(k)
		if f == nil || f.columnless == nil {
			continue
		}
		if d == nil {
			d = newDecoder()
		}
		if err := f.set(d, rec, []byte(k), raw); err != nil {
			return err
		}
		delete(extra, k)
	}
	return nil
}
