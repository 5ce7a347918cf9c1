package config

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// The TOML library reports lines for syntax and type errors, but not for
// unknown keys or for values our validation rejects. keyLines maps every key
// and table header of the file to its line, with array-of-tables elements
// numbered ("models.2.params.top_p"), so both can be placed.

var (
	headerRE = regexp.MustCompile(`^\s*\[(\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$`)
	keyRE    = regexp.MustCompile(`^\s*"?([A-Za-z0-9_.-]+?)"?\s*=`)
)

type keyLines struct {
	order []string // paths in file order
	line  map[string]int
}

func indexKeys(src string) keyLines {
	kl := keyLines{line: map[string]int{}}
	arrays := map[string]int{} // array-of-tables name → elements seen
	var table []string
	add := func(path []string, n int) {
		p := strings.Join(path, ".")
		if _, ok := kl.line[p]; !ok {
			kl.line[p] = n
			kl.order = append(kl.order, p)
		}
	}
	for i, text := range strings.Split(src, "\n") {
		n := i + 1
		if m := headerRE.FindStringSubmatch(text); m != nil {
			parts := strings.Split(strings.ReplaceAll(m[2], " ", ""), ".")
			table = numbered(parts, arrays)
			if m[1] == "[" {
				name := strings.Join(parts, ".")
				table = append(numbered(parts[:len(parts)-1], arrays), parts[len(parts)-1], strconv.Itoa(arrays[name]))
				arrays[name]++
			}
			add(table, n)
			continue
		}
		if m := keyRE.FindStringSubmatch(text); m != nil {
			add(append(append([]string(nil), table...), strings.Split(m[1], ".")...), n)
		}
	}
	return kl
}

// numbered inserts the current element index after every array-of-tables
// name in a header path.
func numbered(parts []string, arrays map[string]int) []string {
	var out []string
	for i, p := range parts {
		out = append(out, p)
		if c, ok := arrays[strings.Join(parts[:i+1], ".")]; ok {
			out = append(out, strconv.Itoa(c-1))
		}
	}
	return out
}

// lineOf returns the line of path, or of its nearest enclosing table, or 1.
func (kl keyLines) lineOf(path []string) int {
	for n := len(path); n > 0; n-- {
		if l, ok := kl.line[strings.Join(path[:n], ".")]; ok {
			return l
		}
	}
	return 1
}

// keyLine places an undecoded key. The library's keys carry no array index,
// so the first element holding the key is reported.
func keyLine(src string, k toml.Key) int {
	kl := indexKeys(src)
	want := strings.Join(k, ".")
	for _, p := range kl.order {
		if withoutIndexes(p) == want {
			return kl.line[p]
		}
	}
	return kl.lineOf(k)
}

func withoutIndexes(path string) string {
	var out []string
	for _, p := range strings.Split(path, ".") {
		if _, err := strconv.Atoi(p); err != nil {
			out = append(out, p)
		}
	}
	return strings.Join(out, ".")
}

var fieldPartRE = regexp.MustCompile(`([A-Za-z0-9_]+)(?:\[(\d+)\])?`)

// fieldLine places a validation error's field, written like
// models[2].params.top_p.
func fieldLine(src, field string) int {
	var path []string
	for _, m := range fieldPartRE.FindAllStringSubmatch(field, -1) {
		path = append(path, m[1])
		if m[2] != "" {
			path = append(path, m[2])
		}
	}
	return indexKeys(src).lineOf(path)
}
