package rank

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ringside-eval/ringside"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// goldenBoard is a small leaderboard with every optional part: intervals,
// a flagged model, Elo, performance, the matrix and slices.
func goldenBoard(t *testing.T) *Leaderboard {
	bs := NewBattles()
	cat := func(a, b string, w ringside.Winner, n int, category string) {
		for i := 0; i < n; i++ {
			if err := bs.Add(Battle{ModelA: a, ModelB: b, Winner: w, Category: category, Time: float64(bs.Len())}); err != nil {
				t.Fatal(err)
			}
		}
	}
	cat("alpha", "beta", wA, 12, "refunds")
	cat("alpha", "beta", wB, 5, "coding")
	cat("beta", "gamma", wA, 9, "refunds")
	cat("beta", "gamma", wTie, 4, "coding")
	cat("gamma", "beta", wA, 4, "refunds")
	cat("gamma", "alpha", wA, 3, "coding")
	cat("alpha", "gamma", wA, 8, "refunds")
	cat("delta|pipe", "alpha", wB, 6, "coding")
	lb := mustRank(t, bs, Options{Rounds: 200, Seed: 7, Elo: true, Matrix: true, By: ByCategory})
	lat, ttft := 1200.0, 300.0
	lb.SetPerf(map[string]*Perf{
		"alpha": {TTFTP50Ms: &ttft, LatencyP50Ms: &lat, ErrorRate: ptr(0.02), CostPerBattleUSD: ptr(0.0031), Responses: 50},
	})
	return lb
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./rank -run Golden -update to create it)", err)
	}
	if strings.HasSuffix(name, ".json") {
		if !sameJSON(t, got, want) {
			t.Errorf("%s differs from the golden file:\n%s", name, got)
		}
		return
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// sameJSON compares JSON documents, numbers to 1e-9 relative, so that the
// last bits of a float (which differ between CPUs with and without fused
// multiply-add) do not break the golden file.
func sameJSON(t *testing.T, a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	var eq func(x, y any) bool
	eq = func(x, y any) bool {
		switch xv := x.(type) {
		case map[string]any:
			yv, ok := y.(map[string]any)
			if !ok || len(xv) != len(yv) {
				return false
			}
			for k := range xv {
				if !eq(xv[k], yv[k]) {
					return false
				}
			}
			return true
		case []any:
			yv, ok := y.([]any)
			if !ok || len(xv) != len(yv) {
				return false
			}
			for i := range xv {
				if !eq(xv[i], yv[i]) {
					return false
				}
			}
			return true
		case float64:
			yv, ok := y.(float64)
			return ok && math.Abs(xv-yv) <= 1e-9*math.Max(1, math.Abs(xv))
		}
		return x == y
	}
	return eq(x, y)
}

func TestGoldenLeaderboard(t *testing.T) {
	lb := goldenBoard(t)
	for _, f := range []struct{ format, file string }{
		{"table", "leaderboard.txt"}, {"md", "leaderboard.md"}, {"csv", "leaderboard.csv"}, {"json", "leaderboard.json"},
	} {
		var buf bytes.Buffer
		if err := lb.Write(&buf, f.format); err != nil {
			t.Fatal(err)
		}
		golden(t, f.file, buf.Bytes())
	}
	if err := lb.Write(&bytes.Buffer{}, "xml"); ringside.ErrorCode(err) != ringside.EINVALID {
		t.Errorf("unknown format: %v", err)
	}
}

// The JSON has the documented shape (docs/formats.md): these keys, in this order.
func TestLeaderboardJSONShape(t *testing.T) {
	lb := mustRank(t, threeModels(t), Options{Rounds: 20})
	var buf bytes.Buffer
	if err := lb.Write(&buf, "json"); err != nil {
		t.Fatal(err)
	}
	s := buf.String()
	order := []string{`"method"`, `"model": "bradley-terry"`, `"scale": 400`, `"base": 10`, `"init": 1000`, `"ties": "half"`,
		`"bootstrap_rounds": 20`, `"ci": 0.95`, `"seed": 0`, `"anchor": null`, `"battles": 11`, `"models"`,
		`"model": "A"`, `"rating"`, `"ci_low"`, `"ci_high"`, `"rank"`, `"battles"`, `"wins"`, `"losses"`, `"ties"`, `"win_rate"`}
	at := 0
	for _, key := range order {
		i := strings.Index(s[at:], key)
		if i < 0 {
			t.Fatalf("%s missing or out of order in\n%s", key, s)
		}
		at += i
	}
}

func TestGoldenComparison(t *testing.T) {
	bs := compareData(t)
	c, err := Compare(bs, "base", "cand", CompareOptions{Options: Options{Rounds: 100, Seed: 2, By: ByCategory}, Margin: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct{ format, file string }{
		{"table", "compare.txt"}, {"md", "compare.md"}, {"csv", "compare.csv"}, {"json", "compare.json"},
	} {
		var buf bytes.Buffer
		if err := c.Write(&buf, f.format); err != nil {
			t.Fatal(err)
		}
		golden(t, f.file, buf.Bytes())
	}
}
