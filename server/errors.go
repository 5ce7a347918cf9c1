package server

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/judging"
)

// statusOf maps domain error codes to HTTP statuses, in one place.
var statusOf = map[string]int{
	ringside.EINVALID:      http.StatusBadRequest,
	ringside.ENOTFOUND:     http.StatusNotFound,
	ringside.ECONFLICT:     http.StatusConflict,
	ringside.EUNAUTHORIZED: http.StatusUnauthorized,
	ringside.EINTERNAL:     http.StatusInternalServerError,
	// The websocket's code for the same refusal, so that both say it alike.
	judging.CodeRateLimited: http.StatusTooManyRequests,
}

// ErrorBody is the JSON body of every error answer.
type ErrorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// handleError renders any error as {"error": {"code", "message"}}. Internal
// errors are logged and shown only as "internal error".
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	var body ErrorBody
	status := http.StatusInternalServerError
	var he *echo.HTTPError
	if errors.As(err, &he) {
		// echo's own errors: unknown route, wrong method, bad bind.
		status = he.Code
		body.Error.Code = codeForStatus(status)
		if msg, ok := he.Message.(string); ok {
			body.Error.Message = msg
		} else {
			body.Error.Message = http.StatusText(status)
		}
	} else {
		code := ringside.ErrorCode(err)
		status = statusOf[code]
		body.Error.Code = code
		body.Error.Message = ringside.ErrorMessage(err)
	}
	if status >= 500 {
		s.Logger.Error("internal error", "method", c.Request().Method, "path", c.Request().URL.Path, "err", err)
	}
	if c.Request().Method == http.MethodHead {
		_ = c.NoContent(status)
		return
	}
	_ = c.JSON(status, body)
}

func codeForStatus(status int) string {
	for code, s := range statusOf {
		if s == status {
			return code
		}
	}
	if status >= 500 {
		return ringside.EINTERNAL
	}
	return ringside.EINVALID
}
