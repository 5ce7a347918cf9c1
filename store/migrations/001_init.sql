-- The first schema: everything in the vocabulary. Text ids are UUIDv7, which
-- sort by time, so inserts append to the end of each primary-key b-tree.

CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) STRICT;

CREATE TABLE prompts (
    id         TEXT PRIMARY KEY,
    prompt_set TEXT NOT NULL,
    messages   TEXT NOT NULL CHECK (json_valid(messages)),
    category   TEXT NOT NULL DEFAULT '',
    kind       TEXT NOT NULL DEFAULT 'typical' CHECK (kind IN ('typical', 'edge', 'adversarial')),
    tags       TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(tags)),
    reference  TEXT NOT NULL DEFAULT '',
    checks     TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(checks)),
    -- content_hash lets a re-import tell "same prompt" from "edited prompt"
    -- without comparing every column.
    content_hash TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
) STRICT;

-- Listing a set is the common read of prompts.
CREATE INDEX prompts_set ON prompts (prompt_set, id);

CREATE TABLE runs (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    models      TEXT NOT NULL CHECK (json_valid(models)),
    prompt_sets TEXT NOT NULL CHECK (json_valid(prompt_sets)),
    samples     INTEGER NOT NULL CHECK (samples >= 1),
    created_at  TEXT NOT NULL
) STRICT;

CREATE TABLE generations (
    id               TEXT PRIMARY KEY,
    run_id           TEXT REFERENCES runs (id) ON DELETE CASCADE,
    prompt_id        TEXT NOT NULL,
    model            TEXT NOT NULL,
    sample           INTEGER NOT NULL CHECK (sample >= 0),
    output           TEXT NOT NULL DEFAULT '',
    ttft_ms          REAL NOT NULL DEFAULT 0,
    latency_ms       REAL NOT NULL DEFAULT 0,
    tokens_in        INTEGER NOT NULL DEFAULT 0,
    tokens_out       INTEGER NOT NULL DEFAULT 0,
    tokens_estimated INTEGER NOT NULL DEFAULT 0,
    cost_usd         REAL NOT NULL DEFAULT 0,
    finish_reason    TEXT NOT NULL DEFAULT '',
    error_kind       TEXT NOT NULL DEFAULT '' CHECK (error_kind IN ('', 'timeout', 'rate_limit', 'server_error', 'bad_response', 'cancelled')),
    error            TEXT NOT NULL DEFAULT '',
    created_at       TEXT NOT NULL
) STRICT;

-- A run produces each (prompt, model, sample) once; this is what makes a
-- rerun resumable without duplicates. Live generations have no run.
CREATE UNIQUE INDEX generations_once ON generations (run_id, prompt_id, model, sample) WHERE run_id IS NOT NULL;
-- Per-model summaries (latency, cost, error rate) scan by model.
CREATE INDEX generations_model ON generations (model);

CREATE TABLE battles (
    id            TEXT PRIMARY KEY,
    run_id        TEXT REFERENCES runs (id) ON DELETE CASCADE,
    source        TEXT NOT NULL CHECK (source IN ('run', 'live', 'import')),
    -- Not a foreign key: imported battles name questions ringside never saw.
    prompt_id     TEXT NOT NULL DEFAULT '',
    sample        INTEGER NOT NULL DEFAULT 0,
    model_a       TEXT NOT NULL,
    model_b       TEXT NOT NULL,
    generation_a  TEXT REFERENCES generations (id),
    generation_b  TEXT REFERENCES generations (id),
    category      TEXT NOT NULL DEFAULT '',
    kind          TEXT NOT NULL DEFAULT '',
    tags          TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(tags)),
    identity_leak INTEGER NOT NULL DEFAULT 0,
    extra         TEXT CHECK (extra IS NULL OR json_valid(extra)),
    created_at    TEXT NOT NULL,
    CHECK (model_a <> model_b)
) STRICT;

-- One battle per unordered pair, prompt and sample in a run, whichever side
-- each model was drawn on: a resumed run must not schedule it again.
CREATE UNIQUE INDEX battles_once ON battles (run_id, prompt_id, sample, min(model_a, model_b), max(model_a, model_b)) WHERE run_id IS NOT NULL;

CREATE TABLE judges (
    id         TEXT PRIMARY KEY,
    kind       TEXT NOT NULL CHECK (kind IN ('human', 'rules', 'llm')),
    name       TEXT NOT NULL,
    -- SHA-256 of the invite token; the token itself is shown once and never stored.
    token_hash TEXT UNIQUE,
    quota      INTEGER NOT NULL DEFAULT 0 CHECK (quota >= 0),
    revoked_at TEXT,
    created_at TEXT NOT NULL
) STRICT;

-- Automatic judges and imported judges are found by kind and name.
CREATE UNIQUE INDEX judges_auto ON judges (kind, name) WHERE kind <> 'human';

CREATE TABLE votes (
    id          TEXT PRIMARY KEY,
    battle_id   TEXT NOT NULL REFERENCES battles (id) ON DELETE CASCADE,
    judge_id    TEXT NOT NULL REFERENCES judges (id),
    winner      TEXT NOT NULL CHECK (winner IN ('a', 'b', 'tie', 'bothbad')),
    dimensions  TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(dimensions)),
    reason      TEXT NOT NULL DEFAULT '',
    duration_ms INTEGER NOT NULL DEFAULT 0,
    created_at  TEXT NOT NULL,
    -- A judge votes at most once per battle.
    UNIQUE (battle_id, judge_id)
) STRICT;

-- A judge's progress and history.
CREATE INDEX votes_judge ON votes (judge_id, created_at);
