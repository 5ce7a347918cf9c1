package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/server"
)

// adminCall sends an admin request to h and decodes a JSON answer into out.
func adminCall(t *testing.T, h *harness, method, path, body string, out any) int {
	t.Helper()
	const token = "gold-test-admin-token-0123"
	if _, err := server.EnsureAdminToken(context.Background(), h.db, token); err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(method, h.ts.URL+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: %v in %s", method, path, err, b)
		}
	}
	return resp.StatusCode
}

// battleShape is what a judge can see of a battle's frames besides their
// text: the frame types in order (a run of deltas as one) and each type's
// JSON keys.
func battleShape(t *testing.T, j *judge, id string) (types []string, keys map[string][]string) {
	t.Helper()
	keys = map[string][]string{}
	for _, f := range j.frames {
		if f.BattleID != id {
			continue
		}
		if f.Type != "delta" || len(types) == 0 || types[len(types)-1] != "delta" {
			types = append(types, f.Type)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(f.raw), &m); err != nil {
			t.Fatal(err)
		}
		var ks []string
		for k := range m {
			ks = append(ks, k)
		}
		slices.Sort(ks)
		if old, ok := keys[f.Type]; ok && !slices.Equal(old, ks) {
			t.Fatalf("%s frames of one battle differ in keys: %v and %v", f.Type, old, ks)
		}
		keys[f.Type] = ks
	}
	return types, keys
}

// TestGoldBattlesLookLikeAnyOther: at judging.gold_rate a judge is dealt a
// gold battle through the same frames, with the same fields, as a stored
// battle (or, on a live server, a live one), nothing in them says gold,
// and the vote on it grades the judge without counting in the board.
func TestGoldBattlesLookLikeAnyOther(t *testing.T) {
	for _, source := range []string{config.SourceStored, config.SourceLive} {
		t.Run(source, func(t *testing.T) {
			h := newHarness(t, func(c *config.Config) {
				c.Judging.Source = source
				c.Judging.Pace = config.PaceRecorded
				c.Judging.GoldRate = 1
			}, nil)
			outputs := map[string][2]string{"refund-1": {"Five to seven business days.", "About a week, once it is scanned."}}
			if source == config.SourceStored {
				outputs["refund-2"] = [2]string{"No: only unworn items.", "Worn items cannot be returned, sorry."}
			}
			battles := storeRunBattles(t, h, outputs)
			var gold string
			for id, out := range battles {
				if out[0] == "Five to seven business days." {
					gold = id
				}
			}
			if st := adminCall(t, h, "PUT", "/api/admin/gold/"+gold, `{"expected": "a", "note": "b is vague"}`, nil); st != 204 {
				t.Fatalf("PUT gold = %d", st)
			}
			j := h.dial(h.invite("grader", 0))
			first := j.watch()
			j.vote(first.id, "b") // wrong: the gold verdict is a
			second := j.watch()
			j.vote(second.id, "a")
			if first.id != gold || second.id == gold {
				t.Fatalf("dealt %s then %s; gold_rate 1 deals the gold battle %s first", first.id, second.id, gold)
			}
			goldTypes, goldKeys := battleShape(t, j, first.id)
			otherTypes, otherKeys := battleShape(t, j, second.id)
			if !slices.Equal(goldTypes, otherTypes) {
				t.Fatalf("frames: gold %v, other %v", goldTypes, otherTypes)
			}
			for typ, ks := range otherKeys {
				if !slices.Equal(goldKeys[typ], ks) {
					t.Fatalf("%s frame keys: gold %v, other %v", typ, goldKeys[typ], ks)
				}
			}
			if log := strings.ToLower(j.rawLog()); strings.Contains(log, "gold") || strings.Contains(log, "vague") {
				t.Fatalf("a frame marks the gold battle:\n%s", j.rawLog())
			}

			var rep struct {
				Judges []struct {
					Judge string
					Gold  *struct{ Battles, Correct int }
				}
			}
			if st := adminCall(t, h, "GET", "/api/admin/trust", "", &rep); st != 200 {
				t.Fatalf("GET trust = %d", st)
			}
			if len(rep.Judges) != 1 || rep.Judges[0].Judge != "human:grader" || rep.Judges[0].Gold == nil ||
				rep.Judges[0].Gold.Battles != 1 || rep.Judges[0].Gold.Correct != 0 {
				t.Fatalf("report = %+v", rep)
			}
			var board struct {
				CountedVotes int `json:"counted_votes"`
			}
			if st := adminCall(t, h, "GET", "/api/leaderboard?bootstrap=0", "", &board); st != 200 || board.CountedVotes != 1 {
				t.Fatalf("board = %d %+v: the gold vote must not count", st, board)
			}
		})
	}
}

// TestNoGoldDealtAtRateZero: by default gold battles are left to the
// judges' report, never dealt.
func TestNoGoldDealtAtRateZero(t *testing.T) {
	h := newHarness(t, func(c *config.Config) {
		c.Judging.Source = config.SourceStored
		c.Judging.Pace = config.PaceInstant
	}, nil)
	battles := storeRunBattles(t, h, map[string][2]string{
		"refund-1": {"Five to seven business days.", "About a week."},
		"refund-2": {"No.", "Worn items cannot be returned."},
	})
	for id, out := range battles {
		if out[0] == "No." {
			if st := adminCall(t, h, "PUT", "/api/admin/gold/"+id, `{"expected": "b"}`, nil); st != 204 {
				t.Fatalf("PUT gold = %d", st)
			}
		}
	}
	j := h.dial(h.invite("plain", 0))
	w := j.watch()
	if battles[w.id][0] == "No." {
		t.Fatalf("dealt the gold battle at gold_rate 0")
	}
	j.vote(w.id, "a")
	j.send(map[string]string{"type": "next"})
	if d := j.until("done"); d.Reason != "empty" {
		t.Fatalf("after the one battle: %s", d.raw)
	}
}
