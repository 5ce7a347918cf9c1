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
			// Only a token that names a judge replaces the cookie: a link
			// from another site must not log a judge out, or in as
			// someone else.
			_, err := s.DB.JudgeByToken(c.Request().Context(), ringside.HashToken(token))
			switch ringside.ErrorCode(err) {
			case "":
				setJudgeCookie(c, token)
				return c.Redirect(http.StatusSeeOther, "/judge")
			case ringside.EUNAUTHORIZED, ringside.ENOTFOUND:
				return invalidInvite(c)
			default:
				return err
			}
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

// invalidInvitePage answers an invite link whose token names no judge (or a
// revoked one). It is plain HTML: the strict Content-Security-Policy allows
// no inline script or style.
const invalidInvitePage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Invite link not valid · ringside</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><main id="invalid-invite">
<h1>This invite link is not valid</h1>
<p>The link may be mistyped, or its invite was revoked. Ask whoever sent it for a new one.</p>
<p>If you were judging in this browser before, your session is unchanged: <a href="/judge">go back to judging</a>.</p>
</main></body></html>
`

func invalidInvite(c echo.Context) error {
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.HTMLBlob(http.StatusUnauthorized, []byte(invalidInvitePage))
}
