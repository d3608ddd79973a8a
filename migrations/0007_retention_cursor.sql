-- The D1 retention cron's place in its pass over run records (src/retention/cron.ts, src/d1/runs.ts). See
-- docs/STORAGE.md. One row: the (created_at, id) of the last record a tick read. The next tick continues after
-- it, so old records still open in their sessions (kept) cannot hold the sweep back from later, ended ones; a
-- pass that reaches the end starts again from the oldest ('', '').
CREATE TABLE retention_cursor (id INTEGER PRIMARY KEY CHECK (id = 1), created_at TEXT NOT NULL, run_id TEXT NOT NULL);
INSERT INTO retention_cursor (id, created_at, run_id) VALUES (1, '', '');
