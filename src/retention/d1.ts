/** The D1 side of a session's deletion: its index row and its run records. */

/**
 * Deletes a session's D1 rows: its index row and its run records; true when an
 * index row was there. Used by `DELETE /v1/sessions/{id}` and by a session that
 * expires itself.
 */
export async function deleteSessionIndex(db: D1Database, tenant: string, id: string): Promise<boolean> {
  const [, sessions] = await db.batch([
    db.prepare("DELETE FROM runs WHERE tenant = ? AND session_id = ?").bind(tenant, id),
    db.prepare("DELETE FROM sessions WHERE tenant = ? AND id = ?").bind(tenant, id),
  ]);
  return (sessions?.meta.changes ?? 0) > 0;
}
