// Command genbattles writes a synthetic battle file (the battle record of
// docs/formats.md, one JSON object per line) for benchmarks and demos:
// models with ratings drawn from a normal law (sd 150 around 1000),
// random pairs and sides, outcomes from Bradley-Terry with ties whose
// expected score matches it, and the public arena fields plus a category.
//
//	go run ./scripts/genbattles -n 1000000 -models 150 -o /tmp/battles.jsonl
//	go run ./scripts/genbattles -print-ratings   # the true ratings, to stderr
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
)

func main() {
	n := flag.Int("n", 1_000_000, "battles")
	models := flag.Int("models", 150, "models")
	seed := flag.Uint64("seed", 1, "random seed")
	out := flag.String("o", "-", "output file (- for standard output)")
	printRatings := flag.Bool("print-ratings", false, "print the true ratings to standard error")
	flag.Parse()
	if *models < 2 || *n < 0 {
		fmt.Fprintln(os.Stderr, "genbattles: need at least 2 models and a non-negative count")
		os.Exit(2)
	}
	w := os.Stdout
	if *out != "-" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintln(os.Stderr, "genbattles:", err)
			os.Exit(1)
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	rng := rand.New(rand.NewPCG(*seed, 0x5eed))
	ratings := make([]float64, *models)
	for i := range ratings {
		ratings[i] = 1000 + 150*rng.NormFloat64()
		if *printRatings {
			fmt.Fprintf(os.Stderr, "model-%03d\t%.3f\n", i, ratings[i])
		}
	}
	categories := []string{"refunds", "billing", "coding", "writing", "math", "legal", "travel", "health"}
	kinds := []string{"typical", "typical", "typical", "edge", "adversarial"}
	line := make([]byte, 0, 256)
	for k := 0; k < *n; k++ {
		i := rng.IntN(*models)
		j := rng.IntN(*models - 1)
		if j >= i {
			j++
		}
		p := 1 / (1 + math.Pow(10, (ratings[j]-ratings[i])/400))
		tie := 0.4 * math.Min(p, 1-p)
		winner := "model_b"
		switch u := rng.Float64(); {
		case u < p-tie/2:
			winner = "model_a"
		case u < p+tie/2:
			winner = "tie"
			if rng.IntN(5) == 0 {
				winner = "tie (bothbad)"
			}
		}
		line = append(line[:0], `{"model_a": "model-`...)
		line = appendPadded(line, i)
		line = append(line, `", "model_b": "model-`...)
		line = appendPadded(line, j)
		line = append(line, `", "winner": "`...)
		line = append(line, winner...)
		line = append(line, `", "judge": "human:j`...)
		line = strconv.AppendInt(line, int64(rng.IntN(500)), 10)
		line = append(line, `", "question_id": "q-`...)
		line = strconv.AppendInt(line, int64(rng.IntN(20000)), 10)
		line = append(line, `", "tstamp": `...)
		line = strconv.AppendFloat(line, 1733150000+float64(k)*0.5, 'f', -1, 64)
		line = append(line, `, "turn": 1, "anony": true, "category": "`...)
		line = append(line, categories[rng.IntN(len(categories))]...)
		line = append(line, `", "kind": "`...)
		line = append(line, kinds[rng.IntN(len(kinds))]...)
		line = append(line, "\"}\n"...)
		if _, err := bw.Write(line); err != nil {
			fmt.Fprintln(os.Stderr, "genbattles:", err)
			os.Exit(1)
		}
	}
	if err := bw.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "genbattles:", err)
		os.Exit(1)
	}
}

func appendPadded(b []byte, i int) []byte {
	if i < 100 {
		b = append(b, '0')
	}
	if i < 10 {
		b = append(b, '0')
	}
	return strconv.AppendInt(b, int64(i), 10)
}
