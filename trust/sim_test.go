package trust

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ringside-eval/ringside"
)

// simModels are the simulated models and their true ratings.
var simModels = []string{"m1", "m2", "m3", "m4", "m5", "m6"}
var simRatings = []float64{1250, 1150, 1050, 950, 850, 750}

// Misbehaviours of simulated judges.
const (
	honest   = "honest"
	random   = "random"   // a or b at random
	left     = "left"     // always a
	promoter = "promoter" // for m4 whenever it plays, else for the weaker side
	fast     = "fast"     // honest verdicts, voted faster than anyone reads
)

// simJudge is a judge of the simulation.
type simJudge struct {
	name, kind string
}

// simulate deals battles to judges, perPerson judges per battle, and
// returns their votes in the order cast.
func simulate(seed uint64, judges []simJudge, battles, perBattle int) []Vote {
	rng := rand.New(rand.NewPCG(seed, 99))
	var votes []Vote
	for b := 0; b < battles; b++ {
		i := rng.IntN(len(simModels))
		j := (i + 1 + rng.IntN(len(simModels)-1)) % len(simModels)
		pa := 1 / (1 + math.Pow(10, (simRatings[j]-simRatings[i])/400))
		chars := 1000 + rng.IntN(3000)
		for _, k := range rng.Perm(len(judges))[:perBattle] {
			jd := judges[k]
			v := Vote{Battle: fmt.Sprint("b", b), ModelA: simModels[i], ModelB: simModels[j], Judge: jd.name, Chars: chars}
			// Honest people read at 4–10 s per 1,000 characters.
			v.DurationMs = int64(float64(chars) * (4 + 6*rng.Float64()))
			switch u := rng.Float64(); {
			case u < 0.1:
				v.Winner = ringside.WinnerTie
			case u < 0.1+0.9*pa:
				v.Winner = ringside.WinnerA
			default:
				v.Winner = ringside.WinnerB
			}
			switch jd.kind {
			case random:
				v.Winner = []ringside.Winner{ringside.WinnerA, ringside.WinnerB}[rng.IntN(2)]
			case left:
				v.Winner = ringside.WinnerA
			case promoter:
				switch {
				case v.ModelA == "m4":
					v.Winner = ringside.WinnerA
				case v.ModelB == "m4":
					v.Winner = ringside.WinnerB
				case simRatings[i] < simRatings[j]:
					v.Winner = ringside.WinnerA
				default:
					v.Winner = ringside.WinnerB
				}
			case fast:
				v.DurationMs = int64(float64(chars) * 0.5 * rng.Float64())
			}
			votes = append(votes, v)
		}
	}
	return votes
}

// thirty is 24 honest judges and six misbehaving ones.
func thirty() []simJudge {
	var js []simJudge
	for i := 0; i < 24; i++ {
		js = append(js, simJudge{fmt.Sprintf("human:h%02d", i), honest})
	}
	for i, k := range []string{random, random, left, promoter, promoter, fast} {
		js = append(js, simJudge{fmt.Sprintf("human:x%d-%s", i, k), k})
	}
	return js
}
