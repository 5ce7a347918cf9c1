package ringside

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"sort"
	"strconv"
	"unicode/utf8"
)

// BattleRecord is one line of a battle file (DESIGN.md, "Battle record"): the
// public Chatbot Arena fields, ringside's optional ones, and every unknown
// field kept verbatim in Extra so that an export gives it back.
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

// battleDecoder turns one line into a record. A hand-written scanner handles
// well-formed lines without allocating for the structure; anything it does
// not understand goes to encoding/json, which is slower but names the fault
// precisely. Both paths assign fields through setField, so they agree.
type battleDecoder struct {
	intern map[string]string
	slab   slab
}

func (d *battleDecoder) decode(line []byte, rec *BattleRecord) error {
	*rec = BattleRecord{}
	if d.decodeFast(line, rec) {
		return nil
	}
	*rec = BattleRecord{}
	return d.decodeSlow(line, rec)
}

func (d *battleDecoder) decodeFast(b []byte, rec *BattleRecord) bool {
	i := skipJSONSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipJSONSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return skipJSONSpace(b, i+1) == len(b) && finishBattleRecord(rec) == nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return false
		}
		kend, esc, ok := scanJSONString(b, i)
		if !ok {
			return false
		}
		key := b[i+1 : kend-1]
		if esc {
			var s string
			if json.Unmarshal(b[i:kend], &s) != nil {
				return false
			}
			key = []byte(s)
		}
		i = skipJSONSpace(b, kend)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipJSONSpace(b, i+1)
		vend, ok := skipJSONValue(b, i)
		if !ok {
			return false
		}
		if d.setField(rec, key, b[i:vend], true) != nil {
			return false
		}
		i = skipJSONSpace(b, vend)
		if i < len(b) && b[i] == ',' {
			i = skipJSONSpace(b, i+1)
			continue
		}
		if i < len(b) && b[i] == '}' {
			return skipJSONSpace(b, i+1) == len(b) && finishBattleRecord(rec) == nil
		}
		return false
	}
}

