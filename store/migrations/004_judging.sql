-- Live human judging. A deal records that a battle was shown to a judge: a
-- vote on a battle never dealt to its judge is refused, a reconnecting judge
-- resumes its open deal, and stored battles are dealt least-dealt first.

CREATE TABLE deals (
    battle_id TEXT NOT NULL REFERENCES battles (id) ON DELETE CASCADE,
    judge_id  TEXT NOT NULL REFERENCES judges (id),
    -- open: being shown; voted; skipped by the judge; void: a side failed.
    state     TEXT NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'voted', 'skipped', 'void')),
    dealt_at  TEXT NOT NULL,
    closed_at TEXT,
    PRIMARY KEY (battle_id, judge_id)
) STRICT;

-- A judge's open deal (resume) and history.
CREATE INDEX deals_judge ON deals (judge_id, state, dealt_at);

-- Anonymous judges (open judging) hold a cookie instead of an invite; the
-- admin's list of invites leaves them out.
ALTER TABLE judges ADD COLUMN anonymous INTEGER NOT NULL DEFAULT 0;
