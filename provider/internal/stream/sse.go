package stream

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"

	"github.com/ringside-eval/ringside"
)

// MaxLine bounds one line of an event stream. A chunk of a chat completion
// is a few hundred bytes; a line past this is a broken server, and reading it
// whole would let it take any amount of memory.
const MaxLine = 4 << 20

// Event is one server-sent event: its type (the "event:" field, "" when the
// server sent none) and its data lines joined with "\n".
type Event struct {
	Name string
	Data string
}

// SSEReader reads server-sent events (the WHATWG event-stream format) from a
// body that arrives in pieces of any size: lines are reassembled across
// reads, "\n", "\r\n" and "\r" all end a line, comments (": keep-alive") are
// skipped, and several "data:" lines make one event.
type SSEReader struct {
	r       *bufio.Reader
	pending []string // lines already read, split at a lone "\r"
	eof     bool
	started bool
}

// NewSSEReader returns a reader of the events in r.
func NewSSEReader(r io.Reader) *SSEReader {
	return &SSEReader{r: bufio.NewReaderSize(r, 16<<10)}
}

// Next returns the next event. At the end of the stream it returns io.EOF;
// an event whose lines were complete but that lacked the closing blank line
// is still returned first, since some servers end that way. A read error is
// returned as it is, for the caller to classify.
func (s *SSEReader) Next() (Event, error) {
	var (
		ev      Event
		data    strings.Builder
		hasData bool
	)
	for {
		line, err := s.line()
		if err != nil {
			if errors.Is(err, io.EOF) && hasData {
				ev.Data = data.String()
				return ev, nil
			}
			return Event{}, err
		}
		if line == "" {
			if hasData {
				ev.Data = data.String()
				return ev, nil
			}
			ev = Event{}
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value, found := strings.Cut(line, ":")
		if found {
			value = strings.TrimPrefix(value, " ")
		}
		switch field {
		case "event":
			ev.Name = value
		case "data":
			if hasData {
				data.WriteByte('\n')
			}
			data.WriteString(value)
			hasData = true
		}
	}
}

// line returns the next line without its terminator. An unterminated last
// line of a stream that ended cleanly is returned as a line.
func (s *SSEReader) line() (string, error) {
	if len(s.pending) > 0 {
		l := s.pending[0]
		s.pending = s.pending[1:]
		return l, nil
	}
	if s.eof {
		return "", io.EOF
	}
	var buf []byte
	for {
		chunk, err := s.r.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > MaxLine {
			return "", Errorf(ringside.ErrKindBadResponse, "event stream line longer than %d bytes", MaxLine)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				return "", err
			}
			if len(buf) == 0 {
				return "", io.EOF
			}
			s.eof = true
		}
		break
	}
	if !s.started {
		s.started = true
		buf = bytes.TrimPrefix(buf, []byte("\xEF\xBB\xBF"))
	}
	buf = bytes.TrimSuffix(buf, []byte("\n"))
	buf = bytes.TrimSuffix(buf, []byte("\r"))
	// A lone "\r" also ends a line. Rare, but part of the format.
	if bytes.IndexByte(buf, '\r') >= 0 {
		parts := strings.Split(string(buf), "\r")
		s.pending = append(s.pending, parts[1:]...)
		return parts[0], nil
	}
	return string(buf), nil
}
