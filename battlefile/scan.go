package battlefile

import "bytes"

// slab hands out pointers for optional values from blocks, so that a
// million records with measurements cost thousands of allocations, not
// millions. Each pointer is distinct; a block lives while any is kept.
//
// Blocks start small and double up to slabBlock, so that a decoder used
// for a single record (see FromExportVote) costs little.
type slab struct {
	floats []float64
	ints   []int
	bools  []bool
	next   int // the size of the next block
}

const slabBlock = 1024

func (s *slab) size() int {
	s.next = min(max(2*s.next, 8), slabBlock)
	return s.next
}

func (s *slab) float(f float64) *float64 {
	if len(s.floats) == 0 {
		s.floats = make([]float64, s.size())
	}
	p := &s.floats[0]
	*p, s.floats = f, s.floats[1:]
	return p
}

func (s *slab) int(n int) *int {
	if len(s.ints) == 0 {
		s.ints = make([]int, s.size())
	}
	p := &s.ints[0]
	*p, s.ints = n, s.ints[1:]
	return p
}

func (s *slab) bool(b bool) *bool {
	if len(s.bools) == 0 {
		s.bools = make([]bool, s.size())
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
