package server

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/store"
)

// Invite is a new judge with the token that lets them in, shown once.
type Invite struct {
	Judge ringside.Judge `json:"judge"`
	Token string         `json:"token"`
	URL   string         `json:"url"`
}

// CreateInvite creates a human judge with a fresh invite token, stored
// hashed, and returns the judge-page link base/judge?token=T. The token is
// in the answer only: it cannot be shown again. Errors: EINVALID for a bad
// name or quota.
func CreateInvite(ctx context.Context, db *store.DB, name string, quota int, base string) (*Invite, error) {
	j := &ringside.Judge{Kind: ringside.JudgeHuman, Name: strings.TrimSpace(name), Quota: quota}
	token := ringside.NewToken()
	if err := db.CreateJudge(ctx, j, ringside.HashToken(token)); err != nil {
		return nil, err
	}
	return &Invite{Judge: *j, Token: token, URL: JudgeURL(base, token)}, nil
}

// JudgeURL is the judge-page link for a token.
func JudgeURL(base, token string) string {
	return strings.TrimRight(base, "/") + "/judge?token=" + url.QueryEscape(token)
}

func (s *Server) registerInviteRoutes(admin *echo.Group) {
	admin.POST("/judges", s.handleCreateInvite)
	admin.GET("/judges", s.handleListInvites)
	admin.DELETE("/judges/:id", s.handleRevokeInvite)
}

type inviteRequest struct {
	Name  string `json:"name"`
	Quota int    `json:"quota"`
}

// handleCreateInvite is POST /api/admin/judges {name, quota}: a new judge
// and its link, 201. The token is in this answer only.
func (s *Server) handleCreateInvite(c echo.Context) error {
	var req inviteRequest
	if err := c.Bind(&req); err != nil {
		return ringside.Errorf(ringside.EINVALID, "body must be JSON {name, quota}")
	}
	inv, err := CreateInvite(c.Request().Context(), s.DB, req.Name, req.Quota, s.baseURL(c))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, inv)
}

// handleListInvites is GET /api/admin/judges[?anonymous=1]: the human
// judges with their quota, votes and revocation; anonymous judges too when
// asked.
func (s *Server) handleListInvites(c echo.Context) error {
	list, err := s.DB.Invites(c.Request().Context(), c.QueryParam("anonymous") == "1")
	if err != nil {
		return err
	}
	if list == nil {
		list = []store.Invite{}
	}
	return c.JSON(http.StatusOK, map[string]any{"judges": list})
}

// handleRevokeInvite is DELETE /api/admin/judges/:id: the invite stops
// working at once, a connected judge is disconnected; their votes stay.
// 204; ENOTFOUND for an unknown judge.
func (s *Server) handleRevokeInvite(c echo.Context) error {
	id := c.Param("id")
	if err := s.DB.RevokeJudge(c.Request().Context(), id); err != nil {
		return err
	}
	s.judging.Revoke(id)
	return c.NoContent(http.StatusNoContent)
}

// baseURL is the configured public address, or the one the request came to.
func (s *Server) baseURL(c echo.Context) string {
	if u := s.Config.Server.PublicURL; u != "" {
		return u
	}
	return c.Scheme() + "://" + c.Request().Host
}