func (d *battleDecoder) decodeSlow(line []byte, rec *BattleRecord) error {
	syntax := func(err error) error {
		if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
			return Errorf(EINVALID, "invalid JSON: the line ends inside the battle object")
		}
		return Errorf(EINVALID, "invalid JSON: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return syntax(err)
	}
	if delim, ok := tok.(json.Delim); !ok || delim != '{' {
		return Errorf(EINVALID, "a battle must be a JSON object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return syntax(err)
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return FieldError(key, "%s", ErrorMessage(syntax(err)))
		}
		if err := d.setField(rec, []byte(key), raw, false); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return syntax(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Errorf(EINVALID, "invalid JSON: data after the battle object")
	}
	return finishBattleRecord(rec)
}

// finishBattleRecord checks what a record must have once all fields are read.
func finishBattleRecord(r *BattleRecord) error {
	switch {
	case r.ModelA == "":
		return FieldError("model_a", "required")
	case r.ModelB == "":
		return FieldError("model_b", "required")
	case r.Winner == "":
		return FieldError("winner", "required")
	case r.ModelA == r.ModelB:
		return FieldError("model_b", "a battle needs two different models (both are %q)", r.ModelA)
	}
	return nil
}

// setField assigns one field from its raw JSON value. fast is set on the
// scanner's path, where raw of an unknown field has not been validated yet.
func (d *battleDecoder) setField(r *BattleRecord, key, raw []byte, fast bool) error {
	var err error
	switch string(key) {
	case "model_a":
		r.ModelA, err = d.str(key, raw, true)
	case "model_b":
		r.ModelB, err = d.str(key, raw, true)
	case "winner":
		switch string(raw) { // the spellings of nearly every line, without a string
		case `"model_a"`:
			r.Winner = WinnerA
		case `"model_b"`:
			r.Winner = WinnerB
		case `"tie"`:
			r.Winner = WinnerTie
		case `"tie (bothbad)"`:
			r.Winner = WinnerBothBad
		default:
			var s string
			if s, err = d.str(key, raw, true); err == nil && s != "" {
				r.Winner, err = ParseArenaWinner(s)
			}
		}
	case "judge":
		r.Judge, err = d.str(key, raw, true)
	case "question_id":
		if len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9') {
			if !isJSONNumber(raw) {
				return FieldError("question_id", "must be a string or a number")
			}
			r.QuestionID, r.questionIDNumber = string(raw), true
		} else {
			var ok bool
			if r.QuestionID, ok = d.strValue(raw, false); !ok {
				err = FieldError("question_id", "must be a string or a number")
			}
			r.questionIDNumber = false
		}
	case "tstamp":
		r.Tstamp, _, err = rawNumber(key, raw)
	case "turn":
		r.Turn, _, err = rawInt(key, raw)
	case "anony":
		var b, ok bool
		if b, ok, err = rawBool(key, raw); ok {
			r.Anony = d.slab.bool(b)
		} else {
			r.Anony = nil
		}
	case "battle_id":
		r.BattleID, err = d.str(key, raw, false)
	case "category":
		r.Category, err = d.str(key, raw, true)
	case "kind":
		if r.Kind, err = d.str(key, raw, true); err == nil && r.Kind != "" && !contains(Kinds, r.Kind) {
			err = FieldError("kind", "%q is not one of typical, edge, adversarial", r.Kind)
		}
	case "tags":
		r.Tags, err = d.tags(raw)
	case "dimensions":
		r.Dimensions, err = d.dimensions(raw)
	case "sample":
		r.Sample, _, err = rawInt(key, raw)
	case "identity_leak":
		r.IdentityLeak, _, err = rawBool(key, raw)
	case "latency_ms_a":
		r.LatencyMsA, err = d.measure(key, raw)
	case "latency_ms_b":
		r.LatencyMsB, err = d.measure(key, raw)
	case "ttft_ms_a":
		r.TTFTMsA, err = d.measure(key, raw)
	case "ttft_ms_b":
		r.TTFTMsB, err = d.measure(key, raw)
	case "cost_usd_a":
		r.CostUSDA, err = d.measure(key, raw)
	case "cost_usd_b":
		r.CostUSDB, err = d.measure(key, raw)
	case "tokens_out_a":
		r.TokensOutA, err = d.count(key, raw)
	case "tokens_out_b":
		r.TokensOutB, err = d.count(key, raw)
	case "error_a":
		r.ErrorA, err = d.str(key, raw, false)
	case "error_b":
		r.ErrorB, err = d.str(key, raw, false)
	default:
		if fast && !json.Valid(raw) {
			return FieldError(string(key), "invalid JSON")
		}
		if r.Extra == nil {
			r.Extra = map[string]json.RawMessage{}
		}
		r.Extra[string(key)] = append(json.RawMessage(nil), raw...)
	}
	return err
}

// str reads a JSON string (null reads as ""). Values of fields with few
// distinct values (model names, judges, categories) are interned, so a
// million-line file holds each name once.
func (d *battleDecoder) str(key, raw []byte, intern bool) (string, error) {
	s, ok := d.strValue(raw, intern)
	if !ok {
		return "", FieldError(string(key), "must be a string")
	}
	return s, nil
}

