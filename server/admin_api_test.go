package server_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ringside-eval/ringside"
)

// seedJudge stores the invited judge "rita" with id judge-rita.
func seedJudge(quota int) func(*testing.T, *scenarioEnv) {
	return func(t *testing.T, env *scenarioEnv) {
		t.Helper()
		j := &ringside.Judge{ID: "judge-rita", Kind: ringside.JudgeHuman, Name: "rita", Quota: quota}
		if err := env.db.CreateJudge(context.Background(), j, ringside.HashToken("rita-token")); err != nil {
			t.Fatal(err)
		}
	}
}

// storedJudge reads a judge back, for the checks after a change.
func storedJudge(t *testing.T, env *scenarioEnv, id string) *ringside.Judge {
	t.Helper()
	j, err := env.db.Judge(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// adminRoutes are every route behind the admin token, with a body that
// would be accepted.
var adminRoutes = []struct{ method, url, body string }{
	{"GET", "/api/admin/whoami", ""},
	{"POST", "/api/admin/judges", `{"name":"rita"}`},
	{"GET", "/api/admin/judges", ""},
	{"DELETE", "/api/admin/judges/judge-rita", ""},
	{"PATCH", "/api/admin/judges/judge-rita", `{"quota":5}`},
	{"GET", "/api/admin/runs", ""},
	{"GET", "/api/admin/activity", ""},
	{"GET", "/api/admin/models", ""},
	{"GET", "/api/admin/agreement", ""},
	{"GET", "/api/admin/pool", ""},
	{"GET", "/api/admin/harvest", ""},
	{"PUT", "/api/admin/harvest/q-1/pick", `{"picked":true}`},
}

// TestAdminRoutesWantTheToken: without the token, or with a wrong one,
// every admin route is refused before it does anything.
func TestAdminRoutesWantTheToken(t *testing.T) {
	var scenarios []apiScenario
	for _, r := range adminRoutes {
		for _, auth := range []struct {
			name    string
			headers map[string]string
			message string
		}{
			{"no token", nil, "admin token required"},
			{"wrong token", wrongAdmin, "wrong admin token"},
		} {
			scenarios = append(scenarios, apiScenario{
				name: r.method + " " + r.url + " " + auth.name, method: r.method, url: r.url, body: r.body,
				headers: auth.headers, before: seedJudge(2),
				status: 401, contains: []string{`{"error":{"code":"unauthorized","message":"` + auth.message + `"}}`},
				after: func(t *testing.T, env *scenarioEnv, _ string) {
					if j := storedJudge(t, env, "judge-rita"); j.Quota != 2 || j.RevokedAt != nil {
						t.Fatalf("a refused request changed the judge: %+v", j)
					}
				},
			})
		}
	}
	runScenarios(t, scenarios)
}

func TestInviteRoutes(t *testing.T) {
	runScenarios(t, []apiScenario{
		{name: "create", method: "POST", url: "/api/admin/judges", headers: asAdmin, body: `{"name":" Maria ","quota":3}`,
			status: 201, wantHeaders: map[string]string{"Content-Type": jsonType},
			contains:    []string{`"kind":"human","name":"Maria","quota":3`, `"token":"`, `/judge?token=`},
			notContains: []string{`"revoked_at"`},
			after: func(t *testing.T, env *scenarioEnv, _ string) {
				list, err := env.db.Invites(context.Background(), false)
				if err != nil || len(list) != 1 || list[0].Name != "Maria" || list[0].Quota != 3 {
					t.Fatalf("invites stored: %+v, %v", list, err)
				}
			}},
		{name: "create: the link is on the public URL", method: "POST", url: "/api/admin/judges", headers: asAdmin,
			body: `{"name":"maria"}`,
			before: func(_ *testing.T, env *scenarioEnv) {
				env.srv.Config.Server.PublicURL = "https://arena.example.org/"
			},
			status: 201, contains: []string{`"url":"https://arena.example.org/judge?token=`}},
		{name: "create: no name", method: "POST", url: "/api/admin/judges", headers: asAdmin, body: `{"name":"  "}`,
			status: 400, contains: []string{`{"error":{"code":"invalid","message":"name: required"}}`}},
		{name: "create: negative quota", method: "POST", url: "/api/admin/judges", headers: asAdmin, body: `{"name":"maria","quota":-1}`,
			status: 400, contains: []string{`"message":"quota: must not be negative"`}},
		{name: "create: not JSON", method: "POST", url: "/api/admin/judges", headers: asAdmin, body: `maria`,
			status: 400, contains: []string{`{"error":{"code":"invalid","message":"body must be JSON {name, quota}"}}`}},
		{name: "create: name too long", method: "POST", url: "/api/admin/judges", headers: asAdmin,
			body:   `{"name":"` + strings.Repeat("m", 201) + `"}`,
			status: 400, contains: []string{`{"error":{"code":"invalid","message":"name: longer than 200 characters"}}`}},

		{name: "list: none", method: "GET", url: "/api/admin/judges", headers: asAdmin,
			status: 200, wantHeaders: map[string]string{"Content-Type": jsonType}, contains: []string{`{"judges":[]}`}},
		{name: "list", method: "GET", url: "/api/admin/judges", headers: asAdmin, before: seedJudge(4),
			status: 200, contains: []string{`{"judges":[{"id":"judge-rita","kind":"human","name":"rita","quota":4,`, `"votes":0}]}`},
			notContains: []string{"rita-token", "token_hash"}},

		{name: "revoke", method: "DELETE", url: "/api/admin/judges/judge-rita", headers: asAdmin, before: seedJudge(0),
			status: 204,
			after: func(t *testing.T, env *scenarioEnv, _ string) {
				if j := storedJudge(t, env, "judge-rita"); j.RevokedAt == nil {
					t.Fatalf("judge not revoked: %+v", j)
				}
			}},
		{name: "revoke: unknown judge", method: "DELETE", url: "/api/admin/judges/nobody", headers: asAdmin,
			status: 404, contains: []string{`{"error":{"code":"not_found","message":"judge not found"}}`}},

		{name: "quota", method: "PATCH", url: "/api/admin/judges/judge-rita", headers: asAdmin, body: `{"quota":5}`,
			before: seedJudge(2), status: 204,
			after: func(t *testing.T, env *scenarioEnv, _ string) {
				if j := storedJudge(t, env, "judge-rita"); j.Quota != 5 {
					t.Fatalf("quota %d, want 5", j.Quota)
				}
			}},
		{name: "quota: 0 is no limit", method: "PATCH", url: "/api/admin/judges/judge-rita", headers: asAdmin, body: `{"quota":0}`,
			before: seedJudge(2), status: 204,
			after: func(t *testing.T, env *scenarioEnv, _ string) {
				if j := storedJudge(t, env, "judge-rita"); j.Quota != 0 {
					t.Fatalf("quota %d, want 0", j.Quota)
				}
			}},
		{name: "quota: missing", method: "PATCH", url: "/api/admin/judges/judge-rita", headers: asAdmin, body: `{}`,
			before: seedJudge(2),
			status: 400, contains: []string{`{"error":{"code":"invalid","message":"quota: body must be JSON {\"quota\": N}"}}`}},
		{name: "quota: negative", method: "PATCH", url: "/api/admin/judges/judge-rita", headers: asAdmin, body: `{"quota":-2}`,
			before: seedJudge(2),
			status: 400, contains: []string{`{"error":{"code":"invalid","message":"quota: must be 0 (no limit) or more"}}`}},
		{name: "quota: not a number", method: "PATCH", url: "/api/admin/judges/judge-rita", headers: asAdmin, body: `{"quota":"five"}`,
			before: seedJudge(2),
			status: 400, contains: []string{`"message":"quota: body must be JSON`}},
		{name: "quota: unknown judge", method: "PATCH", url: "/api/admin/judges/nobody", headers: asAdmin, body: `{"quota":5}`,
			status: 404, contains: []string{`{"error":{"code":"not_found","message":"no human judge nobody"}}`}},
	})
}

// TestAdminReadRoutes: the admin page's reads, on an empty database and on
// the demo's.
func TestAdminReadRoutes(t *testing.T) {
	runScenarios(t, []apiScenario{
		{name: "runs: none", method: "GET", url: "/api/admin/runs", headers: asAdmin,
			status: 200, wantHeaders: map[string]string{"Content-Type": jsonType}, contains: []string{`{"runs":[]}`}},
		{name: "runs", method: "GET", url: "/api/admin/runs", headers: asAdmin, demo: true,
			status: 200, contains: []string{`"name":"demo"`, `"models":["sim-atlas","sim-breeze","sim-cascade","sim-dune"]`,
				`"prompts":61,"expected_generations":244,"generations":244,`}},

		{name: "activity: none", method: "GET", url: "/api/admin/activity", headers: asAdmin,
			status: 200, contains: []string{`{"connected":0,"judges":[]}`}},
		{name: "activity", method: "GET", url: "/api/admin/activity", headers: asAdmin, demo: true,
			status: 200, contains: []string{`"connected":0`, `"kind":"rules","name":"rules"`, `"kind":"human","name":"ana"`, `"median_ms_per_vote":`}},

		{name: "models: none", method: "GET", url: "/api/admin/models", headers: asAdmin,
			status: 200, contains: []string{`{"models":[]}`}},
		{name: "models", method: "GET", url: "/api/admin/models", headers: asAdmin, demo: true,
			status: 200, contains: []string{`{"model":"sim-breeze","generations":61,`, `"provider":"sim","configured":true}`}},
		{name: "models: one no longer configured", method: "GET", url: "/api/admin/models", headers: asAdmin, demo: true,
			before: func(_ *testing.T, env *scenarioEnv) {
				env.srv.Config.Models = env.srv.Config.Models[1:]
			},
			status: 200, contains: []string{`"model":"` + "sim-atlas" + `","generations":61`, `"configured":false`}},

		{name: "agreement: none", method: "GET", url: "/api/admin/agreement", headers: asAdmin,
			status: 200, contains: []string{`{"agreement":[]}`}},
		{name: "agreement", method: "GET", url: "/api/admin/agreement", headers: asAdmin, demo: true,
			status: 200, contains: []string{`"judge_a":"human","judge_b":"rules:rules"`, `"kappa":`}},
	})
}
