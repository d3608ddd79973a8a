/**
 * D1 `agents` and `agent_epoch`: agent configurations, and the agent-config
 * epoch every PUT/DELETE of an agent bumps in the same batch (sessions re-read
 * their agent when the epoch they are told is newer; see
 * src/session/agent-cache.ts). Every read of an agent's config from D1 is here: one agent (`readAgent`), only
 * an agent's webhook secrets (`readWebhookSecrets`), or a page of agents within a byte budget (`listAgents`).
 */
import type { AgentConfig } from "../agents/types";
import { pageEnd } from "../storage/page";
import type { D1 } from "./db";

/** The epoch after a PUT/DELETE, as the batch's RETURNING row (null if the row is missing). */
function epochOf(result: D1Result<{ epoch: number }> | undefined): number | null {
  const epoch = result?.results[0]?.epoch;
  return typeof epoch === "number" ? epoch : null;
}

/**
 * The next agent-config epoch: one more, and at least the time in ms. A database restored to an older copy
 * (D1 Time Travel) keeps an epoch lower than sessions have seen; a plain +1 would then stay below their copies'
 * for as many changes as it went back, and they would keep an old config. The clock puts it above them at once.
 */
const NEXT_EPOCH = "MAX(epoch + 1, CAST(unixepoch('subsec') * 1000 AS INTEGER))";

/** Bumps the agent-config epoch; sessions re-read their agent at the next turn. */
function bumpEpoch(db: D1Database): D1PreparedStatement {
  return db.prepare(`UPDATE agent_epoch SET epoch = ${NEXT_EPOCH} WHERE id = 1 RETURNING epoch`);
}

/** An agent's config (null: no such agent) and the current agent-config epoch, in one statement. */
export async function readAgent(db: D1, name: string): Promise<{ config: AgentConfig | null; epoch: number | null }> {
  const row = await db
    .prepare(
      "SELECT (SELECT epoch FROM agent_epoch WHERE id = 1) AS epoch, (SELECT config FROM agents WHERE name = ?) AS config",
    )
    .bind(name)
    .first<{ epoch: number | null; config: string | null }>();
  return { config: row?.config ? (JSON.parse(row.config) as AgentConfig) : null, epoch: row?.epoch ?? null };
}

/**
 * An agent's `webhook_secrets`, and nothing else of its config (SQLite picks them out, so a large config is neither
 * sent nor parsed here): [] when it has none or does not exist, one statement either way.
 */
export async function readWebhookSecrets(db: D1, name: string): Promise<string[]> {
  const row = await db
    .prepare("SELECT json_extract(config, '$.webhook_secrets') AS secrets FROM agents WHERE name = ?")
    .bind(name)
    .first<{ secrets: string | null }>();
  return row?.secrets ? (JSON.parse(row.secrets) as string[]) : [];
}

/**
 * A page of the configs of agents named after `after`, in name order: at most `limit`, and only as many as fit in
 * `maxBytes` of stored config (at least one). `next`: the page's last name when more agents follow. The sizes are
 * read first (octet_length does not load a config), so a page of large configs never reaches the isolate whole.
 */
export async function listAgents(
  db: D1,
  after: string,
  limit: number,
  maxBytes: number,
): Promise<{ agents: AgentConfig[]; next: string | null }> {
  const { results: sized } = await db
    .prepare("SELECT name AS key, octet_length(config) AS bytes FROM agents WHERE name > ? ORDER BY name LIMIT ?")
    .bind(after, limit + 1)
    .all<{ key: string; bytes: number }>();
  const page = pageEnd(sized, limit, maxBytes);
  if (!page) return { agents: [], next: null };
  const { results } = await db
    .prepare("SELECT name, config FROM agents WHERE name > ? AND name <= ? ORDER BY name LIMIT ?")
    .bind(after, page.last, page.count)
    .all<{ name: string; config: string }>();
  // An agent created between the two reads may take a place on the page, pushing `last` to the next one.
  const end = results[results.length - 1]?.name ?? page.last;
  return {
    agents: results.map((r) => JSON.parse(r.config) as AgentConfig),
    next: page.more || end !== page.last ? end : null,
  };
}

/**
 * Creates or replaces an agent (`config` is its stored JSON) and bumps the epoch, in one batch (one
 * transaction); whether this call created it, and the new epoch. The existence check is in the batch too: of
 * concurrent PUTs creating one agent, exactly one sees no row before it.
 */
export async function putAgent(
  db: D1Database,
  name: string,
  config: string,
  now: string,
): Promise<{ created: boolean; epoch: number | null }> {
  const [existed, , bumped] = await db.batch<{ x: number; epoch: number }>([
    db.prepare("SELECT 1 AS x FROM agents WHERE name = ?").bind(name),
    db
      .prepare(
        `INSERT INTO agents (name, config, created_at, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET config = excluded.config, updated_at = excluded.updated_at`,
      )
      .bind(name, config, now, now),
    bumpEpoch(db),
  ]);
  return { created: !existed?.results.length, epoch: epochOf(bumped) };
}

/** Deletes an agent and bumps the epoch, in one batch; whether it existed, and the new epoch. */
export async function deleteAgent(db: D1Database, name: string): Promise<{ deleted: boolean; epoch: number | null }> {
  // One transaction: the epoch moves only when the agent was there to delete (an unknown name changes nothing).
  const [bumped, res] = await db.batch<{ epoch: number }>([
    db
      .prepare(
        `UPDATE agent_epoch SET epoch = ${NEXT_EPOCH} WHERE id = 1 AND EXISTS (SELECT 1 FROM agents WHERE name = ?) RETURNING epoch`,
      )
      .bind(name),
    db.prepare("DELETE FROM agents WHERE name = ?").bind(name),
  ]);
  return { deleted: Boolean(res?.meta.changes), epoch: epochOf(bumped) };
}

/** The current agent-config epoch (null if its row is missing). */
export function readEpoch(db: D1): Promise<number | null> {
  return db.prepare("SELECT epoch FROM agent_epoch WHERE id = 1").first<number>("epoch");
}
