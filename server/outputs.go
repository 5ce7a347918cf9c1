package server

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"
	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/store"
)

// The outputs browser's API (page: /outputs), behind requireAdmin: a run's
// answers as a matrix of prompts × models, a page at a time, and one
// generation with its conversation, checks, battles and votes.

func (s *Server) registerOutputRoutes(admin *echo.Group) {
	admin.GET("/outputs", s.handleOutputs)
	admin.GET("/outputs/:id", s.handleOutputDetail)
}

// defaultOutputsLimit is a page's prompts when the request names none.
const defaultOutputsLimit = 25

// handleOutputs is GET /api/admin/outputs?run=&set=&category=&kind=&tag=
// &failed=&model=&after=&limit=: one page of the matrix. EINVALID for a bad
// limit or failed, ENOTFOUND for an unknown run.
func (s *Server) handleOutputs(c echo.Context) error {
	f := store.OutputsFilter{Run: c.QueryParam("run"), Set: c.QueryParam("set"), Category: c.QueryParam("category"),
		Kind: c.QueryParam("kind"), Tag: c.QueryParam("tag"), Model: c.QueryParam("model"), After: c.QueryParam("after"),
		Limit: defaultOutputsLimit}
	if v := c.QueryParam("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return ringside.FieldError("limit", "%q is not a number", v)
		}
		f.Limit = n
	}
	switch v := c.QueryParam("failed"); v {
	case "", "0", "false":
	case "1", "true":
		f.Failed = true
	default:
		return ringside.FieldError("failed", "%q is not one of 1, true, 0, false", v)
	}
	page, err := s.DB.Outputs(c.Request().Context(), f)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, page)
}

// handleOutputDetail is GET /api/admin/outputs/:id: the generation with its
// whole output, its prompt's conversation, its check results, and the
// battles it was in with their votes. ENOTFOUND for an unknown id.
func (s *Server) handleOutputDetail(c echo.Context) error {
	d, err := s.DB.OutputDetail(c.Request().Context(), c.Param("id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, d)
}
