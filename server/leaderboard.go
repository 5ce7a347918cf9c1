package server

import (
	"bytes"
	"net/http"
	"slices"
	"strconv"
	"sync"

	"github.com/labstack/echo/v4"
	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/leaderboard"
	"github.com/ringside-eval/ringside/rank"
)

// maxRounds bounds the bootstrap rounds a request may ask for.
const maxRounds = 5000

// LeaderboardReport is the answer of GET /api/leaderboard (see
// leaderboard.Report).
type LeaderboardReport = leaderboard.Report

// leaderboardCache holds the leaderboard service, which keeps the votes in
// memory and the boards cached until the data changes; it is made on first
// use.
type leaderboardCache struct {
	once sync.Once
	svc  *leaderboard.Service
}

func (s *Server) leaderboards() *leaderboard.Service {
	s.boards.once.Do(func() { s.boards.svc = leaderboard.NewService(s.DB, s.Config) })
	return s.boards.svc
}

func (s *Server) registerLeaderboardRoutes(g *echo.Group) {
	g.GET("/leaderboard", s.handleLeaderboard)
	g.GET("/battles.jsonl", s.handleBattlesDownload)
}

// handleLeaderboard is GET /api/leaderboard?by=&bootstrap=&include_leaks=&format=:
// the leaderboard of every vote. by is one of rank.SliceBy; bootstrap the
// rounds (default rank.bootstrap); format json (default) or, as a download, csv, md
// or table. EINVALID for a bad parameter.
func (s *Server) handleLeaderboard(c echo.Context) error {
	q, err := parseLeaderboardQuery(c)
	if err != nil {
		return err
	}
	format := c.QueryParam("format")
	if format != "" && format != "json" && !slices.Contains(rank.Formats, format) {
		return ringside.FieldError("format", "%q is not one of json, csv, md, table", format)
	}
	board, err := s.leaderboards().Board(c.Request().Context(), q)
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set("Cache-Control", "no-cache")
	if c.QueryParam("download") != "" || (format != "" && format != "json") {
		ext := map[string]string{"": "json", "json": "json", "csv": "csv", "md": "md", "table": "txt"}[format]
		h.Set("Content-Disposition", `attachment; filename="leaderboard.`+ext+`"`)
	}
	switch format {
	case "", "json":
		return c.Blob(http.StatusOK, echo.MIMEApplicationJSONCharsetUTF8, board.JSON)
	case "csv":
		h.Set(echo.HeaderContentType, "text/csv; charset=utf-8")
	case "md":
		h.Set(echo.HeaderContentType, "text/markdown; charset=utf-8")
	default:
		h.Set(echo.HeaderContentType, echo.MIMETextPlainCharsetUTF8)
	}
	var buf bytes.Buffer
	if err := board.Report.Leaderboard.Write(&buf, format); err != nil {
		return err
	}
	return c.Blob(http.StatusOK, h.Get(echo.HeaderContentType), buf.Bytes())
}

// handleBattlesDownload is GET /api/battles.jsonl: every vote as a line of
// the battle format (docs/formats.md), streamed.
func (s *Server) handleBattlesDownload(c echo.Context) error {
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, "application/x-ndjson")
	h.Set("Content-Disposition", `attachment; filename="battles.jsonl"`)
	h.Set("Cache-Control", "no-cache")
	c.Response().WriteHeader(http.StatusOK)
	// Past this point the status is sent: a failure can only cut the file
	// short, so it is logged.
	if err := writeBattles(c.Request().Context(), s.DB, c.Response()); err != nil {
		s.Logger.Error("battles download", "err", err)
	}
	return nil
}

// parseLeaderboardQuery reads by, bootstrap, include_leaks and control; those not
// given take the config's [rank] settings, as `ringside rank` does.
func parseLeaderboardQuery(c echo.Context) (leaderboard.Query, error) {
	q := leaderboard.Query{By: c.QueryParam("by")}
	if q.By == "overall" {
		q.By = ""
	}
	if q.By != "" && !slices.Contains(rank.SliceBy, q.By) {
		return q, ringside.FieldError("by", "%q is not one of overall, category, kind, judge, judge_kind, tag, dimension", q.By)
	}
	if v := c.QueryParam("bootstrap"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > maxRounds {
			return q, ringside.FieldError("bootstrap", "must be a whole number from 0 to %d", maxRounds)
		}
		q.Rounds = &n
	}
	if v := c.QueryParam("include_leaks"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return q, ringside.FieldError("include_leaks", "must be true or false")
		}
		q.IncludeLeaks = &b
	}
	if c.QueryParams().Has("control") {
		v := c.QueryParam("control")
		if _, err := rank.ParseControls(v); err != nil {
			return q, err
		}
		q.Control = &v
	}
	return q, nil
}
