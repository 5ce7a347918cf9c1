package battlefile

import (
	"bytes"
	"fmt"
	"io"
)

// chunk is a run of whole lines of a battle file and, once decoded,
// its records.
type chunk struct {
	first int // number of the first line
	data  []byte
	recs  []Record
	lines []int
	err   error // the first bad line, which follows recs
	done  chan struct{}
}

const chunkSize = 1 << 20

// readParallel is Read with decoding spread over workers: one
// goroutine cuts the input into chunks of whole lines, the workers decode
// them, and the caller's goroutine hands the records to fn in order.
func (r *Reader) readParallel(workers int, fn func(int, *Record) error) error {
	jobs := make(chan *chunk, workers)
	order := make(chan *chunk, 2*workers)
	free := make(chan *chunk, 3*workers+2)
	stop := make(chan struct{})
	var readErr error
	go func() {
		defer close(order)
		defer close(jobs)
		readErr = r.cut(jobs, order, free, stop)
	}()
	for w := 0; w < workers; w++ {
		go func() {
			dec := *newDecoder()
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
func (r *Reader) cut(jobs, order, free chan *chunk, stop chan struct{}) error {
	max := r.MaxLineBytes
	if max <= 0 {
		max = DefaultMaxLine
	}
	src := r.br
	line := 1
	var carry []byte
	for eof := false; !eof; {
		var c *chunk
		select {
		case c = <-free:
		default:
			c = &chunk{}
		}
		c.data = append(c.data[:0], carry...)
		cut := -1 // the last newline of c.data
		for !eof && (len(c.data) < chunkSize || cut < 0) {
			if len(c.data) == cap(c.data) {
				c.data = append(c.data, make([]byte, chunkSize)...)[:len(c.data)]
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
func (r *Reader) decodeChunk(dec *decoder, c *chunk) {
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
			c.recs = append(c.recs, Record{})
			if err := dec.decode(b, &c.recs[len(c.recs)-1]); err != nil {
				c.recs = c.recs[:len(c.recs)-1]
				c.err = r.lineError(line, err)
				return
			}
			if r.style {
				c.recs[len(c.recs)-1].parseConvAhead()
			}
			c.lines = append(c.lines, line)
		}
		line++
	}
}
