// Package arena runs candidate models head-to-head: it decides which pairs
// of models meet on which prompt and sample, starts the two sides of every
// battle at the same moment on byte-identical input, bounds the requests in
// flight, backs off a model that keeps failing, and records every
// generation's output, timing, tokens, cost and error kind.
//
// It imports only the domain: models arrive as ringside.Streamers and the
// database as the small Store interface, so the same code drives the
// headless `ringside run` and, through StartTogether and SamplePairs, the
// live battles of the web server.
//
// # Rounds
//
// A run is models × prompts × samples. For each prompt and sample, Schedule
// draws the pairs that meet (all pairs, or a weighted sample of them) and
// which model of each pair is side a; both are functions of the run's seed,
// the prompt id and the sample number alone, so a rerun, or a run that gains
// prompts or samples, draws the same pairs for what it already had. The
// pairs of one prompt and sample form a round. Every model of a round is
// generated once and that generation serves every battle of the round that
// needs it; so that each of those battles still has its two sides started
// together, all the generations a round needs start at one barrier. A round
// therefore needs as many request slots at once as it has models, and the
// Runner raises a global limit below that to it (Plan says so).
//
// # Failures
//
// A failed generation is a result, not a crash: it is stored with its error
// kind, and the battles it completes are stored too, so that error rates
// show per model and per pairing. Such a battle has nothing to judge: the
// judging side takes only battles whose two generations have no error kind
// (a failure is a fact about the model, recorded in its error rate, not a
// lost vote). A rerun does not retry failures (they are measurements); the
// caller may delete them first to retry. A
// generation cut short because the run itself was cancelled is not a result
// and is not stored: the next run produces it.
//
// # Resuming
//
// Each generation is stored, in one transaction, with the battles it
// completes, and the store refuses a second generation for the same (run,
// prompt, model, sample) or a second battle for the same unordered pair. A
// run killed at any point therefore left complete generations and battles
// only, and the next Prepare schedules exactly what is missing; battles
// whose two generations exist but which are not stored (another process
// raced this one) are stored without generating anything.
package arena
