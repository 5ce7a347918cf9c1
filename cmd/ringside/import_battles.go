package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/leaderboard"
	"github.com/ringside-eval/ringside/store"
)

// importBattles imports a battle file (docs/formats.md; the public
// Chatbot Arena files load as they are). Each line becomes a battle
// (source import) and the vote of the judge its `judge` field names:
// "rules:NAME" and "llm:NAME" are automatic judges, "human:NAME" and any
// other value a person, and a line without one is voted by the judge
// "human:import:FILE".
//
// The file is read twice. The first pass checks every line and hashes the
// content, without touching the database; the second writes it all in one
// transaction. So a file with a bad line writes nothing and the error names
// file, line and field; and importing the same content again writes nothing
// either (it is recognised by its SHA-256).
//
// A line with a battle_id is also recognised on its own: the battle is
// created once, each judge's vote on it once, and a line whose battle_id
// names a stored battle with other models is refused. That is what makes
// an export load back into any database without duplicates, and what lets
// several lines (one per judge) share a battle. Lines without a battle_id
// are new battles every time their file is new.
//
// Fields without a column of their own (tstamp, turn, anony, the measured
// latency_ms_a..., a numeric question_id) are kept in the battle's extra
// fields with the unknown ones, so that an export gives every one back.
func (m *Main) importBattles(ctx context.Context, file, cfgPath, dbPath string) error {
	if file == "-" {
		return ringside.FieldError("FILE", "battles are imported from a file (it is read twice), not standard input")
	}
	cfg, err := m.loadConfig(cfgPath)
	if err != nil {
		return err
	}
	defJudge := "import:" + filepath.Base(file)
	sha, lines, err := checkBattleFile(file, defJudge)
	if err != nil {
		return err
	}
	db, err := openDB(ctx, cfg, dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	imp, err := db.BeginBattleImport(ctx, file, sha)
	if ringside.ErrorCode(err) == ringside.ECONFLICT {
		fmt.Fprintf(m.Stdout, "%s; nothing written\n", ringside.ErrorMessage(err))
		return db.Close()
	} else if err != nil {
		return err
	}
	defer imp.Rollback()
	// The store names file and line in its own errors (a batch is written
	// after later lines were read); they are passed through untouched.
	var storeErr error
	sha2, err := readBattleFile(file, func(line int, rec *ringside.BattleRecord) error {
		l, err := importLine(rec, line, defJudge)
		if err != nil {
			return err
		}
		if storeErr = imp.Add(ctx, l); storeErr != nil {
			return errStopImport
		}
		return nil
	})
	if err == errStopImport {
		return storeErr
	} else if err != nil {
		return err
	}
	if sha2 != sha {
		return ringside.Errorf(ringside.EINVALID, "%s changed while it was imported; nothing written", file)
	}
	res, err := imp.Commit(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "%s: %d lines: %d battles and %d votes added, %d already stored, %d new judges\n",
		file, lines, res.Battles, res.Votes, res.Existing, res.Judges)
	return db.Close()
}

// checkBattleFile is the first pass: every line checked for what the
// import would refuse, the content hashed. It returns the hash and the
// number of records. The reader has checked the format (fields, winners,
// kinds, dimensions); what is left is cheap, so the pass costs about what
// reading costs.
func checkBattleFile(file, defJudge string) (string, int, error) {
	n := 0
	judges := map[string]bool{} // labels already checked
	sha, err := readBattleFile(file, func(line int, rec *ringside.BattleRecord) error {
		if _, err := recordWeight(rec); err != nil {
			return err
		}
		if rec.Sample < 0 {
			return ringside.FieldError("sample", "must not be negative")
		}
		if !judges[rec.Judge] {
			kind, name := importJudge(rec.Judge, defJudge)
			j := ringside.Judge{Kind: kind, Name: name}
			if err := j.Validate(); err != nil {
				return ringside.FieldError("judge", "%s", ringside.ErrorMessage(err))
			}
			judges[rec.Judge] = true
		}
		n++
		return nil
	})
	return sha, n, err
}

// readBattleFile reads the records of a battle file and returns the
// SHA-256 of its bytes.
func readBattleFile(file string, fn func(int, *ringside.BattleRecord) error) (string, error) {
	f, err := os.Open(file)
	if err != nil {
		return "", ringside.Errorf(ringside.EINVALID, "%v", err)
	}
	defer f.Close()
	h := sha256.New()
	if err := ringside.ReadBattleRecords(io.TeeReader(f, h), file, fn); err != nil {
		return "", err
	}
	// ReadBattleRecords stops at the last line; the hash must cover
	// everything, trailing bytes included.
	if _, err := io.Copy(h, f); err != nil {
		return "", ringside.Errorf(ringside.EINVALID, "%v", err)
	}
	return hexSum(h), nil
}

// extraField is one field kept among a battle's extra fields.
type extraField struct {
	key string
	raw []byte
}

// extraObject writes the fields as one JSON object, keys in order and each
// value verbatim as the file had it (the reader has checked it is JSON), so
// that an export gives back the very bytes.
func extraObject(fields []extraField) json.RawMessage {
	sort.Slice(fields, func(x, y int) bool { return fields[x].key < fields[y].key })
	n := 2
	for _, f := range fields {
		n += len(f.key) + len(f.raw) + 4
	}
	b := make([]byte, 0, n)
	b = append(b, '{')
	for i, f := range fields {
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

// appendJSONNumber writes f as encoding/json does (the reader has checked
// it is finite).
func appendJSONNumber(b []byte, f float64) []byte {
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		q, _ := json.Marshal(f)
		return append(b, q...)
	}
	return strconv.AppendFloat(b, f, 'f', -1, 64)
}

// errStopImport stops reading when the store refused a line.
var errStopImport = errors.New("import stopped")

func hexSum(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)) }

