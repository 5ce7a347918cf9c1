-- Gold battles: stored battles an admin marked with the verdict they must
-- get ('a', 'b', 'tie', or 'not_a' / 'not_b': anything but that side). Votes
-- on them grade their judge and never count in a board.
CREATE TABLE gold_battles (
    battle_id  TEXT PRIMARY KEY REFERENCES battles (id) ON DELETE CASCADE,
    expected   TEXT NOT NULL CHECK (expected IN ('a', 'b', 'tie', 'not_a', 'not_b')),
    note       TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL
) STRICT;

-- Marking or unmarking a battle gold changes what its votes count for.
CREATE TRIGGER rank_changes_gold_insert AFTER INSERT ON gold_battles
BEGIN
    UPDATE rank_changes SET n = n + 1;
END;
CREATE TRIGGER rank_changes_gold_delete AFTER DELETE ON gold_battles
BEGIN
    UPDATE rank_changes SET n = n + 1;
END;

-- An admin's choice about a judge's votes, over the flags: excluded = 1
-- leaves them out of boards, 0 keeps them even when the judge is flagged.
-- No row: the flags decide.
CREATE TABLE judge_exclusions (
    judge_id   TEXT PRIMARY KEY REFERENCES judges (id) ON DELETE CASCADE,
    excluded   INTEGER NOT NULL CHECK (excluded IN (0, 1)),
    reason     TEXT NOT NULL DEFAULT '',
    updated_at TEXT NOT NULL
) STRICT;

-- Every such choice, kept: who is believed is a decision to account for.
CREATE TABLE judge_exclusion_log (
    judge_id   TEXT NOT NULL REFERENCES judges (id) ON DELETE CASCADE,
    excluded   INTEGER,  -- NULL: the choice was withdrawn, the flags decide again
    reason     TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL
) STRICT;
