-- One process at a time runs a run: two `ringside run` of the same run used
-- to ask every provider twice for the same generation. The holder renews
-- heartbeat_at while it runs; a lock whose holder is gone (its process is
-- dead, or it stopped renewing) may be taken over.
CREATE TABLE run_locks (
    run_id       TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    owner        TEXT NOT NULL,     -- a random id per process
    pid          INTEGER NOT NULL,
    host         TEXT NOT NULL,
    started_at   TEXT NOT NULL,
    heartbeat_at TEXT NOT NULL
);
