package ringside

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
)

// BattleRecord is one line of a battle file (docs/formats.md, "Battle
// record"): the public Chatbot Arena fields, ringside's optional ones, and
// every unknown field kept verbatim in Extra so that an export gives it
// back.
//
// Measured values are pointers because a missing value (unknown) and a zero
// (a free local model, an empty answer) must stay apart in summaries.
type BattleRecord struct {
	ModelA string
	ModelB string
	Winner Winner
	Judge  string
	// QuestionID is the prompt id. A numeric question_id (as in some public
	// files) is kept as its text and written back as a number.
	QuestionID string
	Tstamp     float64 // seconds since the epoch; 0 when absent
	Turn       int
	Anony      *bool

	BattleID     string
	Category     string
	Kind         string
	Tags         []string
	Dimensions   map[string]Winner
	Sample       int
	IdentityLeak bool

	LatencyMsA, LatencyMsB *float64
	TTFTMsA, TTFTMsB       *float64
	CostUSDA, CostUSDB     *float64
	TokensOutA, TokensOutB *int
	ErrorA, ErrorB         string

	// Extra holds the fields ringside does not know, as raw JSON.
	Extra map[string]json.RawMessage

	questionIDNumber bool
}

// NumericQuestionID reports whether question_id was a JSON number in the
// file. A store that keeps QuestionID as text keeps this beside it, so that
// an export writes the number back and the file round-trips.
func (r *BattleRecord) NumericQuestionID() bool { return r.questionIDNumber }

// SetNumericQuestionID makes AppendBattleRecord write QuestionID as a JSON
// number (when it is one in JSON's grammar; otherwise it stays a string).
func (r *BattleRecord) SetNumericQuestionID(on bool) { r.questionIDNumber = on }

// DefaultMaxBattleLine bounds one line of a battle file. Third-party files
// embed whole conversations, so it is generous; it exists so that a file
// with no newlines cannot take all memory.
const DefaultMaxBattleLine = 256 << 20

// BattleReader streams a battle file one line at a time. Blank lines are
// skipped, a UTF-8 byte-order mark and CRLF line ends are accepted.
type BattleReader struct {
	// MaxLineBytes overrides DefaultMaxBattleLine when positive.
	MaxLineBytes int
	// File names the file in errors ("battles.jsonl:17: winner: ...").
	File string

	br   *bufio.Reader
	line int
	long []byte // a line that did not fit in br's buffer
	rec  BattleRecord
	dec  battleDecoder
}

// NewBattleReader returns a reader of the battle file r; file names it in
// errors.
func NewBattleReader(r io.Reader, file string) *BattleReader {
	return &BattleReader{File: file, br: bufio.NewReaderSize(r, 1<<20), dec: battleDecoder{intern: map[string]string{}}}
}

// lineError is an EINVALID error whose message names the file, the line and
// the field, as ReadPrompts reports them.
func (r *BattleReader) lineError(line int, err error) error {
	le := &LineError{File: r.File, Line: line, Err: err}
	var fe *Error
	if errors.As(err, &fe) {
		le.Field, le.Err = fe.Field, errors.New(fe.Message)
	}
	return &Error{Code: EINVALID, Message: le.Error()}
}

// Line is the number of the line last read (1-based).
func (r *BattleReader) Line() int { return r.line }

// Next returns the next record, or io.EOF after the last one. The record is
// reused by the following call; a shallow copy is enough to keep it, since
// the reader never writes into the strings, slices or maps it handed out.
// A bad line is an EINVALID *Error whose message names the file, the line
// and the field ("battles.jsonl:17: winner: "x" is not one of ...").
func (r *BattleReader) Next() (*BattleRecord, error) {
	for {
		b, err := r.readLine()
		if err != nil {
			return nil, err
		}
		r.line++
		if r.line == 1 {
			b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
		}
		if blankLine(b) {
			continue
		}
		if err := r.dec.decode(b, &r.rec); err != nil {
			return nil, r.lineError(r.line, err)
		}
		return &r.rec, nil
	}
}

// readLine returns the next line without its line end. A final line without
// a newline is a line; io.EOF comes after it.
func (r *BattleReader) readLine() ([]byte, error) {
	max := r.MaxLineBytes
	if max <= 0 {
		max = DefaultMaxBattleLine
	}
	b, err := r.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		r.long = append(r.long[:0], b...)
		for err == bufio.ErrBufferFull {
			if len(r.long) > max {
				return nil, r.lineError(r.line+1, fmt.Errorf("line longer than %d bytes", max))
			}
			b, err = r.br.ReadSlice('\n')
			r.long = append(r.long, b...)
		}
		b = r.long
	}
	if len(b) > max {
		return nil, r.lineError(r.line+1, fmt.Errorf("line longer than %d bytes", max))
	}
	if err == io.EOF && len(b) > 0 {
		err = nil
	}
	if err != nil {
		return nil, err
	}
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b, nil
}

