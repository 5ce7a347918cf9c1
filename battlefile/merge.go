package battlefile

import (
	"crypto/sha256"
	"encoding/binary"
	"strconv"

	"github.com/ringside-eval/ringside/store"
)

// Merge finds the lines of a battle file that describe one battle voted by
// several judges: lines without a battle_id with the same question_id,
// sample, models on the same sides and identical conversations
// (conversation_a and conversation_b byte for byte), whose judges differ.
// Such lines become one battle with a vote per judge, so that the battle
// counts once in a board. Lines of one judge are never merged: Arena-Hard
// repeats a judge's line to weight a strong verdict, and Chatbot Arena's
// lines are each a battle of their own; both import as separate battles.
// (Lines with the same battle_id are one battle already: the store merges
// them.)
//
// It takes two passes, as the import reads the file twice: See every line,
// then Join every line in the same order. The first pass keeps 12 bytes a
// distinct battle; only battles with several judges are kept whole.
type Merge struct {
	defJudge string
	judges   map[string]int32
	// first holds a key's first judge, or multi once a second judge voted.
	first  map[uint64]int32
	groups map[[32]byte][]*mergeGroup
}

const multi = -1

// mergeGroup is one battle of a key: its id and who voted on it.
type mergeGroup struct {
	id     string
	judges map[int32]bool
}

// NewMerge returns a merge of a file whose lines without a judge are
// defJudge's.
func NewMerge(defJudge string) *Merge {
	return &Merge{defJudge: defJudge, judges: map[string]int32{}, first: map[uint64]int32{}, groups: map[[32]byte][]*mergeGroup{}}
}

// key is the battle a record describes; ok is false for a record that is
// never merged (a battle_id of its own, or no question_id).
func (m *Merge) key(rec *Record) (k [32]byte, judge int32, ok bool) {
	if rec.BattleID != "" || rec.QuestionID == "" {
		return k, 0, false
	}
	h := sha256.New()
	for _, s := range []string{rec.QuestionID, strconv.Itoa(rec.Sample), rec.ModelA, rec.ModelB} {
		h.Write([]byte(strconv.Itoa(len(s))))
		h.Write([]byte{':'})
		h.Write([]byte(s))
	}
	for _, f := range []string{"conversation_a", "conversation_b"} {
		raw := rec.Extra[f]
		h.Write([]byte(strconv.Itoa(len(raw)) + ":"))
		h.Write(raw)
	}
	h.Sum(k[:0])
	label := rec.Judge
	if label == "" {
		label = m.defJudge
	}
	j, seen := m.judges[label]
	if !seen {
		j = int32(len(m.judges))
		m.judges[label] = j
	}
	return k, j, true
}

// See is the first pass over a record.
func (m *Merge) See(rec *Record) {
	k, j, ok := m.key(rec)
	if !ok {
		return
	}
	short := binary.LittleEndian.Uint64(k[:8])
	if first, seen := m.first[short]; !seen {
		m.first[short] = j
	} else if first != j {
		m.first[short] = multi
	}
}

// Join is the second pass: when the record's battle has votes of several
// judges, it gives l the battle's id, the same for every judge's line,
// and a new battle for a judge's second line on it.
func (m *Merge) Join(rec *Record, l *store.ImportLine) {
	k, j, ok := m.key(rec)
	if !ok || m.first[binary.LittleEndian.Uint64(k[:8])] != multi {
		return
	}
	for _, g := range m.groups[k] {
		if !g.judges[j] {
			g.judges[j] = true
			l.Battle.ID = g.id
			return
		}
	}
	g := &mergeGroup{id: store.NewBattleID(), judges: map[int32]bool{j: true}}
	m.groups[k] = append(m.groups[k], g)
	l.Battle.ID = g.id
}