func (d *battleDecoder) strValue(raw []byte, intern bool) (string, bool) {
	if string(raw) == "null" {
		return "", true
	}
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	end, esc, ok := scanJSONString(raw, 0)
	if !ok || end != len(raw) {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	if esc && (bytes.IndexByte(body, '\\') >= 0 || !utf8.Valid(body)) {
		// encoding/json unescapes and replaces invalid UTF-8 with U+FFFD.
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return s, true
	}
	if !intern {
		return string(body), true
	}
	if s, ok := d.intern[string(body)]; ok {
		return s, true
	}
	s := string(body)
	if len(d.intern) < 1<<16 {
		d.intern[s] = s
	}
	return s, true
}

func (d *battleDecoder) tags(raw []byte) ([]string, error) {
	if string(raw) == "null" {
		return nil, nil
	}
	bad := FieldError("tags", "must be a list of strings")
	if len(raw) < 2 || raw[0] != '[' {
		return nil, bad
	}
	var tags []string
	i := skipJSONSpace(raw, 1)
	if i < len(raw) && raw[i] == ']' {
		return []string{}, nil
	}
	for i < len(raw) {
		end, ok := skipJSONValue(raw, i)
		if !ok {
			return nil, bad
		}
		s, ok := d.strValue(raw[i:end], true)
		if !ok || raw[i] != '"' {
			return nil, bad
		}
		tags = append(tags, s)
		i = skipJSONSpace(raw, end)
		if i < len(raw) && raw[i] == ']' && skipJSONSpace(raw, i+1) == len(raw) {
			return tags, nil
		}
		if i >= len(raw) || raw[i] != ',' {
			return nil, bad
		}
		i = skipJSONSpace(raw, i+1)
	}
	return nil, bad
}

func (d *battleDecoder) dimensions(raw []byte) (map[string]Winner, error) {
	if string(raw) == "null" {
		return nil, nil
	}
	bad := FieldError("dimensions", "must be an object of dimension: winner")
	if len(raw) < 2 || raw[0] != '{' {
		return nil, bad
	}
	dims := map[string]Winner{}
	i := skipJSONSpace(raw, 1)
	if i < len(raw) && raw[i] == '}' {
		return dims, nil
	}
	for i < len(raw) {
		kend, ok := skipJSONValue(raw, i)
		if !ok || raw[i] != '"' {
			return nil, bad
		}
		name, ok := d.strValue(raw[i:kend], true)
		if !ok {
			return nil, bad
		}
		i = skipJSONSpace(raw, kend)
		if i >= len(raw) || raw[i] != ':' {
			return nil, bad
		}
		i = skipJSONSpace(raw, i+1)
		vend, ok := skipJSONValue(raw, i)
		if !ok {
			return nil, bad
		}
		v, ok := d.strValue(raw[i:vend], true)
		if !ok || raw[i] != '"' {
			return nil, FieldError("dimensions."+name, "must be a string")
		}
		w, err := ParseArenaWinner(v)
		if err != nil {
			return nil, FieldError("dimensions."+name, "%q is not one of model_a, model_b, tie, tie (bothbad), both_bad", v)
		}
		dims[name] = w
		i = skipJSONSpace(raw, vend)
		if i < len(raw) && raw[i] == '}' && skipJSONSpace(raw, i+1) == len(raw) {
			return dims, nil
		}
		if i >= len(raw) || raw[i] != ',' {
			return nil, bad
		}
		i = skipJSONSpace(raw, i+1)
	}
	return nil, bad
}

// rawNumber reads a JSON number; ok is false for null.
func rawNumber(key, raw []byte) (f float64, ok bool, err error) {
	if string(raw) == "null" {
		return 0, false, nil
	}
	if !isJSONNumber(raw) {
		return 0, false, FieldError(string(key), "must be a number")
	}
	if f, ok = smallInt(raw); !ok {
		f, err = strconv.ParseFloat(string(raw), 64)
	}
	if err != nil || math.IsInf(f, 0) {
		return 0, false, FieldError(string(key), "%s is out of range", raw)
	}
	return f, true, nil
}

// smallInt reads the common case of a short unsigned integer without
// strconv.
func smallInt(raw []byte) (float64, bool) {
	if len(raw) > 15 {
		return 0, false
	}
	n := 0
	for _, c := range raw {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = 10*n + int(c-'0')
	}
	return float64(n), true
}

// rawInt reads a whole number. 1.0 is accepted because pandas writes
// integer columns with missing values as floats.
func rawInt(key, raw []byte) (int, bool, error) {
	f, ok, err := rawNumber(key, raw)
	if !ok || err != nil {
		return 0, false, err
	}
	if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false, FieldError(string(key), "must be a whole number (is %s)", raw)
	}
	return int(f), true, nil
}

func (d *battleDecoder) measure(key, raw []byte) (*float64, error) {
	f, ok, err := rawNumber(key, raw)
	if !ok || err != nil {
		return nil, err
	}
	if f < 0 {
		return nil, FieldError(string(key), "must not be negative")
	}
	return d.slab.float(f), nil
}

func (d *battleDecoder) count(key, raw []byte) (*int, error) {
	n, ok, err := rawInt(key, raw)
	if !ok || err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, FieldError(string(key), "must not be negative")
	}
	return d.slab.int(n), nil
}

func rawBool(key, raw []byte) (b, ok bool, err error) {
	switch string(raw) {
	case "null":
		return false, false, nil
	case "true":
		return true, true, nil
	case "false":
		return false, true, nil
	}
	return false, false, FieldError(string(key), "must be true or false")
}

// slab hands out pointers for optional values from blocks, so that a
// million records with measurements cost thousands of allocations, not
// millions. Each pointer is distinct; a block lives while any is kept.
type slab struct {
	floats []float64
	ints   []int
	bools  []bool
}

func (s *slab) float(f float64) *float64 {
	if len(s.floats) == 0 {
		s.floats = make([]float64, 1024)
	}
	p := &s.floats[0]
	*p, s.floats = f, s.floats[1:]
	return p
}