// ReadBattleRecords reads the battle file r and calls fn for every record
// with its line number, in file order, from the calling goroutine. rec is
// reused after fn returns (see Next). An error from fn stops the reading; an
// EINVALID *Error from fn comes back naming the line.
//
// Lines are decoded on all cores (GOMAXPROCS) in chunks of about a megabyte:
// the file still streams, with a few chunks in memory at a time.
func ReadBattleRecords(r io.Reader, file string, fn func(line int, rec *BattleRecord) error) error {
	br := NewBattleReader(r, file)
	if workers := runtime.GOMAXPROCS(0); workers > 1 {
		return br.readParallel(workers, fn)
	}
	for {
		rec, err := br.Next()
		if err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
		if err := br.call(fn, br.line, rec); err != nil {
			return err
		}
	}
}

func (r *BattleReader) call(fn func(int, *BattleRecord) error, line int, rec *BattleRecord) error {
	if err := fn(line, rec); err != nil {
		return r.fnError(line, err)
	}
	return nil
}

// fnError names the line in an EINVALID error from the callback. It is apart
// from call so that call's hot path does not allocate.
func (r *BattleReader) fnError(line int, err error) error {
	var fe *Error
	if errors.As(err, &fe) && fe.Code == EINVALID {
		return r.lineError(line, fe)
	}
	return err
}

// battleChunk is a run of whole lines of a battle file and, once decoded,
// its records.
type battleChunk struct {
	first int // number of the first line
	data  []byte
	recs  []BattleRecord
	lines []int
	err   error // the first bad line, which follows recs
	done  chan struct{}
}

const battleChunkSize = 1 << 20

// readParallel is ReadBattleRecords with decoding spread over workers: one
// goroutine cuts the input into chunks of whole lines, the workers decode
// them, and the caller's goroutine hands the records to fn in order.
func (r *BattleReader) readParallel(workers int, fn func(int, *BattleRecord) error) error {
	jobs := make(chan *battleChunk, workers)
	order := make(chan *battleChunk, 2*workers)
	free := make(chan *battleChunk, 3*workers+2)
	stop := make(chan struct{})
	var readErr error
	go func() {
		defer close(order)
		defer close(jobs)
		readErr = r.cut(jobs, order, free, stop)
	}()
	for w := 0; w < workers; w++ {
		go func() {
			dec := battleDecoder{intern: map[string]string{}}
			for c := range jobs {
				r.decodeChunk(&dec, c)
				close(c.done)
			}
		}()
	}
	finish := func(err error) error {
		close(stop)
		for c := range order { // let the cutter and the workers wind down
			<-c.done
		}
		return err
	}
	for c := range order {
		<-c.done
		for k := range c.recs {
			if err := r.call(fn, c.lines[k], &c.recs[k]); err != nil {
				return finish(err)
			}
		}
		if c.err != nil {
			return finish(c.err)
		}
		select {
		case free <- c:
		default:
		}
	}
	return readErr
}

// cut reads the input into chunks of whole lines and sends each to a worker
// and, in order, to the consumer.
func (r *BattleReader) cut(jobs, order, free chan *battleChunk, stop chan struct{}) error {
	max := r.MaxLineBytes
	if max <= 0 {
		max = DefaultMaxBattleLine
	}
	src := r.br
	line := 1
	var carry []byte
	for eof := false; !eof; {
		var c *battleChunk
		select {
		case c = <-free:
		default:
			c = &battleChunk{}
		}
		c.data = append(c.data[:0], carry...)
		cut := -1 // the last newline of c.data
		for !eof && (len(c.data) < battleChunkSize || cut < 0) {
			if len(c.data) == cap(c.data) {
				c.data = append(c.data, make([]byte, battleChunkSize)...)[:len(c.data)]
			}
			n, err := src.Read(c.data[len(c.data):cap(c.data)])
			if i := bytes.LastIndexByte(c.data[len(c.data):len(c.data)+n], '\n'); i >= 0 {
				cut = len(c.data) + i
			}
			c.data = c.data[:len(c.data)+n]
			if err == io.EOF {
				eof = true
			} else if err != nil {
				return err
			}
			if cut < 0 && len(c.data) > max {
				return r.lineError(line, fmt.Errorf("line longer than %d bytes", max))
			}
		}
		if eof {
			carry = carry[:0]
		} else {
			carry = append(carry[:0], c.data[cut+1:]...)
			c.data = c.data[:cut+1]
		}
		c.first = line
		line += bytes.Count(c.data, []byte{'\n'})
		c.done = make(chan struct{})
		select {
		case order <- c:
		case <-stop:
			return nil
		}
		select {
		case jobs <- c:
		case <-stop:
			close(c.done)
			return nil
		}
	}
	return nil
}

// decodeChunk decodes the lines of a chunk until the first bad one.
func (r *BattleReader) decodeChunk(dec *battleDecoder, c *battleChunk) {
	c.recs, c.lines, c.err = c.recs[:0], c.lines[:0], nil
	data, line := c.data, c.first
	for len(data) > 0 {
		b := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			b, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
		}
		if line == 1 {
			b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
		}
		if !blankLine(b) {
			c.recs = append(c.recs, BattleRecord{})
			if err := dec.decode(b, &c.recs[len(c.recs)-1]); err != nil {
				c.recs = c.recs[:len(c.recs)-1]
				c.err = r.lineError(line, err)
				return
			}
			c.lines = append(c.lines, line)
		}
		line++
	}
}
