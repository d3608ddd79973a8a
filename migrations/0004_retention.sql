-- Retention: the worker's cron (src/retention/cron.ts) over D1 run records (src/d1/runs.ts). See docs/STORAGE.md.
-- The cron reads run records oldest first; deleting a session deletes its run records.
CREATE INDEX runs_created ON runs (created_at);
CREATE INDEX runs_session ON runs (tenant, session_id);