// importJudge reads a record's judge: "KIND:NAME" for the three judge
// kinds, a person by that name otherwise.
func importJudge(label, def string) (kind, name string) {
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

// importLine converts one record. It copies what it keeps: the reader
// reuses the record.
func importLine(rec *ringside.BattleRecord, line int, defJudge string) (*store.ImportLine, error) {
	l := &store.ImportLine{Line: line, Measured: measured(rec)}
	l.JudgeKind, l.JudgeName = importJudge(rec.Judge, defJudge)
	weight, err := recordWeight(rec)
	if err != nil {
		return nil, err
	}
	l.Weight = weight
	fields := make([]extraField, 0, len(rec.Extra)+4)
	for k, v := range rec.Extra {
		// An LLM vote's weight is stored as its weight; any other
		// vote_weight is just an unknown field.
		if k != leaderboard.VoteWeightField || l.JudgeKind != ringside.JudgeLLM {
			fields = append(fields, extraField{k, v})
		}
	}
	num := func(key string, f *float64) {
		if f != nil {
			fields = append(fields, extraField{key, appendJSONNumber(nil, *f)})
		}
	}
	count := func(key string, n *int) {
		if n != nil {
			fields = append(fields, extraField{key, strconv.AppendInt(nil, int64(*n), 10)})
		}
	}
	str := func(key, s string) {
		if s != "" {
			b, _ := json.Marshal(s)
			fields = append(fields, extraField{key, b})
		}
	}
	if rec.Tstamp != 0 {
		num("tstamp", &rec.Tstamp)
	}
	if rec.Turn != 0 {
		count("turn", &rec.Turn)
	}
	if rec.Anony != nil {
		fields = append(fields, extraField{"anony", strconv.AppendBool(nil, *rec.Anony)})
	}
	if rec.NumericQuestionID() {
		fields = append(fields, extraField{"question_id", []byte(rec.QuestionID)})
	}
	num("latency_ms_a", rec.LatencyMsA)
	num("latency_ms_b", rec.LatencyMsB)
	num("ttft_ms_a", rec.TTFTMsA)
	num("ttft_ms_b", rec.TTFTMsB)
	num("cost_usd_a", rec.CostUSDA)
	num("cost_usd_b", rec.CostUSDB)
	count("tokens_out_a", rec.TokensOutA)
	count("tokens_out_b", rec.TokensOutB)
	str("error_a", rec.ErrorA)
	str("error_b", rec.ErrorB)
	var created time.Time
	if rec.Tstamp > 0 && rec.Tstamp < 1e11 {
		sec, frac := math.Modf(rec.Tstamp)
		created = time.Unix(int64(sec), int64(frac*1e9)).UTC()
	}
	l.Battle = ringside.Battle{ID: rec.BattleID, PromptID: rec.QuestionID, Sample: rec.Sample,
		ModelA: rec.ModelA, ModelB: rec.ModelB, Category: rec.Category, Kind: rec.Kind,
		Tags: append([]string(nil), rec.Tags...), IdentityLeak: rec.IdentityLeak, CreatedAt: created}
	if len(fields) > 0 {
		l.Battle.Extra = extraObject(fields)
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
