package arena_test

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/ringside-eval/ringside/arena"
)

func TestScheduleAllPairs(t *testing.T) {
	models := []string{"m1", "m2", "m3", "m4"}
	rounds := arena.Schedule(models, testPrompts(3), 2, arena.Pairing{Mode: arena.PairsAll, Seed: 7})
	if len(rounds) != 6 {
		t.Fatalf("%d rounds, want 3 prompts × 2 samples", len(rounds))
	}
	for _, rd := range rounds {
		if len(rd.Pairs) != 6 {
			t.Fatalf("round %s/%d has %d pairs, want all 6", rd.Prompt.ID, rd.Sample, len(rd.Pairs))
		}
		seen := map[[2]string]bool{}
		for _, p := range rd.Pairs {
			k := [2]string{min(p.A, p.B), max(p.A, p.B)}
			if p.A == p.B || seen[k] {
				t.Fatalf("round %s/%d: bad or repeated pair %v", rd.Prompt.ID, rd.Sample, p)
			}
			seen[k] = true
		}
		if len(rd.Models()) != 4 {
			t.Fatalf("round models = %v", rd.Models())
		}
	}
}

func TestScheduleIsDeterministicAndStable(t *testing.T) {
	p := arena.Pairing{Mode: arena.PairsSampled, PerPrompt: 2, Seed: 42, Weights: map[string]float64{"m1": 3}}
	prompts := testPrompts(20)
	a := arena.Schedule([]string{"m1", "m2", "m3", "m4", "m5"}, prompts, 3, p)
	b := arena.Schedule([]string{"m5", "m3", "m1", "m4", "m2"}, prompts, 3, p)
	if !reflect.DeepEqual(pairsOf(a), pairsOf(b)) {
		t.Fatal("the schedule depends on the order the models are listed in")
	}
	// Fewer prompts and samples: what remains is drawn the same, so a run
	// that grows keeps the battles it has.
	c := arena.Schedule([]string{"m1", "m2", "m3", "m4", "m5"}, prompts[5:9], 2, p)
	want := map[string][]arena.Pair{}
	for _, rd := range a {
		want[key(rd)] = rd.Pairs
	}
	for _, rd := range c {
		if !reflect.DeepEqual(rd.Pairs, want[key(rd)]) {
			t.Fatalf("round %s drew %v alone and %v in the larger run", key(rd), rd.Pairs, want[key(rd)])
		}
	}
	p.Seed = 43
	d := arena.Schedule([]string{"m1", "m2", "m3", "m4", "m5"}, prompts, 3, p)
	if reflect.DeepEqual(pairsOf(a), pairsOf(d)) {
		t.Fatal("another seed drew the same schedule")
	}
}

func TestSamplePairs(t *testing.T) {
	models := []string{"m1", "m2", "m3", "m4"}
	r := rand.New(rand.NewPCG(1, 2))
	sideA := map[string]int{}
	appear := map[string]int{}
	const draws = 4000
	for range draws {
		pairs := arena.SamplePairs(r, models, map[string]float64{"m1": 4}, 2)
		if len(pairs) != 2 {
			t.Fatalf("drew %d pairs, want 2", len(pairs))
		}
		if pairs[0] == pairs[1] || pairs[0] == (arena.Pair{A: pairs[1].B, B: pairs[1].A}) {
			t.Fatalf("drew the same pair twice: %v", pairs)
		}
		for _, p := range pairs {
			sideA[p.A]++
			appear[p.A]++
			appear[p.B]++
		}
	}
	// m1 weighs 4: its pairs weigh 4 against 1 for the others.
	if 2*appear["m1"] < 3*appear["m2"] { // about 1.9× expected, 1× unweighted
		t.Errorf("m1 (weight 4) appeared %d times, m2 %d: weights ignored", appear["m1"], appear["m2"])
	}
	for _, m := range models {
		if frac := float64(sideA[m]) / float64(appear[m]); frac < 0.45 || frac > 0.55 {
			t.Errorf("%s was side a in %.2f of its battles, want about half", m, frac)
		}
	}
	if got := arena.SamplePairs(r, models, nil, 100); len(got) != 6 {
		t.Errorf("asking for more pairs than exist drew %d, want all 6", len(got))
	}
}

func key(rd arena.Round) string { return rd.Prompt.ID + "/" + string(rune('0'+rd.Sample)) }

func pairsOf(rounds []arena.Round) map[string][]arena.Pair {
	out := map[string][]arena.Pair{}
	for _, rd := range rounds {
		out[key(rd)] = rd.Pairs
	}
	return out
}
