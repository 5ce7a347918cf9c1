package leaderboard

import (
	"encoding/json"
	"strconv"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/rank"
	"github.com/ringside-eval/ringside/store"
)

// columnless are the battle-record fields an imported battle keeps among
// its extra fields (see importLine); export puts them back in place.
var columnless = map[string]bool{
	"tstamp": true, "turn": true, "anony": true, "question_id": true,
	"latency_ms_a": true, "latency_ms_b": true, "ttft_ms_a": true, "ttft_ms_b": true,
	"cost_usd_a": true, "cost_usd_b": true, "tokens_out_a": true, "tokens_out_b": true,
	"error_a": true, "error_b": true,
}

// BattleRecord builds the battle record of one vote.
func BattleRecord(e *store.ExportVote) (*ringside.BattleRecord, error) {
	b, v := &e.Battle, &e.Vote
	rec := &ringside.BattleRecord{ModelA: b.ModelA, ModelB: b.ModelB, Winner: v.Winner, Judge: e.JudgeLabel(),
		QuestionID: b.PromptID, BattleID: b.ID, Category: b.Category, Kind: b.Kind, Tags: b.Tags,
		Dimensions: v.Dimensions, Sample: b.Sample, IdentityLeak: b.IdentityLeak}
	// A battle of ringside's own is timed by its vote, as rank reads the
	// time from the database (so both order online Elo alike); an imported
	// one keeps the tstamp its file had, or none.
	if b.Source != ringside.SourceImport {
		rec.Tstamp = store.VoteTime(v.CreatedAt)
	}
	setSide(rec, e.GenA, &rec.TTFTMsA, &rec.LatencyMsA, &rec.CostUSDA, &rec.TokensOutA, &rec.ErrorA)
	setSide(rec, e.GenB, &rec.TTFTMsB, &rec.LatencyMsB, &rec.CostUSDB, &rec.TokensOutB, &rec.ErrorB)
	if len(b.Extra) > 0 {
		var extra map[string]json.RawMessage
		if err := json.Unmarshal(b.Extra, &extra); err != nil {
			return nil, ringside.Errorf(ringside.EINTERNAL, "battle %s: extra fields: %v", b.ID, err)
		}
		_, numericID := extra["question_id"]
		known := false
		for k := range extra {
			if columnless[k] {
				known = true
				delete(extra, k)
			}
		}
		if known {
			if err := setColumnless(rec, b.Extra); err != nil {
				return nil, ringside.Errorf(ringside.EINTERNAL, "battle %s: %v", b.ID, err)
			}
			rec.SetNumericQuestionID(numericID)
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

// setConvMetadata writes FastChat's conv_metadata (the token sums of both
// sides) for a battle of ringside's own, so that length control travels
// with the exported data; an imported battle keeps the one it came with.
// The Markdown counts are not written: the export does not read outputs.
func setConvMetadata(rec *ringside.BattleRecord, e *store.ExportVote) error {
	if e.GenA == nil || e.GenB == nil || rec.Extra["conv_metadata"] != nil {
		return nil
	}
	cm, err := json.Marshal(rank.ConvMetadata{
		SumAssistantATokens: ptr(float64(e.GenA.TokensOut)), SumAssistantBTokens: ptr(float64(e.GenB.TokensOut)),
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

// setSide fills one side's measurements from its stored generation.
// Timings of zero were not measured; cost and tokens always were.
func setSide(rec *ringside.BattleRecord, g *store.Measures, ttft, latency, cost **float64, tokens **int, errText *string) {
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

// setColumnless puts the record fields an imported battle kept among its
// extra fields back in place.
func setColumnless(rec *ringside.BattleRecord, extra json.RawMessage) error {
	var x struct {
		recordMeasures
		Tstamp *float64 `json:"tstamp"`
		Turn   *int     `json:"turn"`
		Anony  *bool    `json:"anony"`
	}
	if err := json.Unmarshal(extra, &x); err != nil {
		return err
	}
	if x.Tstamp != nil {
		rec.Tstamp = *x.Tstamp
	}
	if x.Turn != nil {
		rec.Turn = *x.Turn
	}
	rec.Anony = x.Anony
	m := x.recordMeasures
	set := func(dst **float64, v *float64) {
		if v != nil {
			*dst = v
		}
	}
	set(&rec.LatencyMsA, m.LatencyMsA)
	set(&rec.LatencyMsB, m.LatencyMsB)
	set(&rec.TTFTMsA, m.TTFTMsA)
	set(&rec.TTFTMsB, m.TTFTMsB)
	set(&rec.CostUSDA, m.CostUSDA)
	set(&rec.CostUSDB, m.CostUSDB)
	if m.TokensOutA != nil {
		rec.TokensOutA = m.TokensOutA
	}
	if m.TokensOutB != nil {
		rec.TokensOutB = m.TokensOutB
	}
	if m.ErrorA != "" {
		rec.ErrorA = m.ErrorA
	}
	if m.ErrorB != "" {
		rec.ErrorB = m.ErrorB
	}
	return nil
}
