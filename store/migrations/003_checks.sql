-- Automatic judges' working: the rule judge's result for every check of every
-- generation, and every LLM judging of a battle with each call it made.

-- One row per (generation, rules judge, check). Judges differ in their
-- default checks, so the judge is part of the key. Rerunning the judge
-- replaces a generation's rows.
CREATE TABLE check_results (
    generation_id TEXT NOT NULL REFERENCES generations (id) ON DELETE CASCADE,
    judge_id      TEXT NOT NULL REFERENCES judges (id),
    -- Where the check was written: the prompt's checks or the judge's
    -- defaults, and its index there.
    source        TEXT NOT NULL CHECK (source IN ('prompt', 'default')),
    idx           INTEGER NOT NULL CHECK (idx >= 0),
    type          TEXT NOT NULL,
    dimension     TEXT NOT NULL DEFAULT '',
    weight        REAL NOT NULL CHECK (weight > 0),
    pass          INTEGER NOT NULL CHECK (pass IN (0, 1)),
    detail        TEXT NOT NULL DEFAULT '',
    checked_at    TEXT NOT NULL,
    PRIMARY KEY (generation_id, judge_id, source, idx)
) STRICT;

-- Pass rates read one judge's results across many generations.
CREATE INDEX check_results_judge ON check_results (judge_id, generation_id);

-- One row each time an LLM judge judged a battle. A success points at the
-- vote it wrote; a failure (unreadable verdicts, a failed call) has no vote
-- and is tried again on the next run, so a battle can have several rows.
CREATE TABLE llm_judgments (
    id         TEXT PRIMARY KEY,
    battle_id  TEXT NOT NULL REFERENCES battles (id) ON DELETE CASCADE,
    judge_id   TEXT NOT NULL REFERENCES judges (id),
    vote_id    TEXT REFERENCES votes (id) ON DELETE SET NULL,
    status     TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
    winner     TEXT NOT NULL DEFAULT '' CHECK (winner IN ('', 'a', 'b', 'tie', 'bothbad')),
    -- What the vote counts for: the judge's strong_weight when both orders
    -- gave the same strong verdict, else 1.
    weight     INTEGER NOT NULL DEFAULT 1 CHECK (weight >= 0),
    error      TEXT NOT NULL DEFAULT '',
    tokens_in  INTEGER NOT NULL DEFAULT 0,
    tokens_out INTEGER NOT NULL DEFAULT 0,
    cost_usd   REAL NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL
) STRICT;

CREATE INDEX llm_judgments_battle ON llm_judgments (judge_id, battle_id);

-- Every call to the judge model: the order shown, the raw answer, the label
-- read from it ('' when none could be), the rationale and the cost.
CREATE TABLE llm_calls (
    judgment_id TEXT NOT NULL REFERENCES llm_judgments (id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL CHECK (seq >= 0),
    -- 'ab': side a shown as A; 'ba': side b shown as A.
    position    TEXT NOT NULL CHECK (position IN ('ab', 'ba')),
    attempt     INTEGER NOT NULL CHECK (attempt >= 1),
    raw         TEXT NOT NULL DEFAULT '',
    label       TEXT NOT NULL DEFAULT '' CHECK (label IN ('', 'A>>B', 'A>B', 'A=B', 'B>A', 'B>>A')),
    rationale   TEXT NOT NULL DEFAULT '',
    tokens_in   INTEGER NOT NULL DEFAULT 0,
    tokens_out  INTEGER NOT NULL DEFAULT 0,
    cost_usd    REAL NOT NULL DEFAULT 0,
    latency_ms  REAL NOT NULL DEFAULT 0,
    error       TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (judgment_id, seq)
) STRICT;
