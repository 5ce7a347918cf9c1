// Package trust measures the judges: how often they agree with each other
// (per judge against the others' majority, Cohen's κ per pair,
// Krippendorff's α overall), whether they favour a side, how fast they vote
// against how long the outputs take to read, how they do on gold battles,
// and whether their votes are improbable under the board the other judges
// make. A judge for whom one of these goes beyond its threshold is flagged
// with the reason, and a flagged judge's votes are left out of boards
// unless an admin decides otherwise (Report.Excluded).
package trust

import (
	"fmt"
	"sort"

	"github.com/ringside-eval/ringside"
)

// Vote is one vote as the report reads it (store.TrustVote).
type Vote struct {
	Battle         string
	ModelA, ModelB string
	Judge          string // label, "human:ana"
	Winner         ringside.Winner
	// DurationMs is the time from the end of the outputs to the vote, 0
	// when unknown; Chars the length of both outputs, -1 when unknown.
	DurationMs int64
	Chars      int
	// Gold is the verdict a gold battle must get; "" for other battles.
	Gold string
}

// Thresholds are when a judge is flagged. The defaults (Defaults) are
// chosen so that an honest judge is flagged by chance about once in a
// thousand tests, and each is a config setting ([trust]).
type Thresholds struct {
	// MinGoldAccuracy: flagged when the 97.5th percentile of the gold
	// accuracy's Beta(1,1) posterior is below it.
	MinGoldAccuracy float64
	// ImprobableP: flagged when, at a checkpoint, the Fisher combination of
	// the judge's per-vote p-values is below ImprobableP divided by the
	// number of checkpoints (Bonferroni over the looks).
	ImprobableP float64
	// PositionP and PositionMinVotes: flagged when the share of a among at
	// least PositionMinVotes a/b votes has a two-sided binomial p-value
	// below PositionP.
	PositionP        float64
	PositionMinVotes int
	// ReadSecondsPer1000: the time reading 1,000 characters takes at
	// least; flagged when the median of the judge's vote times over reading
	// times is below 1, over at least MinTimedVotes timed votes.
	ReadSecondsPer1000 float64
	MinTimedVotes      int
	// Seed draws the checkpoints of the improbable-votes test.
	Seed uint64
}

// Defaults are the thresholds a team can defend: gold accuracy surely below
// 60 %; improbable votes at p < 0.001 (Bonferroni over the looks); position
// bias at p < 0.001 over 30 votes; reading at 2 s per 1,000 characters
// (600 words a minute, faster than skimming with understanding) over 10
// timed votes.
var Defaults = Thresholds{
	MinGoldAccuracy: 0.6, ImprobableP: 0.001, PositionP: 0.001, PositionMinVotes: 30,
	ReadSecondsPer1000: 2, MinTimedVotes: 10,
}

// Gold is a judge's record on gold battles: accuracy and its 95 % interval
// under a Beta(1,1) prior.
type Gold struct {
	Battles  int     `json:"battles"`
	Correct  int     `json:"correct"`
	Accuracy float64 `json:"accuracy"`
	CILow    float64 `json:"ci_low"`
	CIHigh   float64 `json:"ci_high"`
}

// Judge is one judge's line of the report.
type Judge struct {
	Judge string `json:"judge"`
	Votes int    `json:"votes"`
	// Shared counts its battles also voted on by another judge;
	// MajorityAgreement the share of those (with a majority among the
	// others) where it voted with the others' majority; nil when none.
	Shared            int      `json:"shared"`
	MajorityAgreement *float64 `json:"majority_agreement"`
	// LeftShare is the share of a among its a/b votes, LeftP the two-sided
	// binomial p-value of that share against ½.
	ABVotes   int      `json:"ab_votes"`
	LeftShare *float64 `json:"left_share"`
	LeftP     *float64 `json:"left_p"`
	// MedianVoteSeconds is the median time from the end of the outputs to
	// the vote (nil: not timed); MedianReadRatio the median of each vote's
	// time over the time its outputs take to read.
	MedianVoteSeconds *float64 `json:"median_vote_seconds"`
	MedianReadRatio   *float64 `json:"median_read_ratio,omitempty"`
	Gold              *Gold    `json:"gold"`
	// Improbable is the improbable-votes test: the smallest combined
	// p-value at a checkpoint and the votes at which the judge was flagged.
	Improbable *Improbable `json:"improbable,omitempty"`
	Flagged    bool        `json:"flagged"`
	Reasons    []string    `json:"reasons"`
	// Excluded says whether boards leave its votes out: flagged, unless an
	// admin decided (Override: "excluded" or "included").
	Excluded bool   `json:"excluded"`
	Override string `json:"override,omitempty"`
}

// Report is the judges' report (docs/api.md, GET /api/admin/judges).
type Report struct {
	Judges []Judge  `json:"judges"`
	Pairs  []Pair   `json:"pairs"`
	Alpha  *float64 `json:"alpha"`
	// Battles counts the battles with at least two votes that α is over.
	Battles    int        `json:"alpha_battles"`
	Thresholds Thresholds `json:"thresholds"`
}

