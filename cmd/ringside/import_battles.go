package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/battlefile"
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
// are new battles every time their file is new; within a file, those that
// describe one battle voted by several judges (same question_id, models
// and conversations, different judges) become one battle with a vote per
// judge, while one judge's repeated lines stay battles of their own
// (battlefile.Merge).
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
	merge := battlefile.NewMerge(defJudge)
	sha, lines, err := checkBattleFile(file, defJudge, merge)
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
	sha2, err := readBattleFile(file, func(line int, rec *battlefile.Record) error {
		l, err := battlefile.ImportLine(rec, line, defJudge)
		if err != nil {
			return err
		}
		merge.Join(rec, l)
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
func checkBattleFile(file, defJudge string, merge *battlefile.Merge) (string, int, error) {
	n := 0
	judges := map[string]bool{} // labels already checked
	sha, err := readBattleFile(file, func(line int, rec *battlefile.Record) error {
		if _, err := rec.Weight(); err != nil {
			return err
		}
		if rec.Sample < 0 {
			return ringside.FieldError("sample", "must not be negative")
		}
		if !judges[rec.Judge] {
			kind, name := battlefile.ImportJudge(rec.Judge, defJudge)
			j := ringside.Judge{Kind: kind, Name: name}
			if err := j.Validate(); err != nil {
				return ringside.FieldError("judge", "%s", ringside.ErrorMessage(err))
			}
			judges[rec.Judge] = true
		}
		merge.See(rec)
		n++
		return nil
	})
	return sha, n, err
}

// readBattleFile reads the records of a battle file and returns the
// SHA-256 of its bytes.
func readBattleFile(file string, fn func(int, *battlefile.Record) error) (string, error) {
	f, err := os.Open(file)
	if err != nil {
		return "", ringside.Errorf(ringside.EINVALID, "%v", err)
	}
	defer f.Close()
	h := sha256.New()
	if err := battlefile.Read(io.TeeReader(f, h), file, fn); err != nil {
		return "", err
	}
	// battlefile.Read stops at the last line; the hash must cover
	// everything, trailing bytes included.
	if _, err := io.Copy(h, f); err != nil {
		return "", ringside.Errorf(ringside.EINVALID, "%v", err)
	}
	return hexSum(h), nil
}

// errStopImport stops reading when the store refused a line.
var errStopImport = errors.New("import stopped")

func hexSum(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)) }
