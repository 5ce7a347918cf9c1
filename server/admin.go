package server

import (
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/judge"
	"github.com/ringside-eval/ringside/store"
)

// The admin page's reads, beside the invite routes (invites.go): runs with
// their progress, judges with what they did, models with their failures,
// and agreement between judges. All sit behind requireAdmin.

func (s *Server) registerAdminRoutes(admin *echo.Group) {
	admin.GET("/runs", s.handleAdminRuns)
	admin.GET("/activity", s.handleAdminActivity)
	admin.PATCH("/judges/:id", s.handleSetJudgeQuota)
	admin.GET("/models", s.handleAdminModels)
	admin.GET("/agreement", s.handleAdminAgreement)
	admin.GET("/plan", s.handleAdminPlan)
	s.registerChatAdminRoutes(admin)
}

// handleAdminRuns is GET /api/admin/runs: every run, newest first, with
// expected and stored generations, failures, battles and votes.
func (s *Server) handleAdminRuns(c echo.Context) error {
	runs, err := s.DB.RunsProgress(c.Request().Context())
	if err != nil {
		return err
	}
	if runs == nil {
		runs = []store.RunProgress{}
	}
	return c.JSON(http.StatusOK, map[string]any{"runs": runs})
}

// handleAdminActivity is GET /api/admin/activity: every judge (human,
// rules, llm) with votes cast, median time per vote, last vote, quota and
// whether it is revoked, and how many judges are connected now.
func (s *Server) handleAdminActivity(c echo.Context) error {
	list, err := s.DB.JudgesActivity(c.Request().Context())
	if err != nil {
		return err
	}
	if list == nil {
		list = []store.JudgeActivity{}
	}
	return c.JSON(http.StatusOK, map[string]any{"judges": list, "connected": s.sockets.connections()})
}

type quotaRequest struct {
	Quota *int `json:"quota"`
}

// handleSetJudgeQuota is PATCH /api/admin/judges/:id {quota}: changes a
// human judge's quota (0 = no limit); 204. It applies to the judge's next
// connection. EINVALID for a missing or negative quota, ENOTFOUND for an
// unknown judge.
func (s *Server) handleSetJudgeQuota(c echo.Context) error {
	var req quotaRequest
	if err := c.Bind(&req); err != nil || req.Quota == nil {
		return ringside.FieldError("quota", "body must be JSON {\"quota\": N}")
	}
	if err := s.DB.SetJudgeQuota(c.Request().Context(), c.Param("id"), *req.Quota); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// modelRow is a model as the admin page lists it: configured or not, and
// its failures.
type modelRow struct {
	store.ModelErrors
	Provider   string `json:"provider,omitempty"`
	Configured bool   `json:"configured"`
}

// handleAdminModels is GET /api/admin/models: the configured models and
// every model with generations, with generations, errors by kind and the
// error rate.
func (s *Server) handleAdminModels(c echo.Context) error {
	errs, err := s.DB.ModelsErrors(c.Request().Context())
	if err != nil {
		return err
	}
	seen := map[string]int{}
	out := make([]modelRow, 0, len(errs))
	for _, m := range s.Config.Models {
		seen[m.Name] = len(out)
		out = append(out, modelRow{ModelErrors: store.ModelErrors{Model: m.Name}, Provider: m.Provider, Configured: true})
	}
	for _, e := range errs {
		if i, ok := seen[e.Model]; ok {
			out[i].ModelErrors = e
			continue
		}
		out = append(out, modelRow{ModelErrors: e})
	}
	return c.JSON(http.StatusOK, map[string]any{"models": out})
}

// handleAdminAgreement is GET /api/admin/agreement: for every two judges
// that voted on the same battles, how often they agreed and Cohen's kappa.
// People are pooled as "human".
func (s *Server) handleAdminAgreement(c echo.Context) error {
	ag, err := loadAgreement(c.Request().Context(), s.DB)
	if err != nil {
		return err
	}
	if ag == nil {
		ag = []judge.Agreement{}
	}
	return c.JSON(http.StatusOK, map[string]any{"agreement": ag})
}
