/**
 * D1 `runs`: the record of every webhook-triggered run — what never changes
 * about it (who, which agent and session, the request). Its unique index on
 * (tenant, agent, idempotency_key) is the arbiter of repeated webhook-ids;
 * the run's state lives in its session object. Also `retention_cursor`, where
 * the retention cron's pass over these records stands.
 */
import type { D1 } from "./db";

export interface RunRecord {
  id: string;
  tenant: string;
  agent: string;
  session_id: string;
  idempotency_key: string | null;
  body_hash: string;
  auth: string;
  request: string;
  created_at: string;
  accepted_at: string | null;
}

/** What the retention cron reads of a record. */
export interface RunRef {
  id: string;
  tenant: string;
  session_id: string;
  created_at: string;
  [key: string]: string;
}

/** Inserts a record unless its idempotency key is taken; true when this call inserted it. */
export async function insertRun(db: D1Database, r: Omit<RunRecord, "accepted_at">): Promise<boolean> {
  const res = await db
    .prepare(
      `INSERT INTO runs (id, tenant, agent, session_id, idempotency_key, body_hash, auth, request, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
    )
    .bind(r.id, r.tenant, r.agent, r.session_id, r.idempotency_key, r.body_hash, r.auth, r.request, r.created_at)
    .run();
  return res.meta.changes > 0;
}

export function runById(db: D1, id: string): Promise<RunRecord | null> {
  return db.prepare("SELECT * FROM runs WHERE id = ?").bind(id).first<RunRecord>();
}

export function runByIdempotencyKey(
  db: D1,
  tenant: string,
  agent: string,
  key: string | null,
): Promise<RunRecord | null> {
  return db
    .prepare("SELECT * FROM runs WHERE tenant = ? AND agent = ? AND idempotency_key = ?")
    .bind(tenant, agent, key)
    .first<RunRecord>();
}

/** Marks the record as handed to its session (once). */
export async function markRunAccepted(db: D1Database, id: string, at: string): Promise<void> {
  await db.prepare("UPDATE runs SET accepted_at = ? WHERE id = ? AND accepted_at IS NULL").bind(at, id).run();
}

/**
 * Records created before `cutoff`, after the (created_at, id) cursor, oldest first, at most `limit`. The row-value
 * comparison and the order are those of the index runs_created_id (migration 0009): a batch reads its own rows,
 * not every record between the cursor and the cutoff.
 */
export async function runsCreatedBefore(db: D1, cutoff: string, after: RunCursor, limit: number): Promise<RunRef[]> {
  const { results } = await db
    .prepare(
      `SELECT id, tenant, session_id, created_at FROM runs
       WHERE created_at < ? AND (created_at, id) > (?, ?)
       ORDER BY created_at, id LIMIT ?`,
    )
    .bind(cutoff, after.at, after.id, limit)
    .all<RunRef>();
  return results;
}

/** A place in the (created_at, id) order of records; ("", "") is before the first. */
interface RunCursor {
  at: string;
  id: string;
}

/** Where the retention cron's pass stands (migration 0007); the start when the row is missing. */
export async function retentionCursor(db: D1): Promise<RunCursor> {
  const row = await db
    .prepare("SELECT created_at, run_id FROM retention_cursor WHERE id = 1")
    .first<{ created_at: string; run_id: string }>();
  return { at: row?.created_at ?? "", id: row?.run_id ?? "" };
}

export async function setRetentionCursor(db: D1Database, c: RunCursor): Promise<void> {
  await db
    .prepare(
      `INSERT INTO retention_cursor (id, created_at, run_id) VALUES (1, ?, ?)
       ON CONFLICT (id) DO UPDATE SET created_at = excluded.created_at, run_id = excluded.run_id`,
    )
    .bind(c.at, c.id)
    .run();
}

/** Deletes records by id, in one statement (callers keep `ids` well under 100 bound parameters). */
export async function deleteRuns(db: D1Database, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .prepare(`DELETE FROM runs WHERE id IN (${ids.map(() => "?").join(", ")})`)
    .bind(...ids)
    .run();
}
