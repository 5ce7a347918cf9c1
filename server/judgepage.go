package server

import (
	"io/fs"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/ringside-eval/ringside"
)

// judgeCookie keeps the judge's invite token (or, with open judging, the
// anonymous judge's own token) so the page's websocket is authenticated
// without the token in every URL. HttpOnly: the page's scripts never see it.
const judgeCookie = "ringside_judge"

// handleJudgePage is GET /judge: the judge page. With ?token= it keeps the
// token in the judge cookie and redirects to the bare /judge, so the token
// leaves the address bar and the history. With open judging, a visitor
// without a cookie is given a fresh anonymous identity.
func (s *Server) handleJudgePage(pages fs.FS) echo.HandlerFunc {
	page := s.handlePage(pages, "judge.html")
	return func(c echo.Context) error {
		if token := c.QueryParam("token"); token != "" {
			setJudgeCookie(c, token)
			return c.Redirect(http.StatusSeeOther, "/judge")
		}
		if _, err := c.Cookie(judgeCookie); err != nil && s.Config.Judging.Open.Enabled {
			if !s.sockets.ipLimiter.allow(c.Request()) {
				return c.String(http.StatusTooManyRequests, "Too many requests from your address; try again in a minute.")
			}
			setJudgeCookie(c, ringside.NewToken())
		}
		return page(c)
	}
}

func setJudgeCookie(c echo.Context, token string) {
	c.SetCookie(&http.Cookie{
		Name: judgeCookie, Value: token, Path: "/",
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: c.Scheme() == "https",
		MaxAge: int((365 * 24 * time.Hour).Seconds()),
	})
}
