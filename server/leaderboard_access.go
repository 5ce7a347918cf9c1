package server

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/time/rate"
)

// The leaderboard is public, but a computation is not free: a board with
// unusual parameters costs seconds, and computations run one at a time,
// so anyone could make the page wait. The public therefore gets the
// configured rounds only, and a client address may cause at most
// publicBoardBurst computations, then one more every publicBoardEvery
// (30 a minute); past that its uncached requests get 429 with Retry-After.
// Cached boards are always served, and a request that waited on another's
// computation spends nothing. The page needs at most three boards after a
// vote, usually cached by whoever asked first.
const (
	publicBoardBurst = 30
	publicBoardEvery = 2 * time.Second
)

// adminRequest reports whether the request carries the admin token. A
// request without an Authorization header is the public's; one with a
// wrong token is refused as on the admin routes, and counted with them, so
// that the public routes are no way around the limit on guesses.
func (s *Server) adminRequest(c echo.Context) (bool, error) {
	if c.Request().Header.Get("Authorization") == "" {
		return false, nil
	}
	admin := false
	err := s.requireAdmin(func(echo.Context) error {
		admin = true
		return nil
	})(c)
	return admin, err
}

// admitPublicBoard is the leaderboard.Query.Admit of a public request.
func (s *Server) admitPublicBoard(c echo.Context) func() error {
	return func() error {
		wait, ok := s.boardsCache().public.take(clientIP(c.Request()))
		if ok {
			return nil
		}
		c.Response().Header().Set("Retry-After", strconv.Itoa(int((wait+time.Second-1)/time.Second)))
		return echo.NewHTTPError(http.StatusTooManyRequests,
			"too many leaderboard computations from your address; boards already computed are still served, try again later")
	}
}

// addrAllowance gives each client address burst actions, then one more
// every every.
type addrAllowance struct {
	now   func() time.Time
	burst int
	every time.Duration

	mu        sync.Mutex
	addrs     map[string]*allowance
	lastSweep time.Time
}

type allowance struct {
	lim  *rate.Limiter
	last time.Time
}

func newAddrAllowance(now func() time.Time, burst int, every time.Duration) *addrAllowance {
	return &addrAllowance{now: now, burst: burst, every: every, addrs: map[string]*allowance{}}
}

// take spends one action of ip's allowance; when none is left it reports
// how long until there is one.
func (a *addrAllowance) take(ip string) (time.Duration, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	a.sweep(now)
	rec := a.addrs[ip]
	if rec == nil {
		rec = &allowance{lim: rate.NewLimiter(rate.Every(a.every), a.burst)}
		a.addrs[ip] = rec
	}
	rec.last = now
	if rec.lim.AllowN(now, 1) {
		return 0, true
	}
	missing := 1 - rec.lim.TokensAt(now)
	return time.Duration(missing * float64(a.every)), false
}

// exhausted reports whether ip has no action left, spending nothing.
func (a *addrAllowance) exhausted(ip string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	rec := a.addrs[ip]
	return rec != nil && rec.lim.TokensAt(a.now()) < 1
}

// sweep drops the addresses whose allowance has refilled, at most once a
// refill period, so that a take does not walk the map every time. The
// caller holds mu.
func (a *addrAllowance) sweep(now time.Time) {
	forget := time.Duration(a.burst) * a.every
	if now.Sub(a.lastSweep) < forget {
		return
	}
	a.lastSweep = now
	for ip, rec := range a.addrs {
		if now.Sub(rec.last) > forget {
			delete(a.addrs, ip)
		}
	}
}
