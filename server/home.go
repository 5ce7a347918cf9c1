package server

import (
	"bytes"
	"io/fs"
	"net/http"

	"github.com/labstack/echo/v4"
)

// judgeAccessMarker is the home page's line about judging, as built; the
// server fills in what is true for this server.
const judgeAccessMarker = `<span id="judge-access">vote on battles</span>`

// handleHome serves the home page, saying how one gets to judge here: open
// judging lets anyone in, otherwise an invite link is needed.
func (s *Server) handleHome(pages fs.FS) echo.HandlerFunc {
	return func(c echo.Context) error {
		body, err := fs.ReadFile(pages, "index.html")
		if err != nil {
			return err
		}
		how := "vote on battles with the invite link an organiser sends you (<code>ringside invite</code>)"
		if s.Config.Judging.Open.Enabled {
			how = "vote on battles: judging is open here, no invite needed"
		}
		body = bytes.Replace(body, []byte(judgeAccessMarker),
			[]byte(`<span id="judge-access">`+how+`</span>`), 1)
		c.Response().Header().Set("Cache-Control", "no-cache")
		return c.HTMLBlob(http.StatusOK, body)
	}
}

// handleFavicon serves the icon, revalidated like the pages.
func (s *Server) handleFavicon(pages fs.FS) echo.HandlerFunc {
	return func(c echo.Context) error {
		body, err := fs.ReadFile(pages, "favicon.svg")
		if err != nil {
			return err
		}
		c.Response().Header().Set("Cache-Control", "no-cache")
		return c.Blob(http.StatusOK, "image/svg+xml", body)
	}
}
