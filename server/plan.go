package server

import (
	"net/http"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/ringside-eval/ringside/judging"
	"github.com/ringside-eval/ringside/pairing"
)

// planTTL is how long a plan is served before it is made again: a plan
// simulates the rest of the evaluation a hundred times, which is too much
// for every vote event the admin page gets, and a few seconds old is
// fresh enough for "how many more votes".
const planTTL = 10 * time.Second

// planSims is the admin page's number of simulated futures (the CLI's
// default is 200): enough for a median and an 80 % interval.
const planSims = 100

// planCache holds the last plan; one request makes it at a time, the
// others wait for it.
type planCache struct {
	mu  sync.Mutex
	rep *judging.PlanReport
	at  time.Time
}

// handleAdminPlan is GET /api/admin/plan: judging.Plan on the database
// under the configured pairing (see docs/api.md).
func (s *Server) handleAdminPlan(c echo.Context) error {
	s.plans.mu.Lock()
	defer s.plans.mu.Unlock()
	if s.plans.rep == nil || s.Now().Sub(s.plans.at) >= planTTL {
		rep, err := judging.Plan(c.Request().Context(), s.DB, s.Config, pairing.PlanOptions{Sims: planSims, Seed: 1})
		if err != nil {
			return err
		}
		s.plans.rep, s.plans.at = rep, s.Now()
	}
	return c.JSON(http.StatusOK, s.plans.rep)
}
