package server_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/server"
)

// storeRunBattles stores a run with one battle per prompt, as `ringside run`
// would, and returns the battles by id with the output of each side.
func storeRunBattles(t *testing.T, h *harness, outputs map[string][2]string) map[string][2]string {
	t.Helper()
	ctx := context.Background()
	run := &ringside.Run{Name: "nightly", Models: []string{modelZephyr.Name, modelQuill.Name}, Samples: 1}
	if err := h.db.CreateRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	byBattle := map[string][2]string{}
	for promptID, out := range outputs {
		var ids [2]string
		for i, m := range []string{modelZephyr.Name, modelQuill.Name} {
			g := &ringside.Generation{RunID: run.ID, PromptID: promptID, PromptSet: "support", Model: m, Output: out[i], TTFTMs: 20, LatencyMs: 120, TokensIn: 10, TokensOut: 20}
			if err := h.db.CreateGeneration(ctx, g); err != nil {
				t.Fatal(err)
			}
			ids[i] = g.ID
		}
		b := &ringside.Battle{RunID: run.ID, Source: ringside.SourceRun, PromptID: promptID, PromptSet: "support", ModelA: modelZephyr.Name, ModelB: modelQuill.Name,
			GenerationA: ids[0], GenerationB: ids[1]}
		if err := h.db.CreateBattle(ctx, b); err != nil {
			t.Fatal(err)
		}
		byBattle[b.ID] = out
	}
	return byBattle
}

func TestStoredBattlesAreDealtOncePerJudgeAndReplayed(t *testing.T) {
	for _, pace := range []string{config.PaceInstant, config.PaceRecorded} {
		t.Run(pace, func(t *testing.T) {
			h := newHarness(t, func(c *config.Config) {
				c.Judging.Source = config.SourceStored
				c.Judging.Pace = pace
			}, nil)
			battles := storeRunBattles(t, h, map[string][2]string{
				"refund-1": {"Five to seven business days.", "About a week, once it is scanned."},
				"refund-2": {"No: only unworn items.", "Worn items cannot be returned, sorry."},
			})
			j := h.dial(h.invite("replayer", 0))
			seen := map[string]bool{}
			for range 2 {
				w := j.watch()
				want, ok := battles[w.id]
				if !ok || seen[w.id] {
					t.Fatalf("dealt %s (known %v, seen %v)", w.id, ok, seen[w.id])
				}
				seen[w.id] = true
				if w.text["a"] != want[0] || w.text["b"] != want[1] {
					t.Fatalf("replayed a=%q b=%q, want %q", w.text["a"], w.text["b"], want)
				}
				if v := j.vote(w.id, "a"); v.Reveal == nil || v.Reveal.A != modelZephyr.Name {
					t.Fatalf("voted %s", v.raw)
				}
			}
			j.send(map[string]string{"type": "next"})
			if d := j.until("done"); d.Reason != "empty" {
				t.Fatalf("after every battle: %s", d.raw)
			}
			// Another judge gets the same battles.
			k := h.dial(h.invite("second", 0))
			if w := k.watch(); battles[w.id] == [2]string{} {
				t.Fatalf("second judge dealt %s", w.id)
			}
		})
	}
}

// A stored battle whose prompt is not stored cannot be shown: it is passed
// over, and the server says why once, since the judge hears only "empty".
func TestAStoredBattleWithoutItsPromptIsPassedOverAndLogged(t *testing.T) {
	h := newHarness(t, func(c *config.Config) { c.Judging.Source = config.SourceStored }, nil)
	battles := storeRunBattles(t, h, map[string][2]string{
		"refund-1": {"Five to seven business days.", "About a week."},
		"gone-1":   {"An answer.", "Another answer."},
	})
	j := h.dial(h.invite("ana", 0))
	w := j.watch()
	if battles[w.id][0] != "Five to seven business days." {
		t.Fatalf("dealt %s: %q", w.id, battles[w.id])
	}
	j.vote(w.id, "a")
	j.send(map[string]string{"type": "next"})
	if d := j.until("done"); d.Reason != "empty" {
		t.Fatalf("after the one showable battle: %s", d.raw)
	}
	logs := h.logs.String()
	for id, out := range battles {
		if out[0] == "An answer." && (!strings.Contains(logs, "cannot be shown") || !strings.Contains(logs, id)) {
			t.Fatalf("log does not name unshowable battle %s: %s", id, logs)
		}
	}
}

