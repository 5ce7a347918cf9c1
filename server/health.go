package server

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/ringside-eval/ringside"
)

func (s *Server) registerHealthRoutes(e *echo.Echo) {
	e.GET("/healthz", s.handleHealthz)
	e.HEAD("/healthz", s.handleHealthz)
}

// handleHealthz is GET /healthz: 200 when the server and its database answer.
func (s *Server) handleHealthz(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), 2*time.Second)
	defer cancel()
	if err := s.DB.Ping(ctx); err != nil {
		s.Logger.Error("health check failed", "err", err)
		return c.JSON(http.StatusServiceUnavailable, map[string]string{"status": "unavailable"})
	}
	return c.JSON(http.StatusOK, map[string]string{"status": "ok", "version": ringside.Version})
}
