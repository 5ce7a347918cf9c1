package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/pairing"
	"github.com/ringside-eval/ringside/rank"
	"github.com/ringside-eval/ringside/server"
	"github.com/ringside-eval/ringside/store"
)

// mustAdaptiveDB stores votes dealt as judging deals them under
// judging.pairing = "adaptive": each a live battle whose deal keeps the
// propensity its pair was drawn with, voted by judges who are not
// Bradley-Terry (m3 beats m0 far more often than its rating says). A few
// deals carry no propensity, as deals made before adaptive pairing.
func mustAdaptiveDB(t *testing.T, path string, votes int) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	w := db.NewGroupWriter(8)
	defer w.Close()
	var judges []string
	for _, name := range []string{"ann", "bob", "cy"} {
		j := &ringside.Judge{Kind: ringside.JudgeHuman, Name: name}
		if err := db.CreateJudge(ctx, j, "hash-"+name); err != nil {
			t.Fatal(err)
		}
		judges = append(judges, j.ID)
	}
	names := []string{"m0", "m1", "m2", "m3", "m4"}
	strength := []float64{1150, 1100, 1050, 1000, 900}
	pwin := func(a, b int) float64 {
		p := 1 / (1 + math.Pow(10, (strength[b]-strength[a])/400))
		switch {
		case a == 3 && b == 0:
			p += 0.35
		case a == 0 && b == 3:
			p -= 0.35
		}
		return p
	}
	tr := pairing.NewTracker(names)
	pairs := pairing.AllPairs(len(names))
	pol := pairing.DefaultPolicy()
	r := rand.New(rand.NewPCG(5, 8))
	for n := range votes {
		k, prop := pairing.Sample(pol.Probabilities(tr, pairs), nil, r.Float64())
		a, b := pairs[k].I, pairs[k].J
		if r.IntN(2) == 0 {
			a, b = b, a
		}
		if n%50 == 0 {
			prop = 0 // dealt before adaptive pairing: no propensity
		}
		judge := judges[n%len(judges)]
		bt := &ringside.Battle{Source: ringside.SourceLive, PromptID: fmt.Sprint("p", n%7), ModelA: names[a], ModelB: names[b]}
		if err := w.DealBattleDrawn(ctx, bt, true, judge, prop); err != nil {
			t.Fatal(err)
		}
		win, score := ringside.WinnerB, 0.0
		if r.Float64() < pwin(a, b) {
			win, score = ringside.WinnerA, 1
		}
		if _, err := w.CastVote(ctx, &ringside.Vote{BattleID: bt.ID, JudgeID: judge, Winner: win}, true); err != nil {
			t.Fatal(err)
		}
		tr.Add(names[a], names[b], score, 1)
	}
}

