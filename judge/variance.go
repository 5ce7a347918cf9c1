package judge

import (
	"math"
	"sort"

	"github.com/ringside-eval/ringside"
)

// PassStats is how consistently one model passes its checks when asked the
// same prompt k times. The worst case is what users remember: pass^k is the
// share of prompts on which all k samples pass, pass@k the share on which at
// least one does; the gap between them is the model's inconsistency.
type PassStats struct {
	Model   string `json:"model"`
	Prompts int    `json:"prompts"`
	Samples int    `json:"samples"`
	// K is the most samples any prompt has; UnevenK is set when some
	// prompt has fewer, in which case its pass^k and pass@k are over the
	// samples it has.
	K       int  `json:"k"`
	UnevenK bool `json:"uneven_k,omitempty"`
	// PassRate is the share of all samples that passed every check.
	PassRate float64 `json:"pass_rate"`
	// PassAllK is pass^k: the share of prompts where every sample passed.
	PassAllK float64 `json:"pass_all_k"`
	// PassAtK is pass@k: the share of prompts where at least one sample
	// passed (empirical, over the k samples taken).
	PassAtK float64 `json:"pass_at_k"`
	// MeanScore is the mean weighted score (share of check weight passed)
	// over all samples; WorstScore the mean over prompts of the lowest
	// sample's score.
	MeanScore  float64 `json:"mean_score"`
	WorstScore float64 `json:"worst_score"`
	// Spread is the mean over prompts of the population standard deviation
	// of the samples' scores: 0 when every sample of a prompt scores alike.
	Spread float64 `json:"spread"`
}

// ComputePassStats computes PassStats per model over the overall rows
// (Dimension "") of samples, sorted by model. Samples without checks say
// nothing about passing and are left out.
func ComputePassStats(samples []ringside.CheckScore) []PassStats {
	return passStats(samples, func(s *ringside.CheckScore) bool { return s.Dimension == "" })
}

// Slicings PassStatsBy knows.
var PassSlicings = []string{"category", "kind", "tag", "dimension"}

// PassStatsBy computes PassStats per slice value and model, for slicing by
// category, kind, tag (a sample counts in every tag of its prompt) or
// dimension (each dimension's checks alone). Samples with an empty slice
// value are left out.
func PassStatsBy(samples []ringside.CheckScore, by string) (map[string][]PassStats, error) {
	groups := map[string][]ringside.CheckScore{}
	for _, s := range samples {
		var keys []string
		switch by {
		case "category":
			keys = []string{s.Category}
		case "kind":
			keys = []string{s.Kind}
		case "tag":
			keys = s.Tags
		case "dimension":
			if s.Dimension != "" {
				// Rename to the overall row of its own group.
				keys, s.Dimension = []string{s.Dimension}, ""
			}
		default:
			return nil, ringside.FieldError("by", "%q is not one of category, kind, tag, dimension", by)
		}
		if by != "dimension" && s.Dimension != "" {
			continue
		}
		for _, k := range keys {
			if k != "" {
				groups[k] = append(groups[k], s)
			}
		}
	}
	out := make(map[string][]PassStats, len(groups))
	for k, g := range groups {
		out[k] = ComputePassStats(g)
	}
	return out, nil
}

func passStats(samples []ringside.CheckScore, keep func(*ringside.CheckScore) bool) []PassStats {
	// model → prompt → the samples' scores and passes.
	type prompt struct {
		scores []float64
		passed int
	}
	byModel := map[string]map[string]*prompt{}
	for i := range samples {
		s := &samples[i]
		if !keep(s) || s.Checks == 0 {
			continue
		}
		ps := byModel[s.Model]
		if ps == nil {
			ps = map[string]*prompt{}
			byModel[s.Model] = ps
		}
		p := ps[s.PromptID]
		if p == nil {
			p = &prompt{}
			ps[s.PromptID] = p
		}
		p.scores = append(p.scores, s.Score())
		if s.AllPassed() {
			p.passed++
		}
	}
	out := make([]PassStats, 0, len(byModel))
	for model, ps := range byModel {
		st := PassStats{Model: model, Prompts: len(ps)}
		var passed, allK, atK int
		var sum, worst, spread float64
		for _, p := range ps {
			n := len(p.scores)
			if st.K != 0 && n != st.K {
				st.UnevenK = true
			}
			st.K = max(st.K, n)
			st.Samples += n
			passed += p.passed
			if p.passed == n {
				allK++
			}
			if p.passed > 0 {
				atK++
			}
			lo, mean := math.Inf(1), 0.0
			for _, x := range p.scores {
				sum += x
				mean += x / float64(n)
				lo = math.Min(lo, x)
			}
			worst += lo
			var ss float64
			for _, x := range p.scores {
				ss += (x - mean) * (x - mean)
			}
			spread += math.Sqrt(ss / float64(n))
		}
		np := float64(st.Prompts)
		st.PassRate = float64(passed) / float64(st.Samples)
		st.PassAllK, st.PassAtK = float64(allK)/np, float64(atK)/np
		st.MeanScore = sum / float64(st.Samples)
		st.WorstScore, st.Spread = worst/np, spread/np
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Model < out[j].Model })
	return out
}
