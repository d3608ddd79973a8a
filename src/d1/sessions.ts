/**
 * D1 `sessions`: the worker's index of sessions (tenant, id, agent). The
 * session itself lives in its Durable Object; the index serves listing,
 * the agent check of a webhook run, deletion, and the retention cron's walk
 * for idle expiry (whose place is kept in the `retention_cursor` row).
 */
import { TOLERANCE_S } from "../runs/signature";
import type { D1 } from "./db";
import type { RunRecord } from "./runs";

interface SessionIndexRow {
  tenant: string;
  id: string;
  agent: string;
  metadata: string | null;
  created_at: string;
}

/** Writes an index row unless one exists; true when this call wrote it. */
export async function insertSession(db: D1Database, row: SessionIndexRow): Promise<boolean> {
  const res = await db
    .prepare(
      "INSERT INTO sessions (tenant, id, agent, metadata, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
    )
    .bind(row.tenant, row.id, row.agent, row.metadata, row.created_at)
    .run();
  return Boolean(res.meta.changes);
}

/**
 * Makes the index row describe the session the object holds (`row`'s agent, metadata and creation time): the row
 * there is rewritten, or written anew when none is. A plain UPDATE could match none: another create of the same id
 * whose init failed deletes the row it found between this call's insert and this write, and the session would be
 * answered created but never listed, nor walked by the retention cron.
 */
export async function upsertSessionRow(db: D1Database, row: SessionIndexRow): Promise<void> {
  await db
    .prepare(
      `INSERT INTO sessions (tenant, id, agent, metadata, created_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (tenant, id) DO UPDATE SET agent = excluded.agent, metadata = excluded.metadata,
         created_at = excluded.created_at`,
    )
    .bind(row.tenant, row.id, row.agent, row.metadata, row.created_at)
    .run();
}

/** Removes only the index row (a creation whose object could not be set up). */
export async function deleteSessionRow(db: D1Database, tenant: string, id: string): Promise<void> {
  await db.prepare("DELETE FROM sessions WHERE tenant = ? AND id = ?").bind(tenant, id).run();
}

/**
 * How long after its creation a run's record with an idempotency key outlives its deleted session: a webhook is
 * accepted up to TOLERANCE_S after its timestamp, which may be TOLERANCE_S ahead of the run's creation.
 */
const REPLAY_GUARD_MS = 2 * TOLERANCE_S * 1000;

/**
 * The run records a session's deletion keeps: recent runs with an idempotency key (REPLAY_GUARD_MS), accepted or
 * not. A run the session queued may lack its accepted_at (the worker failed or was cancelled before writing it);
 * without its record a replay would win a new one, created after the deletion, and run the input again. A kept
 * record, accepted or not, is never handed to a session again (handToSession answers 404): its request is gone, and
 * the id may have been created again since.
 */
const KEPT_RUN = "idempotency_key IS NOT NULL AND created_at >= ?";

/**
 * Deletes a session's D1 rows: its index row and its run records, in one batch; true when an index row was there.
 * Used by `DELETE /v1/sessions/{id}` and by a session that expires itself. For REPLAY_GUARD_MS a run's record
 * with a webhook-id / Idempotency-Key is kept, its request emptied (a replay guard, `isReplayGuard`): that record
 * is what recognises a repeat, and without it a signed webhook replayed after the delete would run a second time.
 * Such a repeat finds its run and is answered 404 (the run's session was deleted) with nothing run, also when the
 * id has been created again since; the retention cron removes the record once REPLAY_GUARD_MS has passed
 * (deleteExpiredGuards). The request `{}` is written literally here and in deleteExpiredGuards: the partial index
 * runs_guards (migration 0009) is read only by a query that repeats its predicate.
 */
export async function deleteSessionIndex(db: D1Database, tenant: string, id: string): Promise<boolean> {
  const since = new Date(Date.now() - REPLAY_GUARD_MS).toISOString();
  const [, , sessions] = await db.batch([
    db
      .prepare(`UPDATE runs SET request = '{}' WHERE tenant = ? AND session_id = ? AND ${KEPT_RUN}`)
      .bind(tenant, id, since),
    db.prepare(`DELETE FROM runs WHERE tenant = ? AND session_id = ? AND NOT (${KEPT_RUN})`).bind(tenant, id, since),
    db.prepare("DELETE FROM sessions WHERE tenant = ? AND id = ?").bind(tenant, id),
  ]);
  return (sessions?.meta.changes ?? 0) > 0;
}

