// Package servertest fills a database with a demo's worth of data — a run of
// the simulated models on the example prompts, the rules judge's votes and
// some simulated human votes — for the browser tests and the README's
// screenshots, which need a realistic leaderboard without keys or network.
package servertest

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/arena"
	"github.com/ringside-eval/ringside/examples"
	"github.com/ringside-eval/ringside/judge"
	"github.com/ringside-eval/ringside/provider"
	"github.com/ringside-eval/ringside/provider/sim"
	"github.com/ringside-eval/ringside/store"
)

// Options tune Fill. The zero value is a sensible demo.
type Options struct {
	// Speed plays the simulated models this many times faster (default
	// 1000: the run takes about a second).
	Speed float64
	// Humans is the number of simulated human judges (default 3) and
	// HumanVotes the votes each casts (default 60).
	Humans, HumanVotes int
	// Seed draws the human votes.
	Seed uint64
}

// Demo is what Fill stored.
type Demo struct {
	Run     *ringside.Run
	Models  []ringside.Model
	Prompts []ringside.Prompt
	Battles int
	Humans  []ringside.Judge
}

// PromptSet is the name the example prompts are stored under.
const PromptSet = "examples"

// strengths are the simulated people's taste, in rating points: what a
// team might find of the four demo models, with sim-breeze weak on format.
var strengths = map[string]float64{"sim-atlas": 1080, "sim-cascade": 1010, "sim-dune": 990, "sim-breeze": 930}

var dimOffsets = map[string]map[string]float64{
	"format_compliance":      {"sim-breeze": -120, "sim-cascade": -40},
	"factual_accuracy":       {"sim-atlas": 40},
	"instruction_following":  {"sim-dune": 30},
	"long_context_retention": {"sim-cascade": 50, "sim-breeze": -30},
}

// Fill stores the example prompts, runs the demo models on them as run
// "demo", applies the rules judge (the prompts' own checks) and casts
// simulated human votes with per-dimension verdicts.
func Fill(ctx context.Context, db *store.DB, o Options) (*Demo, error) {
	if o.Speed == 0 {
		o.Speed = 1000
	}
	if o.Humans == 0 {
		o.Humans = 3
	}
	if o.HumanVotes == 0 {
		o.HumanVotes = 60
	}
	prompts, err := ringside.ReadPrompts(bytes.NewReader(examples.Prompts), "examples")
	if err != nil {
		return nil, err
	}
	if _, err := db.UpsertPrompts(ctx, PromptSet, prompts); err != nil {
		return nil, err
	}
	for i := range prompts {
		prompts[i].Set = PromptSet // what the run's rows name
	}
	d := &Demo{Models: sim.DemoModels(), Prompts: prompts}
	if err := d.run(ctx, db, o.Speed); err != nil {
		return nil, err
	}
	battles, err := d.rules(ctx, db)
	if err != nil {
		return nil, err
	}
	d.Battles = len(battles)
	if err := d.humans(ctx, db, battles, o); err != nil {
		return nil, err
	}
	return d, nil
}

func (d *Demo) run(ctx context.Context, db *store.DB, speed float64) error {
	var contestants []arena.Contestant
	var names []string
	for i := range d.Models {
		m := &d.Models[i]
		opts := map[string]any{}
		for k, v := range m.Options {
			opts[k] = v
		}
		opts["speed"] = speed
		m.Options = opts
		s, err := provider.New(*m, provider.Options{})
		if err != nil {
			return err
		}
		contestants = append(contestants, arena.Contestant{Model: *m, Streamer: s})
		names = append(names, m.Name)
	}
	d.Run = &ringside.Run{Name: "demo", Models: names, PromptSets: []string{PromptSet}, Samples: 1}
	if err := db.CreateRun(ctx, d.Run); err != nil {
		return err
	}
	r, err := arena.New(arena.Config{RunID: d.Run.ID, Contestants: contestants, Prompts: d.Prompts, Samples: 1,
		Pairing: arena.Pairing{Mode: "all"}, Concurrency: 8, Store: db})
	if err != nil {
		return err
	}
	plan, err := r.Prepare(ctx)
	if err != nil {
		return err
	}
	_, err = r.Execute(ctx, plan, arena.Observer{})
	return err
}

