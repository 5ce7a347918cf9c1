package server_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/server"
	"github.com/ringside-eval/ringside/store"
)

// manualClock is a clock a test moves by hand.
type manualClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *manualClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func newClockedServer(t *testing.T, clock *manualClock) (*server.Server, *store.DB) {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "ringside.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	srv := server.New(db, config.Defaults(), slog.New(slog.NewTextHandler(io.Discard, nil)), server.WithClock(clock.Now))
	t.Cleanup(srv.Close)
	return srv, db
}

func serve(srv *server.Server, req *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	srv.Echo.ServeHTTP(rec, req)
	return rec
}

func invite(t *testing.T, db *store.DB, name string) (string, *ringside.Judge) {
	t.Helper()
	token := ringside.NewToken()
	j := &ringside.Judge{Kind: ringside.JudgeHuman, Name: name}
	if err := db.CreateJudge(context.Background(), j, ringside.HashToken(token)); err != nil {
		t.Fatal(err)
	}
	return token, j
}

// An invite link replaces the judge cookie only when its token names a
// judge who may judge: a link from another site cannot log a judge out,
// or in as someone else.
func TestJudgePageKeepsTheCookieForAnInvalidToken(t *testing.T) {
	srv, db := newClockedServer(t, &manualClock{t: time.Now()})
	good, _ := invite(t, db, "ana")
	revoked, rj := invite(t, db, "bo")
	if err := db.RevokeJudge(context.Background(), rj.ID); err != nil {
		t.Fatal(err)
	}

	rec := serve(srv, httptest.NewRequest(http.MethodGet, "/judge?token="+good, nil))
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/judge" {
		t.Fatalf("valid invite: %d to %q, want 303 to /judge", rec.Code, rec.Header().Get("Location"))
	}
	ck := rec.Result().Cookies()
	if len(ck) != 1 || ck[0].Name != "ringside_judge" || ck[0].Value != good {
		t.Fatalf("valid invite set cookies %v, want the judge cookie with the token", ck)
	}
	if !ck[0].HttpOnly || ck[0].SameSite != http.SameSiteLaxMode || ck[0].Secure {
		t.Errorf("judge cookie over http: HttpOnly %v, SameSite %v, Secure %v; want true, Lax, false", ck[0].HttpOnly, ck[0].SameSite, ck[0].Secure)
	}
	// Behind a proxy on this machine that terminates https, the cookie is
	// Secure (echo trusts forwarding headers from loopback and private
	// addresses only).
	req := httptest.NewRequest(http.MethodGet, "/judge?token="+good, nil)
	req.RemoteAddr = "127.0.0.1:40000"
	req.Header.Set("X-Forwarded-Proto", "https")
	if ck := serve(srv, req).Result().Cookies(); len(ck) != 1 || !ck[0].Secure {
		t.Errorf("judge cookie behind https: %v, want Secure", ck)
	}

	for name, token := range map[string]string{"unknown": ringside.NewToken(), "revoked": revoked, "junk": "x<script>"} {
		req := httptest.NewRequest(http.MethodGet, "/judge?token="+token, nil)
		req.AddCookie(&http.Cookie{Name: "ringside_judge", Value: good})
		rec := serve(srv, req)
		if rec.Code != http.StatusUnauthorized {
			t.Errorf("%s token: status %d, want 401", name, rec.Code)
		}
		if got := rec.Header().Values("Set-Cookie"); len(got) != 0 {
			t.Errorf("%s token touched the cookie: %v", name, got)
		}
		if body := rec.Body.String(); !strings.Contains(body, `id="invalid-invite"`) || !strings.Contains(body, "not valid") {
			t.Errorf("%s token: body is not the invalid-invite page:\n%s", name, body)
		}
		if strings.Contains(rec.Body.String(), "<script>") {
			t.Errorf("%s token: the page echoes the token", name)
		}
	}
}

// Wrong admin tokens are limited per client address: after ten, the address
// is refused (429, the right token too) until its allowance refills.
func TestWrongAdminTokensAreRateLimitedPerAddress(t *testing.T) {
	clock := &manualClock{t: time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)}
	srv, db := newClockedServer(t, clock)
	token, err := server.EnsureAdminToken(context.Background(), db, "")
	if err != nil {
		t.Fatal(err)
	}
	get := func(addr, bearer string) int {
		req := httptest.NewRequest(http.MethodGet, "/api/admin/whoami", nil)
		req.RemoteAddr = addr
		req.Header.Set("Authorization", "Bearer "+bearer)
		return serve(srv, req).Code
	}
	const attacker, admin = "192.0.2.7:5000", "192.0.2.8:6000"
	for i := range 10 {
		if code := get(attacker, "guess"); code != http.StatusUnauthorized {
			t.Fatalf("wrong token %d: status %d, want 401", i+1, code)
		}
	}
	if code := get(attacker, "guess"); code != http.StatusTooManyRequests {
		t.Fatalf("11th wrong token: status %d, want 429", code)
	}
	if code := get(attacker, token); code != http.StatusTooManyRequests {
		t.Errorf("right token from the blocked address: status %d, want 429", code)
	}
	if code := get(admin, token); code != http.StatusOK {
		t.Errorf("right token from another address: status %d, want 200", code)
	}
	clock.advance(6 * time.Second)
	if code := get(attacker, token); code != http.StatusOK {
		t.Errorf("right token after the allowance refilled: status %d, want 200", code)
	}
	// A right token spends nothing: the address has one wrong guess again.
	if code := get(attacker, "guess"); code != http.StatusUnauthorized {
		t.Errorf("a wrong token after the wait: status %d, want 401", code)
	}
	if code := get(attacker, "guess"); code != http.StatusTooManyRequests {
		t.Errorf("a second wrong token after the wait: status %d, want 429", code)
	}
}

// The assets folder is not listed.
func TestAssetFoldersAreNotListed(t *testing.T) {
	srv, _ := newClockedServer(t, &manualClock{t: time.Now()})
	for _, path := range []string{"/assets/", "/assets", "/assets/./", "/assets/../assets/"} {
		rec := serve(srv, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != http.StatusNotFound {
			t.Errorf("GET %s: status %d, want 404", path, rec.Code)
		}
		if strings.Contains(rec.Body.String(), "style.css") {
			t.Errorf("GET %s lists the folder:\n%s", path, rec.Body)
		}
	}
	if rec := serve(srv, httptest.NewRequest(http.MethodGet, "/assets/style.css", nil)); rec.Code != http.StatusOK {
		t.Errorf("GET /assets/style.css: status %d, want 200", rec.Code)
	}
}
