/**
 * D1 `api_keys`: tenant API keys, stored as SHA-256 hashes, with their rate
 * limit; revoked keys keep their row (`revoked_at`).
 */
import type { D1 } from "./db";

/** What a live key grants (src/http/directory.ts caches it per isolate). */
export interface KeyInfo {
  id: string;
  tenant: string;
  rate_limit_per_min: number | null;
}

interface NewKey {
  id: string;
  tenant: string;
  name: string | null;
  keyHash: string;
  createdAt: string;
  rateLimitPerMin: number | null;
}

export async function insertKey(db: D1Database, key: NewKey): Promise<void> {
  await db
    .prepare(
      "INSERT INTO api_keys (id, tenant, name, key_hash, created_at, rate_limit_per_min) VALUES (?, ?, ?, ?, ?, ?)",
    )
    .bind(key.id, key.tenant, key.name, key.keyHash, key.createdAt, key.rateLimitPerMin)
    .run();
}

/** Every key (hashes excluded), oldest first. */
export async function listKeys(db: D1): Promise<Record<string, unknown>[]> {
  const { results } = await db
    .prepare("SELECT id, tenant, name, created_at, revoked_at, rate_limit_per_min FROM api_keys ORDER BY created_at")
    .all();
  return results;
}

/** Revokes a live key; false when there is no live key with that id. */
export async function revokeKey(db: D1Database, id: string, at: string): Promise<boolean> {
  const res = await db
    .prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL")
    .bind(at, id)
    .run();
  return Boolean(res.meta.changes);
}

/** The live key with this SHA-256 hash, or null. */
export function liveKeyByHash(db: D1, hash: string): Promise<KeyInfo | null> {
  return db
    .prepare("SELECT id, tenant, rate_limit_per_min FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL")
    .bind(hash)
    .first<KeyInfo>();
}

/** The live key `id` of `tenant`, or null when revoked or unknown. */
export function liveKeyById(db: D1, id: string, tenant: string): Promise<KeyInfo | null> {
  return db
    .prepare("SELECT id, tenant, rate_limit_per_min FROM api_keys WHERE id = ? AND tenant = ? AND revoked_at IS NULL")
    .bind(id, tenant)
    .first<KeyInfo>();
}
