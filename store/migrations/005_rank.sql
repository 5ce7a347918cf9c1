-- Battle-file imports. Each imported file's content is recorded by its
-- SHA-256, so importing the same file again writes nothing (battles without
-- a battle_id could not be recognised otherwise).

CREATE TABLE battle_imports (
    sha256      TEXT PRIMARY KEY,
    file        TEXT NOT NULL,
    lines       INTEGER NOT NULL,
    battles     INTEGER NOT NULL,
    votes       INTEGER NOT NULL,
    -- Lines that carried measured values (latency_ms_a, ...): ranking
    -- reads imported measurements only when some import had any.
    measured    INTEGER NOT NULL DEFAULT 0,
    imported_at TEXT NOT NULL
) STRICT;

-- A vote's weight (an LLM judge's strong verdict) is found from the vote:
-- export and the vote listings read it per vote.
CREATE INDEX llm_judgments_vote ON llm_judgments (vote_id) WHERE vote_id IS NOT NULL;
