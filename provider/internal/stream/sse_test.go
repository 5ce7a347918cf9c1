package stream

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// splitReader hands out its text in pieces of the given sizes, in turn, so
// that every line and field boundary falls mid-read somewhere.
type splitReader struct {
	s     string
	sizes []int
	i     int
}

func (r *splitReader) Read(p []byte) (int, error) {
	if r.s == "" {
		return 0, io.EOF
	}
	n := min(r.sizes[r.i%len(r.sizes)], len(p), len(r.s))
	r.i++
	copy(p, r.s[:n])
	r.s = r.s[n:]
	return n, nil
}

func readAll(t *testing.T, r io.Reader) []Event {
	t.Helper()
	sr := NewSSEReader(r)
	var out []Event
	for {
		ev, err := sr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		out = append(out, ev)
	}
}

func TestSSEReader(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Event
	}{
		{"one event", "data: hello\n\n", []Event{{Data: "hello"}}},
		{"no space after colon", "data:hello\n\n", []Event{{Data: "hello"}}},
		{"only one leading space is stripped", "data:  two\n\n", []Event{{Data: " two"}}},
		{"multi-line data", "data: a\ndata: b\n\n", []Event{{Data: "a\nb"}}},
		{"event name", "event: ping\ndata: {}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
			[]Event{{Name: "ping", Data: "{}"}, {Name: "message_stop", Data: `{"type":"message_stop"}`}}},
		{"comments skipped", ": keep-alive\n\n: OPENROUTER PROCESSING\ndata: x\n\n", []Event{{Data: "x"}}},
		{"crlf", "data: a\r\ndata: b\r\n\r\ndata: c\r\n\r\n", []Event{{Data: "a\nb"}, {Data: "c"}}},
		{"lone cr", "data: a\rdata: b\r\r", []Event{{Data: "a\nb"}}},
		{"id and retry ignored", "id: 7\nretry: 100\ndata: x\n\n", []Event{{Data: "x"}}},
		{"blank lines between events", "\n\n\ndata: a\n\n\n\ndata: b\n\n", []Event{{Data: "a"}, {Data: "b"}}},
		{"event name does not leak into the next event", "event: error\n\ndata: x\n\n", []Event{{Data: "x"}}},
		{"last event without blank line", "data: a\n\ndata: [DONE]\n", []Event{{Data: "a"}, {Data: "[DONE]"}}},
		{"last line without newline", "data: a\n\ndata: [DONE]", []Event{{Data: "a"}, {Data: "[DONE]"}}},
		{"byte order mark", "\xEF\xBB\xBFdata: a\n\n", []Event{{Data: "a"}}},
		{"utf-8 content", "data: {\"c\":\"héllo — 世界\"}\n\n", []Event{{Data: `{"c":"héllo — 世界"}`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			readers := map[string]io.Reader{
				"whole":    strings.NewReader(tt.in),
				"one byte": iotest.OneByteReader(strings.NewReader(tt.in)),
				"split":    &splitReader{s: tt.in, sizes: []int{3, 1, 7, 2, 5}},
				"half":     iotest.HalfReader(strings.NewReader(tt.in)),
			}
			for how, r := range readers {
				got := readAll(t, r)
				if len(got) != len(tt.want) {
					t.Fatalf("%s: got %d events %q, want %q", how, len(got), got, tt.want)
				}
				for i := range got {
					if got[i] != tt.want[i] {
						t.Errorf("%s: event %d = %+v, want %+v", how, i, got[i], tt.want[i])
					}
				}
			}
		})
	}
}

func TestSSEReaderErrorsPassThrough(t *testing.T) {
	boom := errors.New("connection reset")
	r := io.MultiReader(strings.NewReader("data: a\n\ndata: {\"partial"), iotest.ErrReader(boom))
	sr := NewSSEReader(r)
	if ev, err := sr.Next(); err != nil || ev.Data != "a" {
		t.Fatalf("first event = %+v, %v", ev, err)
	}
	if _, err := sr.Next(); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the reader's error (the partial line is dropped)", err)
	}
}

func TestSSEReaderLongLine(t *testing.T) {
	long := "data: " + strings.Repeat("x", MaxLine) + "\n\n"
	_, err := NewSSEReader(strings.NewReader(long)).Next()
	if err == nil || !strings.Contains(err.Error(), "longer than") {
		t.Fatalf("err = %v, want a line-too-long error", err)
	}
	ok := "data: " + strings.Repeat("y", 100_000) + "\n\n"
	ev, err := NewSSEReader(strings.NewReader(ok)).Next()
	if err != nil || len(ev.Data) != 100_000 {
		t.Fatalf("a 100 kB line: len %d, %v", len(ev.Data), err)
	}
}
