package server

import "time"

// Failed admin authentications are limited per client address, so that the
// admin token cannot be guessed at network speed: an address gets
// adminFailBurst wrong tokens, then one more every adminFailEvery. While an
// address has none left, every admin request from it is refused with 429,
// the right token included, until the allowance refills. The allowance is
// the leaderboard's per-address one (addrAllowance).
const (
	adminFailBurst = 10
	adminFailEvery = 6 * time.Second
)

func newAdminFailures(now func() time.Time) *addrAllowance {
	return newAddrAllowance(now, adminFailBurst, adminFailEvery)
}
