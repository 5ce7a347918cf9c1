-- A judge may correct their last vote until they take the next battle
-- (docs/protocol.md, "Corrections"). The correction replaces the row in
-- votes under a new id, so everything that counts votes (boards, exports,
-- agreement) counts only the latest; the vote it replaced is kept here,
-- whole, with the id of the vote that superseded it, so the record shows
-- every change. Replacing the row moves rank_changes (migration 008), so a
-- board kept in memory reads everything again.
CREATE TABLE superseded_votes (
    id            TEXT PRIMARY KEY,
    battle_id     TEXT NOT NULL REFERENCES battles (id) ON DELETE CASCADE,
    judge_id      TEXT NOT NULL REFERENCES judges (id),
    winner        TEXT NOT NULL,
    dimensions    TEXT NOT NULL DEFAULT '{}',
    reason        TEXT NOT NULL DEFAULT '',
    duration_ms   INTEGER NOT NULL DEFAULT 0,
    created_at    TEXT NOT NULL,
    superseded_by TEXT NOT NULL,
    superseded_at TEXT NOT NULL
) STRICT;
CREATE INDEX superseded_votes_battle ON superseded_votes (battle_id, judge_id);
