/**
 * Helpers for the retention tests: a session's object and its SQL, ageing its rows past every retention (time is
 * injected by writing old timestamps), and running its sweep job now.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import type { Setup } from "./helpers";

/** A timestamp past every retention. */
export const OLD = "2020-01-01T00:00:00.000Z";

/** The tenant the session's index row names. */
export async function tenantOf(s: Setup): Promise<string> {
  const row = await env.DB.prepare("SELECT tenant FROM sessions WHERE id = ?")
    .bind(s.session)
    .first<{ tenant: string }>();
  return row?.tenant ?? "";
}

export async function object(s: Setup) {
  return env.SESSION.getByName(`${await tenantOf(s)}:${s.session}`);
}

export async function sql<T extends Record<string, SqlStorageValue>>(
  s: Setup,
  query: string,
  ...params: SqlStorageValue[]
): Promise<T[]> {
  return runInDurableObject(await object(s), (_i, state) => state.storage.sql.exec<T>(query, ...params).toArray());
}

/** Makes the sweep job due now (as the clock would) and runs the session's alarm. */
export async function sweep(s: Setup): Promise<void> {
  await sql(
    s,
    "INSERT INTO jobs (id, kind, ref, due_at, created_at) VALUES ('sweep:retention', 'sweep', 'retention', 0, ?) ON CONFLICT (id) DO UPDATE SET due_at = 0",
    new Date().toISOString(),
  );
  expect(await runDurableObjectAlarm(await object(s))).toBe(true);
}

/** The session's turns, events and creation as old as OLD: idle past any retention. */
export async function ageEverything(s: Setup): Promise<void> {
  await sql(s, "UPDATE turns SET started_at = ?, ended_at = ?", OLD, OLD);
  await sql(s, "UPDATE events SET at = ?", OLD);
  await sql(s, "UPDATE meta SET value = json_set(value, '$.created_at', ?) WHERE key = 'session'", OLD);
}
