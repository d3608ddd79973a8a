/** D1 `cors_origins`: the browser origins each tenant allows (src/http/cors.ts applies them). */
import type { D1 } from "./db";

/** Replaces a tenant's list in one batch (one transaction): it is never seen half-written. */
export async function replaceCorsOrigins(
  db: D1Database,
  tenant: string,
  origins: string[],
  now: string,
): Promise<void> {
  await db.batch([
    db.prepare("DELETE FROM cors_origins WHERE tenant = ?").bind(tenant),
    ...origins.map((o) =>
      db.prepare("INSERT INTO cors_origins (tenant, origin, created_at) VALUES (?, ?, ?)").bind(tenant, o, now),
    ),
  ]);
}

export async function corsOrigins(db: D1, tenant: string): Promise<string[]> {
  const { results } = await db
    .prepare("SELECT origin FROM cors_origins WHERE tenant = ? ORDER BY origin")
    .bind(tenant)
    .all<{ origin: string }>();
  return results.map((r) => r.origin);
}

/** Whether `tenant` lists `origin`; with tenant null, whether any tenant does (preflights). */
export async function originListed(db: D1, tenant: string | null, origin: string): Promise<boolean> {
  const row =
    tenant === null
      ? await db.prepare("SELECT 1 AS x FROM cors_origins WHERE origin = ? LIMIT 1").bind(origin).first()
      : await db
          .prepare("SELECT 1 AS x FROM cors_origins WHERE tenant = ? AND origin = ?")
          .bind(tenant, origin)
          .first();
  return row !== null;
}
