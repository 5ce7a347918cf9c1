package server_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"
)

const longCache = "public, max-age=31536000, immutable"

// assetRef finds what a page loads from /assets/.
var assetRef = regexp.MustCompile(`(?:src|href)="(/assets/[^"]+)"`)

// get fetches path from ts and returns the body and the Cache-Control header.
func get(t *testing.T, ts *httptest.Server, path string) (string, string) {
	t.Helper()
	res, err := ts.Client().Get(ts.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s = %d %s", path, res.StatusCode, body)
	}
	return string(body), res.Header.Get("Cache-Control")
}

// Pages are revalidated, so a new binary's pages are seen at once; the
// content-hashed scripts and styles they name are kept for a year, which is
// safe because changed content gets a new name.
func TestPagesAreNotCachedAndHashedAssetsAre(t *testing.T) {
	srv, _ := newServer(t)
	ts := httptest.NewServer(srv.Echo)
	defer ts.Close()

	hashed := 0
	for _, page := range []string{"/", "/judge", "/leaderboard", "/admin"} {
		body, cc := get(t, ts, page)
		if cc != "no-cache" {
			t.Errorf("GET %s: Cache-Control = %q; want no-cache", page, cc)
		}
		for _, m := range assetRef.FindAllStringSubmatch(body, -1) {
			asset := m[1]
			_, cc := get(t, ts, asset)
			want := longCache
			if asset == "/assets/style.css" {
				want = "no-cache" // a public file: its name carries no hash
			}
			if cc != want {
				t.Errorf("GET %s (named by %s): Cache-Control = %q; want %q", asset, page, cc, want)
			}
			if want == longCache {
				hashed++
			}
		}
	}
	if hashed == 0 {
		t.Fatal("no page names a content-hashed asset; is ui/static built with hashed names?")
	}
}
