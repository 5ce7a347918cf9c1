package store

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strconv"
	"strings"

	"github.com/ringside-eval/ringside"
)

// ParseGold reads a gold file: JSONL, one {"battle_id": ..., "expected":
// "a"|"b"|"tie"|"not_a"|"not_b", "note": ...} per line, blank lines
// skipped. Errors name the file (name) and the line; the file is read
// whole before anything is marked, so a bad line marks nothing.
func ParseGold(r io.Reader, name string) ([]Gold, error) {
	var golds []Gold
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var g Gold
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			return nil, ringside.Errorf(ringside.EINVALID, "%s:%d: %v", name, line, err)
		}
		if g.BattleID == "" {
			return nil, ringside.Errorf(ringside.EINVALID, "%s:%d: battle_id: required", name, line)
		}
		if !ValidGold(g.Expected) {
			return nil, ringside.Errorf(ringside.EINVALID, "%s:%d: expected: %q is not one of a, b, tie, not_a, not_b", name, line, g.Expected)
		}
		golds = append(golds, g)
	}
	if err := sc.Err(); err != nil {
		return nil, ringside.Errorf(ringside.EINVALID, "%s: %v", name, err)
	}
	return golds, nil
}

// ExclusionLogEntry is one admin choice about a judge, as logged.
type ExclusionLogEntry struct {
	Judge string `json:"judge"`
	// Excluded is nil when the choice was withdrawn (the flags decide).
	Excluded *bool  `json:"excluded"`
	Reason   string `json:"reason"`
	At       string `json:"at"`
}

// ExclusionLog lists the admins' choices about judges, newest first, at
// most limit.
func (db *DB) ExclusionLog(ctx context.Context, limit int) ([]ExclusionLogEntry, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT j.kind, j.name, l.excluded, l.reason, l.created_at
		FROM judge_exclusion_log l JOIN judges j ON j.id = l.judge_id
		ORDER BY l.rowid DESC LIMIT $1`, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []ExclusionLogEntry{}
	for rows.Next() {
		var e ExclusionLogEntry
		var j ringside.Judge
		var ex *int64
		if err := rows.Scan(&j.Kind, &j.Name, &ex, &e.Reason, &e.At); err != nil {
			return nil, err
		}
		if ex != nil {
			b := *ex == 1
			e.Excluded = &b
		}
		e.Judge = j.Label()
		out = append(out, e)
	}
	return out, rows.Err()
}

// JudgeByLabel returns the judge a label ("human:ana") names; ENOTFOUND
// naming field when there is none.
func (db *DB) JudgeByLabel(ctx context.Context, field, label string) (*ringside.Judge, error) {
	kind, name, _ := strings.Cut(label, ":")
	j, err := db.judgeWhere(ctx, db.read, "kind = $1 AND name = $2", kind, name)
	if ringside.ErrorCode(err) != ringside.ENOTFOUND {
		return j, err
	}
	return nil, &ringside.Error{Code: ringside.ENOTFOUND, Field: field, Message: "no judge " + strconv.Quote(label) + " (give a label such as human:ana)"}
}

// NewBattleID returns a new battle id, for an import that gives several
// lines of a file one battle before storing it (battlefile.Merge).
func NewBattleID() string { return newID() }
