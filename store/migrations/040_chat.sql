-- Chat battles: the judge writes the question. Their questions are kept as
-- prompts of a set of their own (judging.chat_set), of a new kind, "user",
-- which the kind check must allow: SQLite cannot change a CHECK, so the
-- table is rebuilt as 011 left it, with the one change.

CREATE TABLE prompts_with_user (
    id         TEXT NOT NULL,
    prompt_set TEXT NOT NULL,
    messages   TEXT NOT NULL CHECK (json_valid(messages)),
    category   TEXT NOT NULL DEFAULT '',
    kind       TEXT NOT NULL DEFAULT 'typical' CHECK (kind IN ('typical', 'edge', 'adversarial', 'user')),
    tags       TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(tags)),
    reference  TEXT NOT NULL DEFAULT '',
    checks     TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(checks)),
    content_hash TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (prompt_set, id)
) STRICT;

INSERT INTO prompts_with_user SELECT id, prompt_set, messages, category, kind, tags, reference, checks,
    content_hash, created_at, updated_at FROM prompts;
DROP TABLE prompts;
ALTER TABLE prompts_with_user RENAME TO prompts;

-- The conversation of a chat battle, one row per turn: the question, when
-- it was asked, and each side's answer once both are in. A turn is stored
-- when asked, so the battle's number of turns is the turn a vote was cast
-- at (a vote ends the conversation). The battle's generation_a/b are the
-- last turn's; its extra fields carry the whole conversation for export.
CREATE TABLE chat_turns (
    battle_id    TEXT NOT NULL REFERENCES battles (id) ON DELETE CASCADE,
    turn         INTEGER NOT NULL CHECK (turn >= 1),
    question     TEXT NOT NULL,
    generation_a TEXT REFERENCES generations (id),
    generation_b TEXT REFERENCES generations (id),
    asked_at     TEXT NOT NULL,
    PRIMARY KEY (battle_id, turn)
) STRICT;

-- Tokens a judge's conversations used, per UTC day (judging.chat.tokens_per_day).
CREATE TABLE chat_usage (
    judge_id TEXT NOT NULL REFERENCES judges (id),
    day      TEXT NOT NULL,
    tokens   INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (judge_id, day)
) STRICT;

-- Harvested prompts the admin picked for export (`export prompts --picked`).
CREATE TABLE prompt_picks (
    prompt_set TEXT NOT NULL,
    prompt_id  TEXT NOT NULL,
    picked_at  TEXT NOT NULL,
    PRIMARY KEY (prompt_set, prompt_id)
) STRICT;