/** True for a record deleteSessionIndex kept as a replay guard: its session was deleted, its request emptied. */
export function isReplayGuard(record: RunRecord): boolean {
  return record.request === "{}";
}

/**
 * Deletes at most `limit` of the records deleteSessionIndex kept (request emptied) whose REPLAY_GUARD_MS has passed
 * by `now`: no replay can be accepted any more, and a repeat is a new run. Whether the session's id has been
 * created again since does not matter: the guard belongs to the deleted session. Called by the retention cron
 * whatever the runs retention (30 days, or 0: forever); returns how many it deleted. Reads only the guards
 * (the partial index runs_guards), not every record.
 */
export async function deleteExpiredGuards(db: D1Database, now: number, limit: number): Promise<number> {
  const res = await db
    .prepare(`DELETE FROM runs WHERE id IN (SELECT id FROM runs WHERE request = '{}' AND created_at < ? LIMIT ?)`)
    .bind(new Date(now - REPLAY_GUARD_MS).toISOString(), limit)
    .run();
  return res.meta.changes ?? 0;
}

/** A tenant's sessions with ids after `after`, in id order, at most `limit`. */
export async function listSessions(
  db: D1,
  tenant: string,
  after: string,
  limit: number,
): Promise<Array<{ id: string; agent: string; created_at: string }>> {
  const { results } = await db
    .prepare("SELECT id, agent, created_at FROM sessions WHERE tenant = ? AND id > ? ORDER BY id LIMIT ?")
    .bind(tenant, after, limit)
    .all<{ id: string; agent: string; created_at: string }>();
  return results;
}

/** The agent a session belongs to, or null when it is not indexed. */
export async function sessionAgent(db: D1, tenant: string, id: string): Promise<string | null> {
  const row = await db
    .prepare("SELECT agent FROM sessions WHERE tenant = ? AND id = ?")
    .bind(tenant, id)
    .first<{ agent: string }>();
  return row?.agent ?? null;
}

/** A place in the (tenant, id) order of index rows; ("", "") is before the first. */
export interface SessionKey {
  tenant: string;
  id: string;
}

/** Index rows after `after` in primary-key (tenant, id) order, at most `limit`: the retention cron's walk. */
export async function sessionsAfter(db: D1, after: SessionKey, limit: number): Promise<SessionKey[]> {
  const { results } = await db
    .prepare("SELECT tenant, id FROM sessions WHERE (tenant, id) > (?, ?) ORDER BY tenant, id LIMIT ?")
    .bind(after.tenant, after.id, limit)
    .all<SessionKey>();
  return results;
}

/** Where the cron's idle-expiry walk over the index stands (migration 0008, columns of `retention_cursor`). */
export interface IdleCursor {
  /** The last index row the pass under way read. */
  after: SessionKey;
  /** The idle setting (ms) the pass under way is for. */
  passMs: number;
  /** Sessions the pass under way could not reach. */
  missed: number;
  /** The setting the last complete pass that reached every session was for; 0 for none. */
  doneMs: number;
}

export const IDLE_CURSOR_START: IdleCursor = { after: { tenant: "", id: "" }, passMs: 0, missed: 0, doneMs: 0 };

export async function idleCursor(db: D1): Promise<IdleCursor> {
  const row = await db
    .prepare(
      "SELECT session_tenant, session_id, idle_pass_ms, idle_missed, idle_done_ms FROM retention_cursor WHERE id = 1",
    )
    .first<{
      session_tenant: string;
      session_id: string;
      idle_pass_ms: number;
      idle_missed: number;
      idle_done_ms: number;
    }>();
  if (!row) return IDLE_CURSOR_START;
  return {
    after: { tenant: row.session_tenant, id: row.session_id },
    passMs: row.idle_pass_ms,
    missed: row.idle_missed,
    doneMs: row.idle_done_ms,
  };
}

export async function setIdleCursor(db: D1Database, c: IdleCursor): Promise<void> {
  await db
    .prepare(
      `INSERT INTO retention_cursor (id, created_at, run_id, session_tenant, session_id, idle_pass_ms, idle_missed, idle_done_ms)
       VALUES (1, '', '', ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET session_tenant = excluded.session_tenant, session_id = excluded.session_id,
         idle_pass_ms = excluded.idle_pass_ms, idle_missed = excluded.idle_missed, idle_done_ms = excluded.idle_done_ms`,
    )
    .bind(c.after.tenant, c.after.id, c.passMs, c.missed, c.doneMs)
    .run();
}