// rules runs the prompts' checks on every generation and votes for the
// side that passed more, as `ringside judge` does with no default checks.
// It returns the judgeable battles (both sides succeeded).
func (d *Demo) rules(ctx context.Context, db *store.DB) ([]ringside.Battle, error) {
	j, err := db.EnsureJudge(ctx, ringside.JudgeRules, ringside.JudgeRules)
	if err != nil {
		return nil, err
	}
	rules, err := judge.NewRules(d.Prompts, nil)
	if err != nil {
		return nil, err
	}
	battles, err := db.BattlesToJudge(ctx, j.ID, d.Run.ID)
	if err != nil {
		return nil, err
	}
	results := map[string][]ringside.CheckResult{}
	for after := ""; ; {
		gens, err := db.GenerationsPage(ctx, d.Run.ID, after, 500)
		if err != nil {
			return nil, err
		}
		if len(gens) == 0 {
			break
		}
		var ids []string
		var rows []ringside.CheckResult
		for i := range gens {
			g := &gens[i]
			rs, ok := rules.Check(g)
			if !ok {
				continue
			}
			ids = append(ids, g.ID)
			results[g.ID] = rs
			rows = append(rows, rs...)
		}
		if err := db.ReplaceCheckResults(ctx, j.ID, ids, rows); err != nil {
			return nil, err
		}
		after = gens[len(gens)-1].ID
	}
	var votes []*ringside.Vote
	for _, b := range battles {
		if w, dims, reason, ok := judge.RuleVote(results[b.GenerationA], results[b.GenerationB]); ok {
			votes = append(votes, &ringside.Vote{BattleID: b.ID, JudgeID: j.ID, Winner: w, Dimensions: dims, Reason: reason})
		}
	}
	if _, err := db.SaveAutoVotes(ctx, votes); err != nil {
		return nil, err
	}
	return battles, nil
}

// humans casts each simulated person's votes on distinct battles, drawn
// from the Bradley-Terry model of strengths, with a verdict per dimension
// and a time taken.
func (d *Demo) humans(ctx context.Context, db *store.DB, battles []ringside.Battle, o Options) error {
	rnd := rand.New(rand.NewPCG(o.Seed, 7))
	names := []string{"ana", "bo", "chidi", "dara", "eun", "femi"}
	for h := 0; h < o.Humans; h++ {
		j := &ringside.Judge{Kind: ringside.JudgeHuman, Name: names[h%len(names)]}
		if err := db.CreateJudge(ctx, j, ringside.HashToken(ringside.NewToken())); err != nil {
			return err
		}
		d.Humans = append(d.Humans, *j)
		for _, k := range rnd.Perm(len(battles))[:min(o.HumanVotes, len(battles))] {
			b := &battles[k]
			v := &ringside.Vote{BattleID: b.ID, JudgeID: j.ID, Winner: draw(rnd, b, nil),
				DurationMs: int64(6000 + rnd.IntN(40000)), Dimensions: map[string]ringside.Winner{}}
			for dim, off := range dimOffsets {
				v.Dimensions[dim] = draw(rnd, b, off)
			}
			if _, err := db.CreateVote(ctx, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// draw picks a winner: a tie one time in six, else side a with the
// Bradley-Terry probability of the two strengths.
func draw(rnd *rand.Rand, b *ringside.Battle, offset map[string]float64) ringside.Winner {
	if rnd.IntN(6) == 0 {
		return ringside.WinnerTie
	}
	ra, rb := strengths[b.ModelA]+offset[b.ModelA], strengths[b.ModelB]+offset[b.ModelB]
	if rnd.Float64() < 1/(1+math.Pow(10, (rb-ra)/400)) {
		return ringside.WinnerA
	}
	return ringside.WinnerB
}
