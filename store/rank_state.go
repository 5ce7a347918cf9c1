package store

import "context"

// RankState says whether the votes a leaderboard was read from are still
// as they were: Votes and LastVote count them and give the largest row id,
// and Changes moves whenever a stored vote is changed or deleted, or what
// it counts for changes (its battle flagged as an identity leak, its
// judge renamed, its weight changed; migration 008). Votes only ever
// appended leave Changes alone, so a reader that kept what it read up to
// LastVote need only read the votes after it. Imports counts the battle
// files imported, whose records may carry measurements.
// The Stamp's generations and checks say whether the measurements and the
// pass statistics beside the ratings changed.
type RankState struct {
	Stamp
	Changes, Imports int64
}

// RankState reads the state in one snapshot. Read it before the votes: a
// change made between the two is then seen at the next read.
func (db *DB) RankState(ctx context.Context) (RankState, error) {
	var s RankState
	err := db.read.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM votes), (SELECT coalesce(max(rowid), 0) FROM votes),
		(SELECT count(*) FROM generations), (SELECT coalesce(max(rowid), 0) FROM generations),
		(SELECT count(*) FROM check_results),
		(SELECT n FROM rank_changes), (SELECT count(*) FROM battle_imports)`).
		Scan(&s.Votes, &s.LastVote, &s.Generations, &s.LastGeneration, &s.Checks, &s.Changes, &s.Imports)
	return s, err
}
