package server_test

import (
	"context"
	"testing"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
	"github.com/ringside-eval/ringside/store"
)

// The admin sees the candidate pool, the harvest of judges' questions, and
// picks questions for export.
func TestAdminPoolAndHarvest(t *testing.T) {
	seed := func(t *testing.T, env *scenarioEnv) {
		_, err := env.db.UpsertPrompts(context.Background(), "arena", []ringside.Prompt{{ID: "q-1", Kind: ringside.KindUser,
			Category: "network", Messages: []ringside.Message{{Role: "user", Content: "What is a VLAN?"}}}})
		if err != nil {
			t.Fatal(err)
		}
	}
	runScenarios(t, []apiScenario{
		{name: "pool: the models no judge uses", method: "GET", url: "/api/admin/pool", headers: asAdmin,
			before: func(_ *testing.T, env *scenarioEnv) {
				env.srv.Config.Models = []ringside.Model{{Name: "m1"}, {Name: "m2"}, {Name: "grader"}}
				env.srv.Config.Judges = []config.Judge{{Name: "llm", Kind: "llm", Model: "grader"}}
			},
			status: 200, contains: []string{`"pool":[{"model":"m1","weight":1},{"model":"m2","weight":1}]`, `"chat_set":"arena"`},
			notContains: []string{"grader"}},
		{name: "pool: judging.models", method: "GET", url: "/api/admin/pool", headers: asAdmin,
			before: func(_ *testing.T, env *scenarioEnv) {
				env.srv.Config.Models = []ringside.Model{{Name: "m1"}, {Name: "m2"}, {Name: "m3"}}
				env.srv.Config.Judging.Models = []string{"m3", "m1"}
				env.srv.Config.Judging.Weights = map[string]float64{"m3": 2}
			},
			status: 200, contains: []string{`"pool":[{"model":"m1","weight":1},{"model":"m3","weight":2}]`}},
		{name: "harvest", method: "GET", url: "/api/admin/harvest", headers: asAdmin, before: seed,
			status: 200, contains: []string{`"set":"arena"`, `{"id":"q-1","text":"What is a VLAN?","category":"network","kind":"user","judges":0,"picked":false}`}},
		{name: "pick", method: "PUT", url: "/api/admin/harvest/q-1/pick", headers: asAdmin, body: `{"picked":true}`, before: seed,
			status: 204, after: func(t *testing.T, env *scenarioEnv, _ string) {
				got, err := env.db.Harvest(context.Background(), "arena", store.HarvestFilter{PickedOnly: true})
				if err != nil || len(got) != 1 || got[0].Prompt.ID != "q-1" {
					t.Fatalf("picked = %+v, %v", got, err)
				}
			}},
		{name: "pick: unknown prompt", method: "PUT", url: "/api/admin/harvest/q-9/pick", headers: asAdmin, body: `{"picked":true}`,
			status: 404, contains: []string{`"code":"not_found"`}},
		{name: "pick: no body", method: "PUT", url: "/api/admin/harvest/q-1/pick", headers: asAdmin, body: `{}`,
			status: 400, contains: []string{`picked`}},
	})
}
