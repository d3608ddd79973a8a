/**
 * D1 `sessions`: the worker's index of sessions (tenant, id, agent). The
 * session itself lives in its Durable Object; the index serves listing,
 * the agent check of a webhook run, and deletion.
 */
import type { D1 } from "./db";

export interface SessionIndexRow {
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

/** Rewrites an existing index row to `row`'s agent, metadata and creation time (a row with no session behind it). */
export async function updateSessionRow(db: D1Database, row: SessionIndexRow): Promise<void> {
  await db
    .prepare("UPDATE sessions SET agent = ?, metadata = ?, created_at = ? WHERE tenant = ? AND id = ?")
    .bind(row.agent, row.metadata, row.created_at, row.tenant, row.id)
    .run();
}

/** Removes only the index row (a creation whose object could not be set up). */
export async function deleteSessionRow(db: D1Database, tenant: string, id: string): Promise<void> {
  await db.prepare("DELETE FROM sessions WHERE tenant = ? AND id = ?").bind(tenant, id).run();
}

/**
 * Deletes a session's D1 rows: its index row and its run records, in one
 * batch; true when an index row was there. Used by `DELETE /v1/sessions/{id}`
 * and by a session that expires itself.
 */
export async function deleteSessionIndex(db: D1Database, tenant: string, id: string): Promise<boolean> {
  const [, sessions] = await db.batch([
    db.prepare("DELETE FROM runs WHERE tenant = ? AND session_id = ?").bind(tenant, id),
    db.prepare("DELETE FROM sessions WHERE tenant = ? AND id = ?").bind(tenant, id),
  ]);
  return (sessions?.meta.changes ?? 0) > 0;
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
