// Package pairing decides which two models a human judge is shown next, and
// how many more votes a decision needs.
//
// # The rule
//
// Chatbot Arena's active sampling (Chiang et al. 2024, section 5) deals a
// pair with probability proportional to how much one more battle of that
// pair would shrink the confidence interval of its win rate,
// √(Σ/n) − √(Σ/(n+1)). Two things about it waste votes. It treats every pair
// alike, so that the order of the bottom of the board, which nobody asked
// about, gets as much care as the top; and it looks at each pair's own
// count only, although a vote on (a, c) also narrows a's rating and so
// every interval a takes part in.
//
// Adaptive dealing here asks what the team decides: that the top focus_top
// models are separated, each one's interval wholly above the next one's
// (focus_top 0: every neighbour in the ranking). The Tracker keeps the
// Bradley-Terry fit of the votes so far and its covariance Σ (the inverse
// Fisher information, with a weak prior so that it exists from the first
// vote; when votes tie, the sandwich that allows for a tie's being sure,
// as the board's bootstrap does). For each boundary k of the decision, between the k-th model u and
// the model v below it whose interval reaches highest, the vote that one
// more battle of (a, b) would add is a rank-one update of the information,
// p(1−p)·(e_a−e_b)(e_a−e_b)ᵀ, and shrinks the variance of a centred rating
// c by p(1−p)(cᵀΣd)²/(1+p(1−p)dᵀΣd): exactly, for every model at once,
// through the whole comparison graph. A pair's score is the shrinkage of the
// interval half-widths of u and v summed over the boundaries, each weighted
// by how far that boundary is from being separated (a boundary already
// clear by a wide margin weighs little). Pairs are dealt in proportion to
// their score, not greedily: a thousand judges asking at once must not all
// get the same pair, and every deal must have a known probability.
//
// # Guarantees
//
// Every pair keeps a floor: a share Floor of the probability is spread
// evenly over all pairs, so a misestimated fit is corrected by the votes it
// did not ask for, and every deal's probability is at least Floor/pairs. A
// model with fewer than Placement battles (a new model, or one just added)
// is placed first: half of the rest of the probability goes to its pairs,
// evenly over its opponents, until it has them. The probability each deal
// was drawn with is returned (Choice.Propensity) and stored with the deal,
// so that a leaderboard can weight each vote by its inverse (WeightedFit):
// an estimate of what uniform dealing would have given, even if the model
// is wrong about the judges.
//
// # The plan
//
// MakePlan answers how many more votes the decision needs by simulation.
// Each simulated future draws true ratings from the fit's normal
// approximation (before any vote, from a prior), continues the votes so
// far under the same pairing with judges voting by Bradley-Terry with those
// ratings, and looks at the board every Check votes, with the Monte Carlo
// error of the board's percentile bootstrap on its intervals' ends (a
// board of 200 rounds crosses the line a look or two early now and then).
// The simulated judges tie as often as the real ones did. The plan is the
// most likely number of votes past the current count (where the futures
// are densest in ratio terms), their median, and the shortest 80 %
// interval of them in ratio terms.
//
// For a quantity linear in the ratings, drawing the truth and continuing
// is exactly calibrated, not doubly uncertain: the fit's error and the
// draw's spread together are the spread of the future fit. The votes to
// separation are far from linear: they grow like 1/gap² and wait for the
// narrowest of several boundaries, so a draw that puts two models close
// costs many times the votes, and the futures have a long right tail. The
// central interval (10th to 90th percentiles) is pushed up by that tail
// and held the actual number in only about half of the benchmark's runs;
// the shortest interval in ratio terms (the highest-density interval of
// the log of the votes) holds as many futures where they are densest, and
// holds the actual number in 72 to 88 % of runs on three sets of ratings
// under both pairings (docs/performance.md). The most likely number stays
// 1.2 to 2.2 times the actual number early on (the median 2 to 4 times),
// when one of several alike gaps looks narrow by chance: nothing in the
// votes tells that from one narrow gap.
// Fresh futures (PlanOptions.Fresh: from no votes, drawn again while their
// board is separated by the current count) are wider still and lose what
// the votes so far say about how close the board is. Continuing is the
// default.
//
// # State
//
// A Tracker holds per-pair counts, updated in O(1) as votes commit, and
// refits from those counts (a few Newton steps from the previous fit, O(m³)
// for m models, never a pass over the votes) when enough votes have come in
// since the last fit.
package pairing