// Analyse makes the report. overrides holds the admins' choices by judge
// label (true: excluded, false: kept even when flagged).
func Analyse(votes []Vote, th Thresholds, overrides map[string]bool) (*Report, error) {
	byBattle := map[string]battleVotes{}
	byJudge := map[string][]Vote{}
	for _, v := range votes {
		byJudge[v.Judge] = append(byJudge[v.Judge], v)
		if v.Gold != "" {
			continue // gold battles grade judges; they are not shared evidence
		}
		bv := byBattle[v.Battle]
		if bv == nil {
			bv = battleVotes{}
			byBattle[v.Battle] = bv
		}
		bv[v.Judge] = label(v.Winner)
	}
	r := &Report{Judges: []Judge{}, Pairs: pairs(byBattle), Alpha: alpha(byBattle), Thresholds: th}
	for _, bv := range byBattle {
		if len(bv) >= 2 {
			r.Battles++
		}
	}
	if r.Pairs == nil {
		r.Pairs = []Pair{}
	}
	names := make([]string, 0, len(byJudge))
	for j := range byJudge {
		names = append(names, j)
	}
	sort.Strings(names)
	imp, err := improbable(votes, names, th)
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		j := judgeLine(name, byJudge[name], byBattle, th)
		if t := imp[name]; t != nil {
			j.Improbable = t
			if t.FlaggedAt > 0 {
				j.Reasons = append(j.Reasons, fmt.Sprintf("improbable votes: under the other judges' board, combined p = %.2g at %d votes", t.P, t.FlaggedAt))
			}
		}
		j.Flagged = len(j.Reasons) > 0
		j.Excluded = j.Flagged
		if ex, ok := overrides[name]; ok {
			j.Excluded, j.Override = ex, map[bool]string{true: "excluded", false: "included"}[ex]
		}
		r.Judges = append(r.Judges, j)
	}
	return r, nil
}

// Excluded lists the judges whose votes boards leave out.
func (r *Report) Excluded() []string {
	var out []string
	for _, j := range r.Judges {
		if j.Excluded {
			out = append(out, j.Judge)
		}
	}
	return out
}

// judgeLine computes one judge's figures and the flags they raise.
func judgeLine(name string, vs []Vote, byBattle map[string]battleVotes, th Thresholds) Judge {
	j := Judge{Judge: name, Votes: len(vs), Reasons: []string{}}
	shared, compared, agreed := majorityAgreement(byBattle, name, vs)
	j.Shared = shared
	if compared > 0 {
		j.MajorityAgreement = ptr(float64(agreed) / float64(compared))
	}
	var left int
	var secs, ratios []float64
	g := Gold{}
	for _, v := range vs {
		switch v.Winner {
		case ringside.WinnerA:
			left++
			j.ABVotes++
		case ringside.WinnerB:
			j.ABVotes++
		}
		if v.DurationMs > 0 {
			secs = append(secs, float64(v.DurationMs)/1000)
			if v.Chars > 0 && th.ReadSecondsPer1000 > 0 {
				ratios = append(ratios, float64(v.DurationMs)/1000/(float64(v.Chars)/1000*th.ReadSecondsPer1000))
			}
		}
		if v.Gold != "" {
			g.Battles++
			if goldCorrect(v.Gold, v.Winner) {
				g.Correct++
			}
		}
	}
	if j.ABVotes > 0 {
		j.LeftShare = ptr(float64(left) / float64(j.ABVotes))
		j.LeftP = ptr(binomTwoSided(left, j.ABVotes))
		if j.ABVotes >= th.PositionMinVotes && *j.LeftP < th.PositionP {
			j.Reasons = append(j.Reasons, fmt.Sprintf("position bias: a in %.0f%% of %d a/b votes (p = %.2g)", 100**j.LeftShare, j.ABVotes, *j.LeftP))
		}
	}
	if len(secs) > 0 {
		j.MedianVoteSeconds = ptr(median(secs))
	}
	if len(ratios) > 0 {
		j.MedianReadRatio = ptr(median(ratios))
		if len(ratios) >= th.MinTimedVotes && *j.MedianReadRatio < 1 {
			j.Reasons = append(j.Reasons, fmt.Sprintf("too fast: median vote %.1f s, %.0f%% of the time reading the outputs takes at %g s per 1,000 characters",
				*j.MedianVoteSeconds, 100**j.MedianReadRatio, th.ReadSecondsPer1000))
		}
	}
	if g.Battles > 0 {
		g.Accuracy = float64(g.Correct) / float64(g.Battles)
		g.CILow, g.CIHigh = betaInterval(float64(1+g.Correct), float64(1+g.Battles-g.Correct))
		j.Gold = &g
		if g.CIHigh < th.MinGoldAccuracy {
			j.Reasons = append(j.Reasons, fmt.Sprintf("gold: %d of %d right; accuracy at most %.0f%% (95%%), below %.0f%%",
				g.Correct, g.Battles, 100*g.CIHigh, 100*th.MinGoldAccuracy))
		}
	}
	return j
}

// goldCorrect reports whether a vote gives a gold battle its verdict; a tie
// of either kind is a tie.
func goldCorrect(expected string, w ringside.Winner) bool {
	switch expected {
	case "a", "b":
		return string(w) == expected
	case "tie":
		return w == ringside.WinnerTie || w == ringside.WinnerBothBad
	case "not_a":
		return w != ringside.WinnerA
	case "not_b":
		return w != ringside.WinnerB
	}
	return false
}

func ptr[T any](v T) *T { return &v }
