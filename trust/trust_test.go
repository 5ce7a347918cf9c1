package trust

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/ringside-eval/ringside"
)

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.10f, want %.10f", what, got, want)
	}
}

// Each misbehaving judge is flagged for its misbehaviour, and no honest
// judge is flagged.
func TestFlagsOnSimulatedJudges(t *testing.T) {
	votes := simulate(1, thirty(), 3000, 3)
	r, err := Analyse(votes, Defaults, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{random: "improbable votes", left: "position bias", promoter: "improbable votes", fast: "too fast"}
	for _, j := range r.Judges {
		kind := honest
		if k, ok := strings.CutPrefix(j.Judge, "human:x"); ok {
			kind = k[strings.Index(k, "-")+1:]
		}
		if kind == honest {
			if j.Flagged || j.Excluded {
				t.Errorf("honest %s flagged: %q", j.Judge, j.Reasons)
			}
			continue
		}
		found := false
		for _, reason := range j.Reasons {
			found = found || strings.HasPrefix(reason, want[kind])
		}
		if !found || !j.Excluded {
			t.Errorf("%s (%s): reasons %q excluded %v; want %q", j.Judge, kind, j.Reasons, j.Excluded, want[kind])
		}
	}
}

// An admin's choice overrides the flags both ways.
func TestOverrides(t *testing.T) {
	votes := simulate(2, thirty(), 600, 3)
	r, err := Analyse(votes, Defaults, map[string]bool{"human:x2-left": false, "human:h00": true})
	if err != nil {
		t.Fatal(err)
	}
	ex := strings.Join(r.Excluded(), ",")
	if strings.Contains(ex, "x2-left") || !strings.Contains(ex, "h00") {
		t.Errorf("excluded %s", ex)
	}
	// An override decides exclusion only: the report still flags the
	// judge the admin kept, and names the admin's choice.
	for _, j := range r.Judges {
		switch j.Judge {
		case "human:x2-left":
			if !j.Flagged || j.Excluded || j.Override != "included" {
				t.Errorf("kept judge: flagged %v excluded %v override %q", j.Flagged, j.Excluded, j.Override)
			}
		case "human:h00":
			if !j.Excluded || j.Override != "excluded" {
				t.Errorf("excluded judge: excluded %v override %q", j.Excluded, j.Override)
			}
		}
	}
}

// Gold battles: a judge who gets them wrong is flagged; its accuracy has
// the Beta(1,1) posterior interval (hand-checked: 2 of 10 right gives
// Beta(3, 9), whose 97.5th percentile is 0.5174).
func TestGold(t *testing.T) {
	var votes []Vote
	for i := 0; i < 10; i++ {
		b := fmt.Sprint("g", i)
		votes = append(votes,
			Vote{Battle: b, ModelA: "x", ModelB: "y", Judge: "human:good", Winner: ringside.WinnerB, Gold: "not_a"},
			Vote{Battle: b, ModelA: "x", ModelB: "y", Judge: "human:bad", Winner: map[bool]ringside.Winner{true: ringside.WinnerB, false: ringside.WinnerA}[i < 2], Gold: "b"})
	}
	r, err := Analyse(votes, Defaults, nil)
	if err != nil {
		t.Fatal(err)
	}
	bad, good := r.Judges[0], r.Judges[1]
	if bad.Gold.Correct != 2 || !bad.Flagged || !strings.HasPrefix(bad.Reasons[0], "gold") {
		t.Errorf("bad: %+v %q", bad.Gold, bad.Reasons)
	}
	near(t, "bad ci high", bad.Gold.CIHigh, 0.5174, 1e-3)
	near(t, "good ci low", good.Gold.CILow, math.Pow(0.025, 1.0/11), 1e-9) // Beta(11,1): x^11
	if good.Flagged || good.Gold.Accuracy != 1 {
		t.Errorf("good: %+v %q", good.Gold, good.Reasons)
	}
	if len(r.Pairs) != 0 || r.Alpha != nil {
		t.Errorf("gold votes counted as shared evidence: %+v %v", r.Pairs, r.Alpha)
	}
}

// Krippendorff's worked example (Computing Krippendorff's Alpha-Reliability,
// 2011, section C): four observers, twelve units, values 1–5 with gaps;
// nominal α = 0.743.
func TestAlphaKrippendorffExample(t *testing.T) {
	rows := []string{
		"1 2 3 3 2 1 4 1 2 . . .",
		"1 2 3 3 2 2 4 1 2 5 . 3",
		". 3 3 3 2 3 4 2 2 5 1 .",
		"1 2 3 3 2 4 4 1 2 5 1 .",
	}
	byBattle := map[string]battleVotes{}
	for o, row := range rows {
		for u, f := range strings.Fields(row) {
			if f == "." {
				continue
			}
			key := fmt.Sprint(u)
			if byBattle[key] == nil {
				byBattle[key] = battleVotes{}
			}
			byBattle[key][fmt.Sprint(o)] = int(f[0] - '1')
		}
	}
	near(t, "alpha", *alpha(byBattle), 0.743, 5e-4)
}

// Cohen's κ and raw agreement on a hand-checked case, and the
// leave-one-out majority.
func TestPairsAndMajority(t *testing.T) {
	var votes []Vote
	add := func(b string, ws ...ringside.Winner) {
		for k, w := range ws {
			votes = append(votes, Vote{Battle: b, ModelA: "x", ModelB: "y", Judge: []string{"human:a", "human:b", "llm:c"}[k], Winner: w})
		}
	}
	A, B, T, BB := ringside.WinnerA, ringside.WinnerB, ringside.WinnerTie, ringside.WinnerBothBad
	add("1", A, A, A)
	add("2", A, B, B)
	add("3", B, B, T)
	add("4", T, BB, A) // bothbad is a tie
	r, err := Analyse(votes, Thresholds{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// a vs b: agree on 1, 3, 4 of 4. Marginals a: A2 B1 T1, b: A1 B2 T1;
	// chance = (2·1 + 1·2 + 1·1)/16 = 5/16; κ = (3/4 − 5/16)/(11/16) = 7/11.
	ab := r.Pairs[0]
	if ab.A != "human:a" || ab.B != "human:b" || ab.Shared != 4 {
		t.Fatalf("pair %+v", ab)
	}
	near(t, "agreement", ab.Agreement, 0.75, 1e-12)
	near(t, "kappa", *ab.Kappa, 7.0/11, 1e-12)
	// human:a against the others' majority: 1 (A,A → A ✓), 2 (B,B → B ✗),
	// 3 (B,T: no majority), 4 (T,A: none): 1 of 2.
	a := r.Judges[0]
	if a.Shared != 4 || *a.MajorityAgreement != 0.5 {
		t.Errorf("human:a shared %d majority %v", a.Shared, *a.MajorityAgreement)
	}
}

// On PRD's Vicuna-80 human ratings (three reviewers per question and
// ordered pair), α is that of an independent computation: the pairwise
// formulation D_o = Σ_u Σ_{i≠j} [v_i≠v_j]/(m_u−1)/n, D_e = Σ_{c≠k} n_c n_k /
// (n(n−1)), in Python (docs/performance.md gives the script). PRD publishes
// no agreement figure; the reviewers' ids are not in the data, so each
// line of a battle is an anonymous reviewer, which α does not need.
func TestAlphaPRD(t *testing.T) {
	f, err := os.Open("/work/shared/data/prd_vicuna80_human_battles.jsonl")
	if err != nil {
		t.Skip("PRD data not available:", err)
	}
	defer f.Close()
	seen := map[string]int{}
	var votes []Vote
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r struct {
			A      string `json:"model_a"`
			B      string `json:"model_b"`
			Winner string `json:"winner"`
			Q      int    `json:"question_id"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		key := fmt.Sprint(r.Q, r.A, r.B)
		seen[key]++
		w := map[string]ringside.Winner{"model_a": "a", "model_b": "b", "tie": "tie"}[r.Winner]
		votes = append(votes, Vote{Battle: key, ModelA: r.A, ModelB: r.B, Judge: fmt.Sprint("human:r", seen[key]), Winner: w})
	}
	rep, err := Analyse(votes, Thresholds{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Battles != 2240 {
		t.Errorf("battles with several reviewers: %d", rep.Battles)
	}
	near(t, "alpha", *rep.Alpha, 0.1849097151458362, 1e-12)
}

// The statistics against values computed elsewhere (scipy.stats).
func TestStats(t *testing.T) {
	near(t, "binom 7 of 10", binomTwoSided(7, 10), 0.34375, 1e-12)
	near(t, "binom 0 of 30", binomTwoSided(0, 30), 2*math.Pow(0.5, 30), 1e-20)
	near(t, "binom 5 of 10", binomTwoSided(5, 10), 1, 1e-12)
	near(t, "chi2 sf(10, 4 df)", chi2EvenSF(10, 2), 0.04042768199451279, 1e-12)
	lo, hi := betaInterval(1, 1)
	near(t, "beta(1,1)", lo, 0.025, 1e-9)
	near(t, "beta(1,1) high", hi, 0.975, 1e-9)
}
