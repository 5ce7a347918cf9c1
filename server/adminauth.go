package server

import (
	"net/http"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Failed admin authentications are limited per client address, so that the
// admin token cannot be guessed at network speed: an address gets
// adminFailBurst wrong tokens, then one more every adminFailEvery. While an
// address has none left, every admin request from it is refused with 429,
// the right token included, until the allowance refills.
const (
	adminFailBurst = 10
	adminFailEvery = 6 * time.Second
	// adminFailForget drops an address's record once its allowance is full
	// again, so the map holds only recent offenders.
	adminFailForget = adminFailBurst * adminFailEvery
)

type adminFailures struct {
	now func() time.Time

	mu    sync.Mutex
	addrs map[string]*failureRecord
}

type failureRecord struct {
	lim  *rate.Limiter
	last time.Time
}

func newAdminFailures(now func() time.Time) *adminFailures {
	return &adminFailures{now: now, addrs: map[string]*failureRecord{}}
}

// blocked reports whether the address has used up its wrong tokens.
func (f *adminFailures) blocked(r *http.Request) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	rec := f.addrs[clientIP(r)]
	return rec != nil && rec.lim.TokensAt(f.now()) < 1
}

// failed counts a wrong token from the request's address.
func (f *adminFailures) failed(r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now()
	f.forget(now)
	ip := clientIP(r)
	rec := f.addrs[ip]
	if rec == nil {
		rec = &failureRecord{lim: rate.NewLimiter(rate.Every(adminFailEvery), adminFailBurst)}
		f.addrs[ip] = rec
	}
	rec.lim.AllowN(now, 1)
	rec.last = now
}

// forget drops the addresses whose allowance has refilled. The caller holds mu.
func (f *adminFailures) forget(now time.Time) {
	for ip, rec := range f.addrs {
		if now.Sub(rec.last) > adminFailForget {
			delete(f.addrs, ip)
		}
	}
}
