package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/rank"
	"github.com/ringside-eval/ringside/server"
	"github.com/ringside-eval/ringside/store"
)

// rankConfig is a config whose [rank] settings differ from the defaults,
// so that a side that ignored one of them would rank differently.
const rankConfig = `
[[models]]
name = "m1"
provider = "sim"

[[prompt_sets]]
name = "set"
file = "prompts.jsonl"

[rank]
bootstrap = 120
seed = 11
anchor = "m2=1200"
include_identity_leaks = true
`

// ratings keeps what must agree between the CLI and the API: each model's
// rating, interval and Rank(UB), overall and per slice, and the flagged.
type ratings struct {
	Battles int
	Models  []rank.ModelRating
	Flagged []rank.FlaggedModel
	Slices  map[string]ratings
}

func ratingsOf(lb *rank.Leaderboard) ratings {
	r := ratings{Battles: lb.Battles, Flagged: lb.Flagged}
	for _, m := range lb.Models {
		m.Perf, m.Elo = nil, nil
		r.Models = append(r.Models, m)
	}
	for i := range r.Flagged {
		r.Flagged[i].Perf = nil
	}
	for k, sl := range lb.Slices {
		if r.Slices == nil {
			r.Slices = map[string]ratings{}
		}
		r.Slices[k] = ratingsOf(sl)
	}
	return r
}

// The same database and config give the same ratings, intervals and
// ranks from `ringside rank`, GET /api/leaderboard and its download.
func TestRankEqualsLeaderboardAPI(t *testing.T) {
	f := mustArenaFixture(t)
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "ringside.toml")
	if err := os.WriteFile(cfgPath, []byte(rankConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	db, err := store.Open(ctx, f.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// The board by judge is the admins' (it names the judges).
	const admin = "rank-api-admin-token"
	if _, err := server.EnsureAdminToken(ctx, db, admin); err != nil {
		t.Fatal(err)
	}
	srv := server.New(db, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	ts := httptest.NewServer(srv.Echo)
	defer ts.Close()
	defer srv.Close()
	get := func(query string) *rank.Leaderboard {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, ts.URL+"/api/leaderboard"+query, nil)
		if strings.Contains(query, "by=judge") {
			req.Header.Set("Authorization", "Bearer "+admin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var rep server.LeaderboardReport
		if err := json.NewDecoder(resp.Body).Decode(&rep); err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s: %d %v", query, resp.StatusCode, err)
		}
		return rep.Leaderboard
	}
	for _, by := range []string{"", "judge", "dimension"} {
		args := []string{"rank", "--config", cfgPath, "--db", f.dbPath, "--format", "json"}
		query := "?"
		if by != "" {
			args = append(args, "--by", by)
			query += "by=" + by
		}
		var cli rank.Leaderboard
		if err := json.Unmarshal([]byte(mustRun(t, args...).stdout.String()), &cli); err != nil {
			t.Fatal(err)
		}
		if cli.Method.BootstrapRounds != 120 || cli.Method.Seed != 11 || cli.Method.Anchor == nil {
			t.Fatalf("by %q: the CLI did not rank with the config: %+v", by, cli.Method)
		}
		want := ratingsOf(&cli)
		for _, q := range []string{query, query + "&format=json&download=1"} {
			api := get(q)
			if !reflect.DeepEqual(api.Method, cli.Method) {
				t.Errorf("%s: method %+v, the CLI's %+v", q, api.Method, cli.Method)
			}
			if got := ratingsOf(api); !reflect.DeepEqual(got, want) {
				a, _ := json.MarshalIndent(got, "", " ")
				b, _ := json.MarshalIndent(want, "", " ")
				t.Errorf("%s: the API ranks otherwise than the CLI:\n%s\n---\n%s", q, a, b)
			}
		}
	}
}
