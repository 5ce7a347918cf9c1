package pairing

import (
	"math"
	"testing"
)

// TestShortest: the interval holds 80 % of the futures and is the
// narrowest such in ratio terms; it sits where a right-skewed set of
// futures is densest (below the central interval), and it is unbounded
// only when more than a fifth never decided.
func TestShortest(t *testing.T) {
	skewed := []int{100, 110, 120, 130, 140, 150, 160, 170, 4000, 90000}
	if lo, hi := shortest(skewed, 0.8); lo != 100 || hi != 170 {
		t.Errorf("skewed: [%d, %d], want [100, 170]", lo, hi)
	}
	spread := []int{10, 1000, 1100, 1200, 1300, 1400, 1500, 1600, 1700, 5000}
	if lo, hi := shortest(spread, 0.8); lo != 1000 || hi != 1700 {
		t.Errorf("spread: [%d, %d], want [1000, 1700]", lo, hi)
	}
	never := math.MaxInt
	some := []int{100, 200, 300, 400, 500, 600, 700, 800, never, never}
	if lo, hi := shortest(some, 0.8); lo != 100 || hi != 800 {
		t.Errorf("a fifth never decided: [%d, %d], want [100, 800]", lo, hi)
	}
	many := []int{100, 200, 300, 400, 500, 600, 700, never, never, never}
	if lo, hi := shortest(many, 0.8); lo != 300 || hi != -1 {
		t.Errorf("three tenths never decided: [%d, %d], want [300, unbounded]", lo, hi)
	}
}

// TestLikeliest: the middle, in ratio terms, of the densest half of the
// futures, below the median when the tail is long; unbounded when more
// than half never decided.
func TestLikeliest(t *testing.T) {
	skewed := []int{100, 110, 120, 130, 400, 1000, 3000, 9000, 20000, 90000}
	if got := likeliest(skewed); got != 200 { // the densest half is 100 to 400
		t.Errorf("skewed: %d, want 200 (√(100·400))", got)
	}
	never := math.MaxInt
	if got := likeliest([]int{100, 200, 300, 400, never, never, never, never, never, never}); got != -1 {
		t.Errorf("most never decided: %d, want -1", got)
	}
}
