package server

import (
	"io/fs"
	"net/http"
	"path"
	"regexp"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/ringside-eval/ringside/ui"
)

func (s *Server) registerPageRoutes(e *echo.Echo) {
	pages := ui.FS()
	e.GET("/", s.handleHome(pages))
	// Pages name /favicon.svg; /favicon.ico answers the clients that ask
	// for the old name anyway, rather than a 404 in every log.
	favicon := s.handleFavicon(pages)
	e.GET("/favicon.svg", favicon)
	e.GET("/favicon.ico", favicon)
	e.GET("/judge", s.handleJudgePage(pages))
	e.GET("/leaderboard", s.handlePage(pages, "leaderboard.html"))
	e.GET("/admin", s.handlePage(pages, "admin.html"))
	e.GET("/outputs", s.handlePage(pages, "outputs.html"))
	assets := http.FileServer(http.FS(pages))
	e.GET("/assets/*", echo.WrapHandler(noListings(pages, cacheAssets(assets))))
}

// handlePage serves one HTML page. Pages are never cached, so a new binary's
// pages are seen at once.
func (s *Server) handlePage(pages fs.FS, name string) echo.HandlerFunc {
	return func(c echo.Context) error {
		body, err := fs.ReadFile(pages, name)
		if err != nil {
			return err
		}
		c.Response().Header().Set("Cache-Control", "no-cache")
		return c.HTMLBlob(http.StatusOK, body)
	}
}

// cacheAssets lets browsers keep assets with content-hashed names for a
// year: a new build gives changed content a new name, and the pages that
// name it are never cached. The others (public/assets/style.css) are
// revalidated.
func cacheAssets(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hashedAsset.MatchString(r.URL.Path) {
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			w.Header().Set("Cache-Control", "no-cache")
		}
		next.ServeHTTP(w, r)
	})
}

// noListings answers 404 for a folder, where http.FileServer would list
// its files.
func noListings(files fs.FS, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(path.Clean(r.URL.Path), "/")
		if st, err := fs.Stat(files, name); strings.HasSuffix(r.URL.Path, "/") || (err == nil && st.IsDir()) {
			http.NotFound(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// hashedAsset matches the names ui/vite.config.ts gives built scripts and
// styles: name, "-", an eight-character content hash (Rollup's URL-safe
// base64), extension.
var hashedAsset = regexp.MustCompile(`^/assets/[^/]+-[A-Za-z0-9_-]{8}\.(js|css)$`)
