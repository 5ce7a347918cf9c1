package server

import (
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/store"
)

// The admin's view of chat judging: the candidate pool, and the harvest of
// judges' questions with the picks that `ringside export prompts --picked`
// keeps.

func (s *Server) registerChatAdminRoutes(admin *echo.Group) {
	admin.GET("/pool", s.handleAdminPool)
	admin.GET("/harvest", s.handleAdminHarvest)
	admin.PUT("/harvest/:id/pick", s.handleAdminPick)
}

type poolModel struct {
	Model  string  `json:"model"`
	Weight float64 `json:"weight"`
}

// handleAdminPool is GET /api/admin/pool: the models dealt to people
// (config.JudgingPool) with their weights, and the mix of sources.
func (s *Server) handleAdminPool(c echo.Context) error {
	weights := s.Config.JudgingWeights()
	pool := []poolModel{}
	for _, m := range s.Config.JudgingPool() {
		w, ok := weights[m]
		if !ok {
			w = 1
		}
		pool = append(pool, poolModel{Model: m, Weight: w})
	}
	return c.JSON(http.StatusOK, map[string]any{"pool": pool, "sources": s.Config.Judging.SourceWeights(),
		"chat_set": s.Config.Judging.ChatSet})
}

type harvestRow struct {
	ID       string `json:"id"`
	Text     string `json:"text"`
	Category string `json:"category"`
	Kind     string `json:"kind"`
	Judges   int    `json:"judges"`
	Picked   bool   `json:"picked"`
}

// handleAdminHarvest is GET /api/admin/harvest[?set=S]: the prompts of the
// chat set (or S) with the judges who voted on each and the admin's picks.
func (s *Server) handleAdminHarvest(c echo.Context) error {
	set := c.QueryParam("set")
	if set == "" {
		set = s.Config.Judging.ChatSet
	}
	list, err := s.DB.Harvest(c.Request().Context(), set, store.HarvestFilter{})
	if err != nil {
		return err
	}
	rows := make([]harvestRow, 0, len(list))
	for _, h := range list {
		p := h.Prompt
		rows = append(rows, harvestRow{ID: p.ID, Text: p.Messages[len(p.Messages)-1].Content, Category: p.Category,
			Kind: p.Kind, Judges: h.Judges, Picked: h.Picked})
	}
	return c.JSON(http.StatusOK, map[string]any{"set": set, "prompts": rows})
}

// handleAdminPick is PUT /api/admin/harvest/:id/pick[?set=S] {picked}:
// picks a prompt for export or unpicks it; 204. ENOTFOUND for a prompt not
// in the set.
func (s *Server) handleAdminPick(c echo.Context) error {
	var req struct {
		Picked *bool `json:"picked"`
	}
	if err := c.Bind(&req); err != nil || req.Picked == nil {
		return ringside.FieldError("picked", "body must be JSON {\"picked\": true|false}")
	}
	set := c.QueryParam("set")
	if set == "" {
		set = s.Config.Judging.ChatSet
	}
	if err := s.DB.PickPrompt(c.Request().Context(), set, c.Param("id"), *req.Picked); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
