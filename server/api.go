package server

import (
	"crypto/subtle"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/ringside-eval/ringside"
)

// AdminTokenKey is the settings key of the admin token's hash.
const AdminTokenKey = "admin_token_hash"

func (s *Server) registerAPIRoutes(g *echo.Group) {
	admin := g.Group("/admin", s.requireAdmin)
	admin.GET("/whoami", s.handleAdminWhoami)
	s.registerInviteRoutes(admin)
	s.registerAdminRoutes(admin)
	s.registerOutputRoutes(admin)
	s.registerTrustRoutes(admin)
	s.registerLeaderboardRoutes(g, admin)
	s.registerEventRoutes(g)
}

// requireAdmin lets a request through when it carries the admin token as
// "Authorization: Bearer T". The comparison takes the same time whatever
// the token, and an address that sent too many wrong tokens is refused
// (429) for a while: see adminFailures.
func (s *Server) requireAdmin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if s.adminFailures.exhausted(clientIP(c.Request())) {
			c.Response().Header().Set("Retry-After", strconv.Itoa(int(adminFailEvery.Seconds())))
			return echo.NewHTTPError(http.StatusTooManyRequests, "too many wrong admin tokens from your address; try again later")
		}
		token, ok := strings.CutPrefix(c.Request().Header.Get("Authorization"), "Bearer ")
		if !ok || token == "" {
			return ringside.Errorf(ringside.EUNAUTHORIZED, "admin token required")
		}
		want, err := s.DB.Setting(c.Request().Context(), AdminTokenKey)
		if err != nil {
			return err
		}
		if subtle.ConstantTimeCompare([]byte(ringside.HashToken(token)), []byte(want)) != 1 {
			s.adminFailures.take(clientIP(c.Request()))
			return ringside.Errorf(ringside.EUNAUTHORIZED, "wrong admin token")
		}
		return next(c)
	}
}

// handleAdminWhoami is GET /api/admin/whoami: 200 when the admin token is
// right, so scripts and the admin page can check a token.
func (s *Server) handleAdminWhoami(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]string{"role": "admin"})
}
