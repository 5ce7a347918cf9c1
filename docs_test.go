package ringside_test

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"unicode"
)

// The docs are read from the code's comments, usage texts and config, and
// from each other; a reference to a page that is not in the repository (or
// a link to a heading that was renamed) is a dead end for the reader.
func TestDocReferencesResolve(t *testing.T) {
	// This file's fixtures are dead references on purpose.
	broken, err := brokenDocRefs(os.DirFS("."), "docs_test.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range broken {
		t.Error(b)
	}
}

// The checker itself must catch each kind of dead reference.
func TestBrokenDocRefsFindsDeadReferences(t *testing.T) {
	fsys := fstest.MapFS{
		"README.md": {Data: []byte("# Top\n\nSee [the API](docs/api.md#routes), [gone](docs/gone.md), " +
			"[bad anchor](docs/api.md#nope), [self](#top), [img](docs/img/x.png), <https://example.com> " +
			"and [web](https://example.com/a.md).\n\n```\n[not a link](nowhere.md)\n```\n")},
		"docs/api.md":       {Data: []byte("# API\n\n## Routes\n\nBack to [the top](../README.md#top), [missing](#errors).\n")},
		"config.toml":       {Data: []byte("# see docs/providers.md\n")},
		"cmd/x/main.go":     {Data: []byte("// formats as DESIGN.md says; docs/api.md is fine\npackage main\n")},
		"ui/src/api.ts":     {Data: []byte("// see docs/formats.md\n")},
		"node_modules/a.md": {Data: []byte("[dead](dead.md)\n")},
	}
	got, err := brokenDocRefs(fsys, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`README.md:3: link "docs/gone.md": no such file`,
		`README.md:3: link "docs/api.md#nope": no heading "nope" in docs/api.md`,
		`README.md:3: link "docs/img/x.png": no such file`,
		`docs/api.md:5: link "#errors": no heading "errors" in docs/api.md`,
		`config.toml:1: "docs/providers.md": no such file`,
		`cmd/x/main.go:1: "DESIGN.md": no such file in the repository`,
		`ui/src/api.ts:1: "docs/formats.md": no such file`,
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("broken references:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

var (
	// docsPathRE is a reference to a page under docs/, from the repository
	// root, as code comments and usage texts write them.
	docsPathRE = regexp.MustCompile(`(?:^|[^\w./-])(docs/[\w./-]*\.md)\b`)
	// bareMDRE is a page named without a directory ("README.md").
	bareMDRE = regexp.MustCompile(`(?:^|[^\w./-])([\w-]+\.md)\b`)
	// mdLinkRE is a Markdown link or image: [text](target) or ![alt](target).
	mdLinkRE = regexp.MustCompile(`\]\(([^()\s]+)\)`)
	schemeRE = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

// brokenDocRefs scans the Markdown, TOML, Go and TypeScript files of fsys
// (outside dot directories, node_modules and the built ui/static) and
// returns each reference whose target is missing, as "file:line: ...".
// The file named skip is not scanned.
func brokenDocRefs(fsys fs.FS, skip string) ([]string, error) {
	var files []string
	mdNames := map[string]bool{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || p == "ui/static") {
				return fs.SkipDir
			}
			return nil
		}
		switch path.Ext(p) {
		case ".md":
			mdNames[path.Base(p)] = true
			files = append(files, p)
		case ".toml", ".go", ".ts":
			if p != skip {
				files = append(files, p)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	headings := map[string]map[string]bool{}
	anchors := func(file string) (map[string]bool, error) {
		if h, ok := headings[file]; ok {
			return h, nil
		}
		data, err := fs.ReadFile(fsys, file)
		if err != nil {
			return nil, err
		}
		h := headingAnchors(string(data))
		headings[file] = h
		return h, nil
	}
	exists := func(p string) bool {
		_, err := fs.Stat(fsys, p)
		return err == nil
	}
	var broken []string
	for _, file := range files {
		data, err := fs.ReadFile(fsys, file)
		if err != nil {
			return nil, err
		}
		isMD := path.Ext(file) == ".md"
		fenced := false
		for n, line := range strings.Split(string(data), "\n") {
			where := fmt.Sprintf("%s:%d", file, n+1)
			if isMD && strings.HasPrefix(strings.TrimSpace(line), "```") {
				fenced = !fenced
				continue
			}
			if fenced {
				continue
			}
			text := line
			if isMD { // link targets are checked as links, below
				text = mdLinkRE.ReplaceAllString(line, "]()")
			}
			for _, m := range docsPathRE.FindAllStringSubmatch(text, -1) {
				if !exists(m[1]) {
					broken = append(broken, fmt.Sprintf("%s: %q: no such file", where, m[1]))
				}
			}
			for _, m := range bareMDRE.FindAllStringSubmatch(text, -1) {
				if !mdNames[m[1]] {
					broken = append(broken, fmt.Sprintf("%s: %q: no such file in the repository", where, m[1]))
				}
			}
			if !isMD {
				continue
			}
			for _, m := range mdLinkRE.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if schemeRE.MatchString(target) {
					continue
				}
				file2, frag, _ := strings.Cut(target, "#")
				dest := file
				if file2 != "" {
					dest = path.Join(path.Dir(file), file2)
					if !exists(dest) {
						broken = append(broken, fmt.Sprintf("%s: link %q: no such file", where, target))
						continue
					}
				}
				if frag == "" || path.Ext(dest) != ".md" {
					continue
				}
				h, err := anchors(dest)
				if err != nil {
					return nil, err
				}
				if !h[frag] {
					broken = append(broken, fmt.Sprintf("%s: link %q: no heading %q in %s", where, target, frag, dest))
				}
			}
		}
	}
	return broken, nil
}

// headingAnchors returns the anchors GitHub gives the headings of a
// Markdown text: lower case, punctuation dropped, spaces as hyphens, and
// -1, -2... for repeats.
func headingAnchors(text string) map[string]bool {
	out := map[string]bool{}
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteRune('-')
			}
		}
		slug := b.String()
		for i := 0; ; i++ {
			s := slug
			if i > 0 {
				s = fmt.Sprintf("%s-%d", slug, i)
			}
			if !out[s] {
				out[s] = true
				break
			}
		}
	}
	return out
}
