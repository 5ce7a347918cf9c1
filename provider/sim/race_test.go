//go:build race

package sim_test

// raceEnabled shrinks the sample sizes of the statistical tests: the race
// detector slows the simulator's text analysis some fifteenfold, and those
// tests exercise no concurrency.
const raceEnabled = true
