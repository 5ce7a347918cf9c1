// Package rank turns judged battles into leaderboards: a Bradley-Terry fit by
// exact maximum likelihood, bootstrap or sandwich intervals, Rank(UB), slices,
// online Elo, per-model latency and cost summaries, and comparisons between
// two models. It follows the public Chatbot Arena rating conventions: outcomes 1 / 0 / ½,
// P(a beats b) = 1/(1+10^((R_b−R_a)/400)), mean 1000 over the rated models or
// an anchor, 2.5th and 97.5th bootstrap percentiles (numpy's default type-7
// interpolation) around the full-data fit.
//
// # Sufficient statistics
//
// Battles are first collapsed to counts per unordered pair of models and
// outcome (first won, second won, tie of either kind). Bradley-Terry has no
// side advantage, so which model sat on side a does not enter the
// likelihood; collapsing ordered cells into unordered ones is exact, and so
// is the bootstrap over them (a multinomial aggregated over cells is the
// multinomial of the aggregate). A fit and a bootstrap round therefore cost
// a function of models and pairs, never of battles.
//
// # The fit
//
// Newton's method on the log-likelihood, with a backtracking line search
// while far from the optimum and full steps once steps are small (the
// quadratic phase), until the step is below 1e-12 (in natural-log units,
// 2e-10 rating points) or has reached the floor set by rounding. The Hessian is the
// weighted Laplacian of the comparison graph; one model is grounded to fix
// the free shift and the system is solved by Cholesky. This is exact, unlike
// reference implementations that stop on an iteration cap or a loose
// tolerance.
//
// # Models without a finite rating
//
// Draw the directed graph with an edge i→j when i won or tied against j at
// least once. The maximum-likelihood estimate is finite exactly for the models
// of a strongly connected component of this graph, relative to each other. The
// rated group is the largest strongly connected component with at least two
// models (ties broken by battles, then by first appearance). It is fitted on the
// battles among its own members only, which is exactly the limit of the full
// likelihood as the other groups move off to ±∞: a battle between the group
// and a model that always beat it contributes log 1 = 0 in that limit.
// Every other model is flagged, never given a number: undefeated, winless,
// above (it and the rated group are linked only by its wins), below (only by
// its losses), disconnected (no chain of battles to the rated group), or
// unresolved (no two models are linked by wins both ways).
//
// # Bootstrap
//
// Round r draws the counts of all cells from a multinomial of N battles
// (exactly, by way of independent Poisson draws topped up to N; see
// multinomialSampler) using a random stream seeded from (Seed, r) alone, so
// results do not depend on how many goroutines share the rounds. Each round
// starts from the full-data fit and iterates with the full-data Hessian,
// factored once (the chord method: a gradient pass and two triangular solves
// per step), to a step below 1e-10 (2e-8 rating points), falling back to Newton's method when
// that does not contract. A resample can only remove edges from the
// graph, so flagged models stay flagged; but a rated model may lose its
// finite estimate in a round (a model with few battles may win them all).
// That round's value for it is then what the likelihood says: +∞ when it
// beat (or is above) the round's rated group, −∞ when below, and missing
// when undetermined; the remaining models are placed so that the anchor
// keeps its rating, or, without an anchor, so that their mean equals the mean
// of their full-data ratings (which is 1000 when every model is finite).
// Percentiles are taken over all rounds with an infinite value ordered like
// any other, so an interval is open-ended (reported as unbounded) only when
// more than 2.5 % of the rounds put the model at infinity. Missing values are
// left out. Each rated model reports how many of its rounds were not finite.
package rank
