package store

import (
	"context"
	"path/filepath"
	"testing"
)

// BenchmarkStoredPairCandidates is the query behind every `next` of stored
// judging under adaptive pairing, beside StoredCandidates's, on a run of
// 100,000 battles of one pair of which a third were voted on.
func BenchmarkStoredPairCandidates(b *testing.B) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(b.TempDir(), "ringside.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	fillRun(b, db, 100000)
	b.Run("pair", func(b *testing.B) {
		for range b.N {
			cands, err := db.StoredPairCandidates(ctx, "fresh", nil, "m2", "m1", 8)
			if err != nil || len(cands) != 8 {
				b.Fatal(len(cands), err)
			}
		}
	})
	b.Run("any", func(b *testing.B) {
		for range b.N {
			cands, err := db.StoredCandidates(ctx, "fresh", nil, 32)
			if err != nil || len(cands) != 32 {
				b.Fatal(len(cands), err)
			}
		}
	})
	b.Run("pairs", func(b *testing.B) {
		for range b.N {
			if _, err := db.StoredPairs(ctx, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}
