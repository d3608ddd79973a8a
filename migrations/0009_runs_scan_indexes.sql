-- The retention cron's two reads of run records (src/retention/cron.ts, src/d1/runs.ts, src/d1/sessions.ts). See
-- docs/STORAGE.md. The pass reads records after a (created_at, id) cursor in that order: on runs_created
-- (created_at) alone SQLite sorted every record between the cursor and the cutoff for each batch of 50, so a
-- backlog of old records cost quadratically many rows read. runs_created_id serves the order itself, and covers
-- whatever runs_created did, which goes.
CREATE INDEX runs_created_id ON runs (created_at, id);
DROP INDEX runs_created;
-- A deleted session's replay guards (records whose request was emptied to '{}'): the hourly removal of expired
-- ones reads only them, not every record (its query repeats the predicate, as a partial index needs).
CREATE INDEX runs_guards ON runs (created_at) WHERE request = '{}';
