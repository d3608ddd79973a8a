/**
 * D1 `agents`, `agent_epoch` and `agent_versions`: agent configurations, the agent-config epoch, and each agent's
 * version. A PUT that changes an agent, or a DELETE of one, bumps the epoch and sets the agent's version to it in the
 * same batch; a PUT of the config already stored writes nothing. Workers read the epoch with the agents changed
 * shortly before it (`AgentChanges`) and pass that with each turn: a session re-reads its agent only when that agent
 * changed after its copy was read (see src/session/agent-cache.ts). Every read of an agent's config from D1 is here:
 * one agent (`readAgent`), only an agent's webhook secrets (`readWebhookSecrets`), or a page of agents within a byte
 * budget (`listAgents`).
 */
import type { AgentConfig } from "../agents/types";
import { pageEnd } from "../storage/page";
import type { D1 } from "./db";

/**
 * How far below the epoch the changes read with it reach (the epoch follows the clock in ms, so: about the last
 * hour), and how many at most: a session copy older than what they tell is read again once.
 */
const CHANGES_WINDOW = 3_600_000;
export const MAX_CHANGES = 32;

/**
 * The agent-config epoch and the agents changed shortly before it, as one statement read them: every agent whose
 * version (the epoch of its newest change) is above `since` is in `changed`, with that version. A session copy read
 * at an epoch of at least `since` is current unless its agent is listed above that epoch.
 */
export interface AgentChanges {
  epoch: number;
  since: number;
  changed: Array<[name: string, version: number]>;
}

const EPOCH = "(SELECT epoch FROM agent_epoch WHERE id = 1)";

/** The columns `epoch` and `changed` (a JSON array of [name, version]) that `changesOf` reads. */
const CHANGES = `${EPOCH} AS epoch, (SELECT json_group_array(json_array(name, version)) FROM (
  SELECT name, version FROM agent_versions WHERE version > ${EPOCH} - ${CHANGES_WINDOW}
  ORDER BY version DESC LIMIT ${MAX_CHANGES + 1})) AS changed`;

/** The AgentChanges of a row with the CHANGES columns (null: no epoch row). */
function changesOf(row: { epoch: number | null; changed?: string | null } | null | undefined): AgentChanges | null {
  if (typeof row?.epoch !== "number") return null;
  const listed = (row.changed ? JSON.parse(row.changed) : []) as Array<[string, number]>;
  listed.sort((a, b) => b[1] - a[1]);
  // One more than the bound was read: every version above the first one left out is listed.
  const cut = listed[MAX_CHANGES];
  const since = Math.max(row.epoch - CHANGES_WINDOW, cut ? cut[1] : Number.NEGATIVE_INFINITY);
  return { epoch: row.epoch, since, changed: listed.slice(0, MAX_CHANGES) };
}

/**
 * The next agent-config epoch: one more, and at least the time in ms. A database restored to an older copy
 * (D1 Time Travel) keeps an epoch lower than sessions have seen; a plain +1 would then stay below their copies'
 * for as many changes as it went back, and they would keep an old config. The clock puts it above them at once.
 */
const NEXT_EPOCH = "MAX(epoch + 1, CAST(unixepoch('subsec') * 1000 AS INTEGER))";

/**
 * A change of agent `name`, when `when` holds (SQL over `agents` as it is before the change, with `binds`): the epoch
 * bump, and the agent's version set to the bumped epoch. Both come before the change itself in its batch.
 */
function recordChange(db: D1Database, name: string, when: string, binds: unknown[]): D1PreparedStatement[] {
  return [
    db.prepare(`UPDATE agent_epoch SET epoch = ${NEXT_EPOCH} WHERE id = 1 AND ${when}`).bind(...binds),
    db
      .prepare(
        `INSERT INTO agent_versions (name, version) SELECT ?, epoch FROM agent_epoch WHERE id = 1 AND ${when}
         ON CONFLICT (name) DO UPDATE SET version = excluded.version`,
      )
      .bind(name, ...binds),
  ];
}

/** The agent-config epoch and the agents changed shortly before it (null if the epoch's row is missing). */
export async function readAgentChanges(db: D1): Promise<AgentChanges | null> {
  return changesOf(await db.prepare(`SELECT ${CHANGES}`).first<{ epoch: number | null; changed: string | null }>());
}

/** An agent's config (null: no such agent) and the agent-config epoch with its changes, in one statement. */
export async function readAgent(
  db: D1,
  name: string,
): Promise<{ config: AgentConfig | null; changes: AgentChanges | null }> {
  const row = await db
    .prepare(`SELECT ${CHANGES}, (SELECT config FROM agents WHERE name = ?) AS config`)
    .bind(name)
    .first<{ epoch: number | null; changed: string | null; config: string | null }>();
  return { config: row?.config ? (JSON.parse(row.config) as AgentConfig) : null, changes: changesOf(row) };
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
 * Creates or replaces an agent (`config` is its stored JSON), in one batch (one transaction): whether this call
 * created it, and the epoch with its changes after it. A config other than the stored one bumps the epoch and
 * becomes the agent's version; the config already stored writes nothing, not even `updated_at`. The existence check
 * is in the batch too: of concurrent PUTs creating one agent, exactly one sees no row before it.
 */
export async function putAgent(
  db: D1Database,
  name: string,
  config: string,
  now: string,
): Promise<{ created: boolean; changes: AgentChanges | null }> {
  const results = await db.batch([
    db.prepare("SELECT 1 AS x FROM agents WHERE name = ?").bind(name),
    ...recordChange(db, name, "NOT EXISTS (SELECT 1 FROM agents WHERE name = ? AND config = ?)", [name, config]),
    db
      .prepare(
        `INSERT INTO agents (name, config, created_at, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET config = excluded.config, updated_at = excluded.updated_at
         WHERE agents.config <> excluded.config`,
      )
      .bind(name, config, now, now),
    db.prepare(`SELECT ${CHANGES}`),
  ]);
  return { created: !results[0]?.results.length, changes: changesOf(lastRow(results)) };
}

/** Deletes an agent, bumping the epoch and its version, in one batch; whether it existed, and the changes after. */
export async function deleteAgent(
  db: D1Database,
  name: string,
): Promise<{ deleted: boolean; changes: AgentChanges | null }> {
  // One transaction: the epoch moves only when the agent was there to delete (an unknown name changes nothing).
  const results = await db.batch([
    ...recordChange(db, name, "EXISTS (SELECT 1 FROM agents WHERE name = ?)", [name]),
    db.prepare("DELETE FROM agents WHERE name = ?").bind(name),
    db.prepare(`SELECT ${CHANGES}`),
  ]);
  return { deleted: Boolean(results[2]?.meta.changes), changes: changesOf(lastRow(results)) };
}

/** The row of a batch's last statement (its CHANGES read). */
function lastRow(results: D1Result[]): { epoch: number | null; changed: string | null } | undefined {
  return results[results.length - 1]?.results[0] as { epoch: number | null; changed: string | null } | undefined;
}