func (s *slab) int(n int) *int {
	if len(s.ints) == 0 {
		s.ints = make([]int, 1024)
	}
	p := &s.ints[0]
	*p, s.ints = n, s.ints[1:]
	return p
}

func (s *slab) bool(b bool) *bool {
	if len(s.bools) == 0 {
		s.bools = make([]bool, 1024)
	}
	p := &s.bools[0]
	*p, s.bools = b, s.bools[1:]
	return p
}

func blankLine(b []byte) bool { return skipJSONSpace(b, 0) == len(b) }

func skipJSONSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanJSONString returns the index just past the string that opens at b[i]
// and whether it holds escapes or bytes beyond ASCII (which then need
// encoding/json's decoding). Escapes themselves are checked by whoever
// decodes the string; a raw control character makes the string malformed.
func scanJSONString(b []byte, i int) (end int, special, ok bool) {
	for i++; i < len(b); i++ {
		c := b[i]
		if jsonStringPlain[c] {
			continue
		}
		switch {
		case c == '"':
			return i + 1, special, true
		case c == '\\':
			special = true
			i++
		case c < 0x20:
			return 0, false, false
		default:
			special = true
		}
	}
	return 0, false, false
}

// jsonStringPlain marks the bytes a string scan passes over: printable
// ASCII other than '"' and '\\'.
var jsonStringPlain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// skipJSONValue returns the end of the JSON value that starts at b[i]. It only
// finds the extent; callers validate what they keep.
func skipJSONValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch c := b[i]; {
	case c == '"':
		end, _, ok := scanJSONString(b, i)
		return end, ok
	case c == '{' || c == '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				end, _, ok := scanJSONString(b, i)
				if !ok {
					return 0, false
				}
				i = end
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1, true
				}
			}
			i++
		}
		return 0, false
	case c == 't' || c == 'f' || c == 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if bytes.HasPrefix(b[i:], []byte(lit)) {
				return i + len(lit), true
			}
		}
		return 0, false
	case c == '-' || c >= '0' && c <= '9':
		j := i + 1
		for j < len(b) && (b[j] >= '0' && b[j] <= '9' || b[j] == '.' || b[j] == 'e' || b[j] == 'E' || b[j] == '+' || b[j] == '-') {
			j++
		}
		return j, true
	}
	return 0, false
}

