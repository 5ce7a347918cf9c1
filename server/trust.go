package server

import (
	"bytes"
	"io"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"
	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/leaderboard"
	"github.com/ringside-eval/ringside/rank"
	"github.com/ringside-eval/ringside/store"
)

// The judges' report and what an admin decides about judges and gold
// battles (docs/api.md, "Judges and gold battles"). All behind requireAdmin.

// maxGoldUpload bounds an uploaded gold file.
const maxGoldUpload = 8 << 20

func (s *Server) registerTrustRoutes(admin *echo.Group) {
	admin.GET("/trust", s.handleTrustReport)
	admin.POST("/trust/exclusions", s.handleSetExclusion)
	admin.GET("/trust/exclusions", s.handleExclusionLog)
	admin.GET("/gold", s.handleGoldList)
	admin.POST("/gold", s.handleGoldUpload)
	admin.PUT("/gold/:battle", s.handleGoldPut)
	admin.DELETE("/gold/:battle", s.handleGoldDelete)
}

// handleTrustReport is GET /api/admin/trust?run=NAME: the judges' report
// (trust.Report) of the database or of a run, with [trust]'s thresholds
// and the admins' standing choices applied.
func (s *Server) handleTrustReport(c echo.Context) error {
	ctx := c.Request().Context()
	runID := ""
	if name := c.QueryParam("run"); name != "" {
		run, err := s.DB.RunByName(ctx, name)
		if err != nil {
			return err
		}
		runID = run.ID
	}
	rep, err := leaderboard.JudgesReport(ctx, s.DB, runID, s.Config.Trust.Thresholds())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, rep)
}

type exclusionRequest struct {
	Judge string `json:"judge"`
	// Excluded: true leaves the judge's votes out, false keeps them even
	// when flagged, null withdraws the choice.
	Excluded *bool  `json:"excluded"`
	Reason   string `json:"reason"`
}

// handleSetExclusion is POST /api/admin/trust/exclusions {judge, excluded,
// reason}: stores and logs an admin's choice about a judge's votes; 204.
// EINVALID without a reason for excluding or including, ENOTFOUND for an
// unknown judge.
func (s *Server) handleSetExclusion(c echo.Context) error {
	var req exclusionRequest
	if err := c.Bind(&req); err != nil {
		return ringside.FieldError("body", `must be JSON {"judge": "human:ana", "excluded": true, "reason": "..."}`)
	}
	if req.Judge == "" {
		return ringside.FieldError("judge", "required: a judge label such as human:ana")
	}
	if req.Excluded != nil && req.Reason == "" {
		return ringside.FieldError("reason", "required: say why, it is stored with the choice")
	}
	ctx := c.Request().Context()
	j, err := s.DB.JudgeByLabel(ctx, "judge", req.Judge)
	if err != nil {
		return err
	}
	if err := s.DB.SetJudgeExclusion(ctx, j.ID, req.Excluded, req.Reason); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// handleExclusionLog is GET /api/admin/trust/exclusions: the admins'
// choices about judges, newest first (the last 500).
func (s *Server) handleExclusionLog(c echo.Context) error {
	log, err := s.DB.ExclusionLog(c.Request().Context(), 500)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"log": log})
}

// handleGoldList is GET /api/admin/gold: the gold battles.
func (s *Server) handleGoldList(c echo.Context) error {
	golds, err := s.DB.GoldBattles(c.Request().Context())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"gold": golds})
}

type goldRequest struct {
	Expected string `json:"expected"`
	Note     string `json:"note"`
}

// handleGoldPut is PUT /api/admin/gold/:battle {expected, note}: marks a
// battle gold, or changes its verdict; 204. EINVALID for a verdict not in
// a, b, tie, not_a, not_b; ENOTFOUND for an unknown battle.
func (s *Server) handleGoldPut(c echo.Context) error {
	var req goldRequest
	if err := c.Bind(&req); err != nil {
		return ringside.FieldError("body", `must be JSON {"expected": "a", "note": "..."}`)
	}
	if !store.ValidGold(req.Expected) {
		return ringside.FieldError("expected", "%q is not one of a, b, tie, not_a, not_b", req.Expected)
	}
	g := store.Gold{BattleID: c.Param("battle"), Expected: req.Expected, Note: req.Note}
	if err := s.DB.SetGold(c.Request().Context(), []store.Gold{g}); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// handleGoldDelete is DELETE /api/admin/gold/:battle: unmarks a battle;
// 204, ENOTFOUND when it was not gold.
func (s *Server) handleGoldDelete(c echo.Context) error {
	if err := s.DB.DeleteGold(c.Request().Context(), c.Param("battle")); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// handleGoldUpload is POST /api/admin/gold with a gold file as the body
// (docs/formats.md): marks every battle of the file, or none when a line
// is bad (EINVALID naming the line) or a battle unknown (ENOTFOUND).
func (s *Server) handleGoldUpload(c echo.Context) error {
	body, err := io.ReadAll(io.LimitReader(c.Request().Body, maxGoldUpload+1))
	if err != nil {
		return ringside.Errorf(ringside.EINVALID, "gold file: %v", err)
	}
	if len(body) > maxGoldUpload {
		return ringside.FieldError("body", "gold file larger than %d bytes", maxGoldUpload)
	}
	golds, err := store.ParseGold(bytes.NewReader(body), "gold file")
	if err != nil {
		return err
	}
	if err := s.DB.SetGold(c.Request().Context(), golds); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]int{"marked": len(golds)})
}

// parseJudgesQuery reads judges= (human, auto, all or NAME[,NAME]) and
// include_flagged= into q.
func parseJudgesQuery(c echo.Context, q leaderboard.Query) (leaderboard.Query, error) {
	q.Judges = c.QueryParam("judges")
	if err := rank.ValidateJudges(q.Judges); err != nil {
		return q, err
	}
	if v := c.QueryParam("include_flagged"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return q, ringside.FieldError("include_flagged", "must be true or false")
		}
		q.IncludeFlagged = b
	}
	return q, nil
}
