-- A prompt belongs to its set: ids are unique within a set, not across sets.
-- Before, prompts.id was the key, so importing set B with ids already in set
-- A reported them unchanged (B stayed empty) or, edited, moved them out of A.
--
-- Generations and battles name their prompt by (prompt_set, prompt_id): the
-- set is stored on the row, so every join on prompts is exact, also for live
-- play (no run) and for runs whose set list changed between invocations.
-- It is not part of the per-run unique keys: instead a run refuses to start
-- when its sets (and the sets its stored generations came from) share an id
-- (cmd/ringside prepareRun). Within a run an id then names one prompt, which
-- keeps what is keyed by id alone simple and correct: resuming a run, replay
-- files (prompt_id, model, sample) and the exported question_id.

CREATE TABLE prompts_by_set (
    id         TEXT NOT NULL,
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
    updated_at TEXT NOT NULL,
    -- Set first: listing a set is the common read of prompts, and the key
    -- serves it (the old prompts_set index is not needed any more).
    PRIMARY KEY (prompt_set, id)
) STRICT;

INSERT INTO prompts_by_set (id, prompt_set, messages, category, kind, tags, reference, checks, content_hash, created_at, updated_at)
    SELECT id, prompt_set, messages, category, kind, tags, reference, checks, content_hash, created_at, updated_at FROM prompts;
DROP TABLE prompts;
ALTER TABLE prompts_by_set RENAME TO prompts;

-- Until now an id named one prompt, so the set a row refers to is the set
-- its prompt is in today. Imported battles name questions ringside never
-- saw and keep ''; so do rows whose prompt is not stored.
ALTER TABLE generations ADD COLUMN prompt_set TEXT NOT NULL DEFAULT '';
ALTER TABLE battles ADD COLUMN prompt_set TEXT NOT NULL DEFAULT '';

UPDATE generations SET prompt_set = (SELECT p.prompt_set FROM prompts p WHERE p.id = generations.prompt_id)
    WHERE prompt_id IN (SELECT id FROM prompts);
UPDATE battles SET prompt_set = (SELECT p.prompt_set FROM prompts p WHERE p.id = battles.prompt_id)
    WHERE source <> 'import' AND prompt_id IN (SELECT id FROM prompts);
