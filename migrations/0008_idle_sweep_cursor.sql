-- The D1 retention cron's pass over the session index for idle expiry (src/retention/cron.ts, src/d1/sessions.ts).
-- See docs/STORAGE.md. Columns of the one retention_cursor row: the (tenant, id) of the last index row a tick read
-- ('', '' = the start), the idle setting (ms) the pass under way is for and how many sessions it could not reach,
-- and the setting the last complete pass with none missed was for (0 = none: the next setting that is on walks).
ALTER TABLE retention_cursor ADD COLUMN session_tenant TEXT NOT NULL DEFAULT '';
ALTER TABLE retention_cursor ADD COLUMN session_id TEXT NOT NULL DEFAULT '';
ALTER TABLE retention_cursor ADD COLUMN idle_pass_ms INTEGER NOT NULL DEFAULT 0;
ALTER TABLE retention_cursor ADD COLUMN idle_missed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE retention_cursor ADD COLUMN idle_done_ms INTEGER NOT NULL DEFAULT 0;