func TestLiveOutputThatNamesItsModelReachesTheJudgeAndMarksTheBattle(t *testing.T) {
	leaky := "As quill-beta, trained by a lab, I would say a week. "
	h := newHarness(t, nil, map[string]*fakeModel{modelZephyr.Name: newFake(zephyrText, 0), modelQuill.Name: newFake(leaky, 0)})
	j := h.dial(h.invite("j", 0))
	w := j.watch()
	if w.text["a"] != leaky && w.text["b"] != leaky {
		t.Fatalf("the leaking output did not reach the judge: %+v", w.text)
	}
	j.vote(w.id, "a")
	if b := h.stored(w.id); !b.IdentityLeak {
		t.Fatalf("battle not marked: %+v", b)
	}
	// An honest battle is not marked.
	if leakyCheck := strings.Contains(zephyrText+quillText, "quill"); leakyCheck {
		t.Fatal("test outputs name a model")
	}
}

func TestInviteAPICreatesListsAndRevokes(t *testing.T) {
	h := newHarness(t, nil, nil)
	admin, err := server.EnsureAdminToken(context.Background(), h.db, "")
	if err != nil {
		t.Fatal(err)
	}
	call := func(method, path, body string) (int, map[string]any) {
		req, _ := http.NewRequest(method, h.ts.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+admin)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	status, inv := call("POST", "/api/admin/judges", `{"name": "Rita", "quota": 5}`)
	if status != 201 || inv["token"] == "" || !strings.Contains(inv["url"].(string), "/judge?token=") {
		t.Fatalf("create = %d %v", status, inv)
	}
	if status, body := call("POST", "/api/admin/judges", `{"name": ""}`); status != 400 {
		t.Fatalf("create without name = %d %v", status, body)
	}
	token := inv["token"].(string)
	judgeID := inv["judge"].(map[string]any)["id"].(string)

	j := h.dial(token)
	w := j.watch()
	j.vote(w.id, "a")
	status, list := call("GET", "/api/admin/judges", "")
	judges := list["judges"].([]any)
	if status != 200 || len(judges) != 1 || judges[0].(map[string]any)["votes"].(float64) != 1 ||
		judges[0].(map[string]any)["quota"].(float64) != 5 {
		t.Fatalf("list = %d %v", status, list)
	}
	if strings.Contains(toJSON(list), token) || strings.Contains(toJSON(list), ringside.HashToken(token)) {
		t.Fatal("the list shows a token")
	}

	// Revoking disconnects the judge at once and refuses the invite after.
	if status, _ := call("DELETE", "/api/admin/judges/"+judgeID, ""); status != 204 {
		t.Fatalf("revoke = %d", status)
	}
	if code := j.closeCode(); code != 4001 {
		t.Fatalf("revoked judge closed with %d, want 4001", code)
	}
	again, _, err := h.tryDial(token, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f := again.read(); f.Type != "error" || f.Code != "unauthorized" {
		t.Fatalf("revoked invite: %s", f.raw)
	}
	if status, _ := call("DELETE", "/api/admin/judges/nobody", ""); status != 404 {
		t.Fatalf("revoke unknown = %d", status)
	}
	// Without the admin token, nothing.
	resp, err := http.Post(h.ts.URL+"/api/admin/judges", "application/json", strings.NewReader(`{"name":"x"}`))
	if err != nil || resp.StatusCode != 401 {
		t.Fatalf("create without admin token: %v %v", resp.StatusCode, err)
	}
	resp.Body.Close()
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestNoInviteNoJudging(t *testing.T) {
	h := newHarness(t, nil, nil)
	for _, token := range []string{"", "not-a-real-token"} {
		j, _, err := h.tryDial(token, nil)
		if err != nil {
			t.Fatal(err)
		}
		if f := j.read(); f.Type != "error" || f.Code != "unauthorized" {
			t.Fatalf("token %q: %s", token, f.raw)
		}
		if code := j.closeCode(); code != 4001 {
			t.Fatalf("token %q: close %d", token, code)
		}
	}
}

func TestJudgePageKeepsTheInviteInACookie(t *testing.T) {
	h := newHarness(t, nil, nil)
	token := h.invite("cookie", 0)
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(h.ts.URL + "/judge?token=" + token)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/judge" {
		t.Fatalf("GET /judge?token= = %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	u, _ := url.Parse(h.ts.URL)
	cookies := jar.Cookies(u)
	if len(cookies) != 1 || cookies[0].Value != token {
		t.Fatalf("cookies %v", cookies)
	}
	if sc := resp.Header.Get("Set-Cookie"); !strings.Contains(sc, "HttpOnly") || !strings.Contains(sc, "SameSite=Lax") {
		t.Fatalf("Set-Cookie %q", sc)
	}
	// The websocket takes the cookie.
	j, _, err := h.tryDial("", http.Header{"Cookie": {"ringside_judge=" + token}})
	if err != nil {
		t.Fatal(err)
	}
	if f := j.read(); f.Type != "hello" || f.Anonymous {
		t.Fatalf("with the cookie: %s", f.raw)
	}
}

func TestOpenJudgingGivesAnonymousIdentitiesUnderLimits(t *testing.T) {
	h := newHarness(t, func(c *config.Config) {
		c.Judging.Open = config.OpenJudging{Enabled: true, Quota: 2, IPPerMinute: 1, IPBurst: 3, BattlesPerMinute: 60}
	}, nil)
	// The page hands out an identity cookie (one address: one limit).
	resp, err := http.Get(h.ts.URL + "/judge")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var cookie *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == "ringside_judge" {
			cookie = c
		}
	}
	if resp.StatusCode != 200 || cookie == nil {
		t.Fatalf("GET /judge = %d, cookies %v", resp.StatusCode, resp.Cookies())
	}
	header := http.Header{"Cookie": {cookie.String()}}
	j, _, err := h.tryDial("", header)
	if err != nil {
		t.Fatal(err)
	}
	hello := j.read()
	if hello.Type != "hello" || !hello.Anonymous || hello.Progress.Quota != 2 {
		t.Fatalf("anonymous hello: %s", hello.raw)
	}
	w := j.watch()
	j.vote(w.id, "b")
	j.ws.Close()

	// The same cookie is the same judge; a third connection within the
	// minute exceeds the address's burst of 3.
	k, _, err := h.tryDial("", header)
	if err != nil {
		t.Fatal(err)
	}
	if f := k.read(); f.Type != "hello" || f.Progress.Done != 1 {
		t.Fatalf("same cookie again: %s", f.raw)
	}
	k.ws.Close()
	limited, _, err := h.tryDial("", header)
	if err != nil {
		t.Fatal(err)
	}
	if f := limited.read(); f.Type != "error" || f.Code != "rate_limited" {
		t.Fatalf("over the address limit: %s", f.raw)
	}
	// Anonymous judges are not invites.
	invites, err := h.db.Invites(context.Background(), false)
	if err != nil || len(invites) != 0 {
		t.Fatalf("invites %v, %v", invites, err)
	}
	// A made-up cookie of the wrong shape creates nothing.
	bogus, _, err := h.tryDial("", http.Header{"Cookie": {"ringside_judge=short"}})
	if err != nil {
		t.Fatal(err)
	}
	if f := bogus.read(); f.Code != "unauthorized" {
		t.Fatalf("bogus cookie: %s", f.raw)
	}
}

func TestOpenBattleResumesFromTheDatabaseAfterARestart(t *testing.T) {
	stored := func(c *config.Config) { c.Judging.Source = config.SourceStored }
	h := newHarness(t, stored, nil)
	battles := storeRunBattles(t, h, map[string][2]string{"refund-1": {"Five to seven days.", "A week."}})
	token := h.invite("restarted", 0)
	j := h.dial(token)
	j.send(map[string]string{"type": "next"})
	b := j.until("battle")

	// The server goes away mid-battle; a new one starts on the same file.
	h.srv.Close()
	srv2 := server.New(h.db, h.cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	ts2 := httptest.NewServer(srv2.Echo)
	t.Cleanup(func() {
		srv2.Close()
		ts2.Close()
	})
	h2 := *h
	h2.srv, h2.ts = srv2, ts2
	again := h2.dial(token)
	again.send(map[string]string{"type": "next"})
	r := again.until("battle")
	if r.BattleID != b.BattleID || !r.Resumed {
		t.Fatalf("after the restart: %s; want battle %s resumed", r.raw, b.BattleID)
	}
	w := again.follow(r.BattleID)
	if want := battles[w.id]; w.text["a"] != want[0] || w.text["b"] != want[1] {
		t.Fatalf("resumed text %+v, want %q", w.text, want)
	}
	again.vote(w.id, "b")
}
