// Package ui holds the web pages (judge, leaderboard, admin), embedded into
// the binary so that `go build` alone gives a complete server.
package ui

import (
	"embed"
	"io/fs"
)

//go:embed static
var static embed.FS

// FS returns the pages and their assets, rooted at the static directory.
func FS() fs.FS {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the directory is embedded at build time; this cannot fail
	}
	return sub
}