// isJSONNumber reports whether b is exactly a number in JSON's grammar
// (no leading zeros, no leading '+', digits after '.' and 'e').
func isJSONNumber(b []byte) bool {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	digits := func() bool {
		start := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > start
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case !digits():
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	return i == len(b)
}

// knownBattleFields are the keys AppendBattleRecord writes itself; Extra
// entries under these names are not written.
var knownBattleFields = map[string]bool{
	"model_a": true, "model_b": true, "winner": true, "judge": true, "question_id": true,
	"tstamp": true, "turn": true, "anony": true, "battle_id": true, "category": true,
	"kind": true, "tags": true, "dimensions": true, "sample": true, "identity_leak": true,
	"latency_ms_a": true, "latency_ms_b": true, "ttft_ms_a": true, "ttft_ms_b": true,
	"cost_usd_a": true, "cost_usd_b": true, "tokens_out_a": true, "tokens_out_b": true,
	"error_a": true, "error_b": true,
}

// AppendBattleRecord appends r to dst as one JSON line (with its newline),
// winners in the arena spelling, ringside's fields after the public ones and
// Extra last in key order. Zero values of optional fields are left out.
func AppendBattleRecord(dst []byte, r *BattleRecord) ([]byte, error) {
	if r.ModelA == "" {
		return dst, FieldError("model_a", "required")
	}
	if r.ModelB == "" {
		return dst, FieldError("model_b", "required")
	}
	if err := r.Winner.Validate(); err != nil {
		return dst, err
	}
	b := append(dst, `{"model_a":`...)
	b = appendJSONString(b, r.ModelA)
	b = appendJSONString(append(b, `,"model_b":`...), r.ModelB)
	b = appendJSONString(append(b, `,"winner":`...), r.Winner.ArenaWinner())
	str := func(key, v string) {
		if v != "" {
			b = appendJSONString(append(append(append(b, ",\""...), key...), "\":"...), v)
		}
	}
	raw := func(key string, v []byte) {
		b = append(append(append(append(b, ",\""...), key...), "\":"...), v...)
	}
	flt := func(key string, f *float64) {
		if f != nil {
			raw(key, appendJSONFloat(nil, *f))
		}
	}
	num := func(key string, n *int) {
		if n != nil {
			raw(key, strconv.AppendInt(nil, int64(*n), 10))
		}
	}
	str("judge", r.Judge)
	if r.questionIDNumber && isJSONNumber([]byte(r.QuestionID)) {
		raw("question_id", []byte(r.QuestionID))
	} else {
		str("question_id", r.QuestionID)
	}
	for _, f := range []*float64{&r.Tstamp, r.LatencyMsA, r.LatencyMsB, r.TTFTMsA, r.TTFTMsB, r.CostUSDA, r.CostUSDB} {
		if f != nil && (math.IsNaN(*f) || math.IsInf(*f, 0)) {
			return dst, Errorf(EINVALID, "battle %s: a measured value is not finite", r.BattleID)
		}
	}
	if r.Tstamp != 0 {
		flt("tstamp", &r.Tstamp)
	}
	if r.Turn != 0 {
		num("turn", &r.Turn)
	}
	if r.Anony != nil {
		raw("anony", strconv.AppendBool(nil, *r.Anony))
	}
	str("battle_id", r.BattleID)
	str("category", r.Category)
	str("kind", r.Kind)
	if r.Tags != nil {
		b = append(b, `,"tags":[`...)
		for i, t := range r.Tags {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, t)
		}
		b = append(b, ']')
	}
	if r.Dimensions != nil {
		names := make([]string, 0, len(r.Dimensions))
		for name := range r.Dimensions {
			names = append(names, name)
		}
		sort.Strings(names)
		b = append(b, `,"dimensions":{`...)
		for i, name := range names {
			w := r.Dimensions[name]
			if err := w.Validate(); err != nil {
				return dst, FieldError("dimensions."+name, "%q is not one of a, b, tie, bothbad", string(w))
			}
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(append(appendJSONString(b, name), ':'), w.ArenaWinner())
		}
		b = append(b, '}')
	}
	if r.Sample != 0 {
		num("sample", &r.Sample)
	}
	if r.IdentityLeak {
		raw("identity_leak", []byte("true"))
	}
	flt("latency_ms_a", r.LatencyMsA)
	flt("latency_ms_b", r.LatencyMsB)
	flt("ttft_ms_a", r.TTFTMsA)
	flt("ttft_ms_b", r.TTFTMsB)
	flt("cost_usd_a", r.CostUSDA)
	flt("cost_usd_b", r.CostUSDB)
	num("tokens_out_a", r.TokensOutA)
	num("tokens_out_b", r.TokensOutB)
	str("error_a", r.ErrorA)
	str("error_b", r.ErrorB)
	keys := make([]string, 0, len(r.Extra))
	for k := range r.Extra {
		if !knownBattleFields[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := r.Extra[k]
		if !json.Valid(v) {
			return dst, FieldError(k, "extra field is not valid JSON")
		}
		b = append(appendJSONString(append(b, ','), k), ':')
		if bytes.ContainsAny(v, "\r\n") {
			var c bytes.Buffer
			_ = json.Compact(&c, v) // valid, checked above
			v = c.Bytes()
		}
		b = append(b, v...)
	}
	return append(b, "}\n"...), nil
}

// BattleWriter writes a battle file. Call Flush at the end.
type BattleWriter struct {
	w   *bufio.Writer
	buf []byte
}

// NewBattleWriter returns a writer of battle records to w.
func NewBattleWriter(w io.Writer) *BattleWriter {
	return &BattleWriter{w: bufio.NewWriterSize(w, 64<<10)}
}

// Write writes one record as one line. Invalid records return an EINVALID
// error and write nothing.
func (bw *BattleWriter) Write(r *BattleRecord) error {
	var err error
	if bw.buf, err = AppendBattleRecord(bw.buf[:0], r); err != nil {
		return err
	}
	_, err = bw.w.Write(bw.buf)
	return err
}

// Flush writes what is buffered to the underlying writer.
func (bw *BattleWriter) Flush() error { return bw.w.Flush() }

// appendJSONString appends s as a JSON string: like encoding/json, but without
// escaping <, > and &, which are harmless in a data file.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(append(b, s[start:i]...), `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(append(b, s[start:]...), '"')
}

// appendJSONFloat formats f as encoding/json does.
func appendJSONFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