// TestRankWeightedByPropensity: on a database of adaptively dealt votes,
// `ringside rank --weight propensity` ranks otherwise than --weight none,
// says so in the board's method, and equals GET
// /api/leaderboard?weighting=propensity and its download; rank.weighting
// makes it the default of both.
func TestRankWeightedByPropensity(t *testing.T) {
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "adaptive.db")
	mustAdaptiveDB(t, dbPath, 400)
	cfgPath := filepath.Join(dir, "ringside.toml")
	if err := os.WriteFile(cfgPath, []byte("[rank]\nbootstrap = 60\nseed = 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	board := func(args ...string) *rank.Leaderboard {
		t.Helper()
		var lb rank.Leaderboard
		args = append([]string{"rank", "--db", dbPath, "--format", "json"}, args...)
		if err := json.Unmarshal([]byte(mustRun(t, args...).stdout.String()), &lb); err != nil {
			t.Fatal(err)
		}
		return &lb
	}
	weighted := board("--config", cfgPath, "--weight", "propensity")
	plain := board("--config", cfgPath, "--weight", "none")
	if weighted.Method.Weighting != "propensity" || plain.Method.Weighting != "" {
		t.Errorf("method weighting %q, unweighted %q", weighted.Method.Weighting, plain.Method.Weighting)
	}
	if len(weighted.Notes) > 0 {
		t.Errorf("notes %q: the votes' propensities were not read", weighted.Notes)
	}
	moved := 0.0
	for _, m := range weighted.Models {
		for _, p := range plain.Models {
			if p.Model == m.Model {
				moved = math.Max(moved, math.Abs(p.Rating-m.Rating))
			}
		}
	}
	if moved < 3 {
		t.Errorf("weighting moved no rating by 3 points (at most %.2f)", moved)
	}

	ctx := context.Background()
	db, err := store.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	srv := server.New(db, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	ts := httptest.NewServer(srv.Echo)
	defer ts.Close()
	defer srv.Close()
	get := func(query string) *rank.Leaderboard {
		t.Helper()
		resp, err := http.Get(ts.URL + "/api/leaderboard" + query)
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
	same := func(what string, api, cli *rank.Leaderboard) {
		t.Helper()
		if !reflect.DeepEqual(api.Method, cli.Method) || !reflect.DeepEqual(ratingsOf(api), ratingsOf(cli)) {
			a, _ := json.MarshalIndent(ratingsOf(api), "", " ")
			b, _ := json.MarshalIndent(ratingsOf(cli), "", " ")
			t.Errorf("%s: the API ranks otherwise than the CLI (%+v, %+v):\n%s\n---\n%s", what, api.Method, cli.Method, a, b)
		}
	}
	// The plain board first: the service then holds votes read without
	// their propensities, and must read them again for a weighted one.
	same("no weighting", get(""), plain)
	for _, q := range []string{"?weighting=propensity", "?weighting=propensity&format=json&download=1"} {
		same(q, get(q), weighted)
	}
	same("weighting=none", get("?weighting=none"), plain)

	// rank.weighting is the default of the command; the flag overrides it.
	if err := os.WriteFile(cfgPath, []byte("[rank]\nbootstrap = 60\nseed = 4\nweighting = \"propensity\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if lb := board("--config", cfgPath); !reflect.DeepEqual(ratingsOf(lb), ratingsOf(weighted)) {
		t.Error("rank.weighting = propensity does not weigh the board")
	}
	if lb := board("--config", cfgPath, "--weight", "none"); !reflect.DeepEqual(ratingsOf(lb), ratingsOf(plain)) {
		t.Error("--weight none does not override rank.weighting")
	}
}

// TestRankWeightRefused: a weighting that is none of none and propensity
// is refused naming the flag, the query parameter or the config key.
func TestRankWeightRefused(t *testing.T) {
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "adaptive.db")
	mustAdaptiveDB(t, dbPath, 3)
	tm := newTestMain()
	if code := tm.run(t, "rank", "--db", dbPath, "--weight", "inverse"); code != exitUsage || !strings.Contains(tm.stderr.String(), "--weight") {
		t.Errorf("--weight inverse: exit %d, %s", code, tm.stderr)
	}
	cfgPath := filepath.Join(dir, "bad.toml")
	if err := os.WriteFile(cfgPath, []byte("[rank]\nbootstrap = 10\nweighting = \"ipw\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tm = newTestMain()
	if code := tm.run(t, "rank", "--db", dbPath, "--config", cfgPath); code != exitUsage || !strings.Contains(tm.stderr.String(), "bad.toml:3: rank.weighting") {
		t.Errorf("rank.weighting = ipw: exit %d, %s", code, tm.stderr)
	}

	ctx := context.Background()
	db, err := store.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	srv := server.New(db, config.Defaults(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	ts := httptest.NewServer(srv.Echo)
	defer ts.Close()
	defer srv.Close()
	resp, err := http.Get(ts.URL + "/api/leaderboard?weighting=inverse")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "weighting") {
		t.Errorf("?weighting=inverse: %d %s", resp.StatusCode, body)
	}
}
