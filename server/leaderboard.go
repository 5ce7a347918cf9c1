package server

import (
	"bytes"
	"fmt"
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
// memory and the boards cached until the data changes, and the public's
// allowance of computations; both are made on first use.
type leaderboardCache struct {
	once   sync.Once
	svc    *leaderboard.Service
	public *addrAllowance
}

func (s *Server) boardsCache() *leaderboardCache {
	s.boards.once.Do(func() {
		s.boards.svc = leaderboard.NewService(s.DB, s.Config)
		s.boards.public = newAddrAllowance(s.Now, publicBoardBurst, publicBoardEvery)
	})
	return &s.boards
}

func (s *Server) leaderboards() *leaderboard.Service { return s.boardsCache().svc }

// registerLeaderboardRoutes puts the leaderboard on the public routes and
// the battles download on the admin ones: a battle record links a battle
// id, which a stored battle keeps while it is dealt to judge after judge,
// to its models, and names its judge and the time of the vote.
func (s *Server) registerLeaderboardRoutes(public, admin *echo.Group) {
	public.GET("/leaderboard", s.handleLeaderboard)
	admin.GET("/battles.jsonl", s.handleBattlesDownload)
	// The download's old address, for scripts; it too needs the token.
	public.GET("/battles.jsonl", s.handleBattlesDownload, s.requireAdmin)
}

// handleLeaderboard is GET /api/leaderboard?by=&bootstrap=&include_leaks=&weighting=&format=:
// the leaderboard of every vote. by is one of rank.SliceBy; bootstrap the
// rounds (default rank.bootstrap); format json (default) or, as a download, csv, md
// or table. EINVALID for a bad parameter. Without the admin token, by=judge
// and a bootstrap other than rank.bootstrap are EUNAUTHORIZED, and the
// boards computed for an address are limited (see publicBoardBurst).
func (s *Server) handleLeaderboard(c echo.Context) error {
	admin, err := s.adminRequest(c)
	if err != nil {
		return err
	}
	q, err := parseLeaderboardQuery(c)
	if err != nil {
		return err
	}
	if !admin {
		if err := s.publicQuery(q); err != nil {
			return err
		}
		q.Admit = s.admitPublicBoard(c)
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
		body := board.JSON
		if !admin {
			body = board.PublicJSON
		}
		return c.Blob(http.StatusOK, echo.MIMEApplicationJSONCharsetUTF8, body)
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

// handleBattlesDownload is GET /api/admin/battles.jsonl: every vote as a line of
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

// parseLeaderboardQuery reads by, bootstrap, include_leaks, control and weighting; those not
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
	if c.QueryParams().Has("weighting") {
		v := c.QueryParam("weighting")
		if err := rank.ValidateWeighting("weighting", v); err != nil {
			return q, err
		}
		q.Weighting = &v
	}
	return parseJudgesQuery(c, q)
}

// publicQuery refuses what only the admin may ask of the leaderboard: the
// per-judge slicing, which names the judges, and a round count of one's
// own, which would let anyone make every board cost seconds.
func (s *Server) publicQuery(q leaderboard.Query) error {
	if q.By == "judge" {
		return &ringside.Error{Code: ringside.EUNAUTHORIZED, Field: "by",
			Message: "judge names the judges and needs the admin token; judge_kind is public"}
	}
	if q.Judges != "" && !slices.Contains([]string{rank.JudgesHuman, rank.JudgesAuto, rank.JudgesAll}, q.Judges) {
		return &ringside.Error{Code: ringside.EUNAUTHORIZED, Field: "judges",
			Message: "naming judges needs the admin token; human, auto and all are public"}
	}
	if q.IncludeFlagged {
		return &ringside.Error{Code: ringside.EUNAUTHORIZED, Field: "include_flagged", Message: "needs the admin token"}
	}
	if q.Rounds != nil && *q.Rounds != s.Config.Rank.Bootstrap {
		return &ringside.Error{Code: ringside.EUNAUTHORIZED, Field: "bootstrap",
			Message: fmt.Sprintf("needs the admin token; without it the leaderboard uses rank.bootstrap (%d rounds)", s.Config.Rank.Bootstrap)}
	}
	return nil
}
