package server_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

type boardJudges struct {
	Method struct {
		Judges string `json:"judges"`
	} `json:"method"`
	CountedVotes       int      `json:"counted_votes"`
	ExcludedVotes      int      `json:"excluded_votes"`
	ExcludedJudges     []string `json:"excluded_judges"`
	ExcludedJudgeCount int      `json:"excluded_judge_count"`
}

// TestJudgeExclusionThroughTheAPI: an admin excludes a judge with a reason
// (stored and logged); the leaderboard leaves its votes out and says how
// many, naming the judge to the admin only; include_flagged and naming
// judges are the admin's; withdrawing the choice restores the board.
func TestJudgeExclusionThroughTheAPI(t *testing.T) {
	d := newDemoServer(t)
	label := "human:" + d.demo.Humans[0].Name
	var before boardJudges
	if st, body := d.do("GET", "/api/leaderboard", false, "", &before); st != 200 || before.ExcludedVotes != 0 || before.Method.Judges != "human" {
		t.Fatalf("board before = %d %s", st, body)
	}
	for body, want := range map[string]string{
		fmt.Sprintf(`{"judge": %q, "excluded": true}`, label):                   "400",
		`{"judge": "human:nobody", "excluded": true, "reason": "x"}`:            "404",
		fmt.Sprintf(`{"judge": %q, "excluded": true, "reason": "spam"}`, label): "204",
	} {
		if st, resp := d.do("POST", "/api/admin/trust/exclusions", true, body, nil); fmt.Sprint(st) != want {
			t.Fatalf("POST %s = %d %s, want %s", body, st, resp, want)
		}
	}
	var admin, public boardJudges
	d.do("GET", "/api/leaderboard", true, "", &admin)
	if admin.ExcludedVotes == 0 || admin.CountedVotes+admin.ExcludedVotes != before.CountedVotes ||
		len(admin.ExcludedJudges) != 1 || admin.ExcludedJudges[0] != label {
		t.Fatalf("admin board after excluding %s: %+v (before %+v)", label, admin, before)
	}
	_, body := d.do("GET", "/api/leaderboard", false, "", &public)
	if public.ExcludedVotes != admin.ExcludedVotes || public.ExcludedJudgeCount != 1 || strings.Contains(body, label) {
		t.Fatalf("public board names the excluded judge or miscounts: %+v", public)
	}
	for _, q := range []string{"include_flagged=true", "judges=" + label} {
		if st, _ := d.do("GET", "/api/leaderboard?"+q, false, "", nil); st != 401 {
			t.Fatalf("public %s = %d, want 401", q, st)
		}
	}
	var all boardJudges
	if d.do("GET", "/api/leaderboard?include_flagged=true", true, "", &all); all.ExcludedVotes != 0 || all.CountedVotes != before.CountedVotes {
		t.Fatalf("include_flagged: %+v", all)
	}
	var one boardJudges
	if d.do("GET", "/api/leaderboard?include_flagged=true&judges="+label, true, "", &one); one.Method.Judges != label || one.CountedVotes != admin.ExcludedVotes {
		t.Fatalf("judges=%s: %+v", label, one)
	}
	var rep struct {
		Judges []struct {
			Judge    string
			Excluded bool
			Override string
		}
	}
	d.do("GET", "/api/admin/trust", true, "", &rep)
	found := false
	for _, j := range rep.Judges {
		if j.Judge == label {
			found = j.Excluded && j.Override == "excluded"
		}
	}
	if !found {
		t.Fatalf("report: %+v", rep)
	}
	if st, _ := d.do("POST", "/api/admin/trust/exclusions", true, fmt.Sprintf(`{"judge": %q, "excluded": null}`, label), nil); st != 204 {
		t.Fatalf("withdraw = %d", st)
	}
	var log struct {
		Log []struct {
			Judge    string
			Excluded *bool
			Reason   string
		}
	}
	d.do("GET", "/api/admin/trust/exclusions", true, "", &log)
	if len(log.Log) != 2 || log.Log[0].Excluded != nil || log.Log[1].Reason != "spam" || !*log.Log[1].Excluded {
		t.Fatalf("log = %+v", log)
	}
	var after boardJudges
	if d.do("GET", "/api/leaderboard", false, "", &after); after.ExcludedVotes != 0 || after.CountedVotes != before.CountedVotes {
		t.Fatalf("after withdrawing: %+v", after)
	}
}

// TestGoldRoutes: marks per battle (PUT, DELETE), the list, and a gold
// file's upload, all or nothing with the bad line named.
func TestGoldRoutes(t *testing.T) {
	d := newDemoServer(t)
	bs, err := d.db.BattlesToJudge(context.Background(), d.demo.Humans[0].ID, d.demo.Run.ID)
	if err != nil || len(bs) < 2 {
		t.Fatalf("battles: %v", err)
	}
	id1, id2 := bs[0].ID, bs[1].ID
	if st, body := d.do("PUT", "/api/admin/gold/"+id1, true, `{"expected": "maybe"}`, nil); st != 400 || !strings.Contains(body, "expected") {
		t.Fatalf("bad verdict = %d %s", st, body)
	}
	if st, _ := d.do("PUT", "/api/admin/gold/nope", true, `{"expected": "a"}`, nil); st != 404 {
		t.Fatalf("unknown battle = %d", st)
	}
	file := fmt.Sprintf("{\"battle_id\": %q, \"expected\": \"not_b\"}\n{\"battle_id\": %q, \"expected\": \"c\"}\n", id1, id2)
	if st, body := d.do("POST", "/api/admin/gold", true, file, nil); st != 400 || !strings.Contains(body, "gold file:2: expected") {
		t.Fatalf("bad file = %d %s", st, body)
	}
	var list struct {
		Gold []struct {
			BattleID string `json:"battle_id"`
			Expected string
		}
	}
	if d.do("GET", "/api/admin/gold", true, "", &list); len(list.Gold) != 0 {
		t.Fatalf("a bad file marked %+v", list)
	}
	file = strings.Replace(file, `"c"`, `"tie"`, 1)
	if st, body := d.do("POST", "/api/admin/gold", true, file, nil); st != 200 || !strings.Contains(body, `"marked":2`) {
		t.Fatalf("upload = %d %s", st, body)
	}
	if st, _ := d.do("PUT", "/api/admin/gold/"+id1, true, `{"expected": "a", "note": "b is empty"}`, nil); st != 204 {
		t.Fatalf("PUT = %d", st)
	}
	if st, _ := d.do("DELETE", "/api/admin/gold/"+id2, true, "", nil); st != 204 {
		t.Fatalf("DELETE = %d", st)
	}
	if st, _ := d.do("DELETE", "/api/admin/gold/"+id2, true, "", nil); st != 404 {
		t.Fatalf("DELETE again = %d", st)
	}
	if d.do("GET", "/api/admin/gold", true, "", &list); len(list.Gold) != 1 || list.Gold[0].BattleID != id1 || list.Gold[0].Expected != "a" {
		t.Fatalf("gold = %+v", list)
	}
	if st, _ := d.do("GET", "/api/admin/gold", false, "", nil); st != 401 {
		t.Fatalf("public gold list = %d", st)
	}
}
