package battlefile

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"

	"github.com/ringside-eval/ringside"
)

// DefaultMaxLine bounds one line of a battle file. Third-party files
// embed whole conversations, so it is generous; it exists so that a file
// with no newlines cannot take all memory.
const DefaultMaxLine = 256 << 20

// Reader streams a battle file one line at a time. Blank lines are
// skipped, a UTF-8 byte-order mark and CRLF line ends are accepted.
type Reader struct {
	// MaxLineBytes overrides DefaultMaxLine when positive.
	MaxLineBytes int
	// File names the file in errors ("battles.jsonl:17: winner: ...").
	File string

	br   *bufio.Reader
	line int
	long []byte // a line that did not fit in br's buffer
	rec  Record
	dec  decoder
	// style has records' conv_metadata parsed as they are decoded (ReadStyled).
	style bool
}

// NewReader returns a reader of the battle file r; file names it in
// errors.
func NewReader(r io.Reader, file string) *Reader {
	return &Reader{File: file, br: bufio.NewReaderSize(r, 1<<20), dec: *newDecoder()}
}

// lineError is an ringside.EINVALID error whose message names the file, the line and
// the field, as ReadPrompts reports them.
func (r *Reader) lineError(line int, err error) error {
	le := &ringside.LineError{File: r.File, Line: line, Err: err}
	var fe *ringside.Error
	if errors.As(err, &fe) {
		le.Field, le.Err = fe.Field, errors.New(fe.Message)
	}
	return &ringside.Error{Code: ringside.EINVALID, Message: le.Error()}
}

// Line is the number of the line last read (1-based).
func (r *Reader) Line() int { return r.line }

// Next returns the next record, or io.EOF after the last one. The record is
// reused by the following call; a shallow copy is enough to keep it, since
// the reader never writes into the strings, slices or maps it handed out.
// A bad line is an ringside.EINVALID *ringside.Error whose message names the file, the line
// and the field ("battles.jsonl:17: winner: "x" is not one of ...").
func (r *Reader) Next() (*Record, error) {
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
		if r.style {
			r.rec.parseConvAhead()
		}
		return &r.rec, nil
	}
}

// readLine returns the next line without its line end. A final line without
// a newline is a line; io.EOF comes after it.
func (r *Reader) readLine() ([]byte, error) {
	max := r.MaxLineBytes
	if max <= 0 {
		max = DefaultMaxLine
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

// Read reads the battle file r and calls fn for every record
// with its line number, in file order, from the calling goroutine. rec is
// reused after fn returns (see Next). An error from fn stops the reading; an
// ringside.EINVALID *ringside.Error from fn comes back naming the line.
//
// Lines are decoded on all cores (GOMAXPROCS) in chunks of about a megabyte:
// the file still streams, with a few chunks in memory at a time.
func Read(r io.Reader, file string, fn func(line int, rec *Record) error) error {
	return read(NewReader(r, file), fn)
}

// ReadStyled is Read for a reader that will want every record's
// StyleCounts (a style-controlled leaderboard): conv_metadata is parsed
// with the rest of the line, on the decoding goroutines, rather than by fn
// on the one goroutine that calls it.
func ReadStyled(r io.Reader, file string, fn func(line int, rec *Record) error) error {
	br := NewReader(r, file)
	br.style = true
	return read(br, fn)
}

func read(br *Reader, fn func(line int, rec *Record) error) error {
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

func (r *Reader) call(fn func(int, *Record) error, line int, rec *Record) error {
	if err := fn(line, rec); err != nil {
		return r.fnError(line, err)
	}
	return nil
}

// fnError names the line in an ringside.EINVALID error from the callback. It is apart
// from call so that call's hot path does not allocate.
func (r *Reader) fnError(line int, err error) error {
	var fe *ringside.Error
	if errors.As(err, &fe) && fe.Code == ringside.EINVALID {
		return r.lineError(line, fe)
	}
	return err
}
