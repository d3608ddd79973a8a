/**
 * D1 `agents`, `agent_epoch` and `agent_versions`: agent configurations, the agent-config epoch, and each agent's
 * version. A PUT that changes an agent, or a DELETE of one, bumps the epoch and sets the agent's version to it in the
 * same batch; a PUT of the config already stored writes nothing. Workers read the epoch with the newest changes
 * (`AgentChanges`) and pass that with each turn: a session re-reads its agent only when that agent changed after its
 * copy was read (see src/session/agent-cache.ts). An epoch move no version explains (a change written by code from
 * before versions) makes every copy older than it re-read once (`agent_epoch.floor`). Every read of an agent's config
 * from D1 is here: one agent (`readAgent`), only an agent's webhook secrets (`readWebhookSecrets`), or a page of
 * agents within a byte budget (`listAgents`).
 */
import type { AgentConfig } from "../agents/types";
import { pageEnd } from "../storage/page";
import type { D1 } from "./db";

/** How many of the newest changes a worker reads with the epoch: a session copy older than all of them is read again. */
export const MAX_CHANGES = 32;

/**
 * The agent-config epoch and its newest changes, as one statement read them: every agent whose version (the epoch of
 * its newest change) is above `since` is in `changed`, with that version. A session copy read at an epoch of at
 * least `since` is current unless its agent is listed above that epoch. `since` is 0 when the changes listed reach
 * back to the start (every epoch is above 0).
 */
export interface AgentChanges {
  epoch: number;
  since: number;
  changed: Array<[name: string, version: number]>;
}

const EPOCH_ROW = "agent_epoch WHERE id = 1";

/**
 * The columns `epoch`, `floor` and `changed` (a JSON array of [name, version]: the newest versions, one more than
 * MAX_CHANGES, which the index on version reads in order) that `changesOf` reads.
 */
const CHANGES = `(SELECT epoch FROM ${EPOCH_ROW}) AS epoch, (SELECT floor FROM ${EPOCH_ROW}) AS floor,
  (SELECT json_group_array(json_array(name, version)) FROM (
    SELECT name, version FROM agent_versions ORDER BY version DESC LIMIT ${MAX_CHANGES + 1})) AS changed`;

/** A row with the CHANGES columns. */
interface ChangesRow {
  epoch: number | null;
  floor?: number | null;
  changed?: string | null;
}

/**
 * The AgentChanges of a row with the CHANGES columns (null: no epoch row). `since` is the highest of: the version of
 * the first change left out, when more than MAX_CHANGES were read; the floor; and the epoch itself when no version
 * reaches it, as a change written without one (by code from before versions) leaves it until the next change.
 */
function changesOf(row: ChangesRow | null | undefined): AgentChanges | null {
  if (typeof row?.epoch !== "number") return null;
  const listed = (row.changed ? JSON.parse(row.changed) : []) as Array<[string, number]>;
  listed.sort((a, b) => b[1] - a[1]);
  // One more than the bound was read: every version above the first one left out is listed.
  const cut = listed[MAX_CHANGES]?.[1] ?? 0;
  const newest = listed[0]?.[1] ?? Number.NEGATIVE_INFINITY;
  const unversioned = newest < row.epoch ? row.epoch : 0;
  const since = Math.max(cut, row.floor ?? 0, unversioned);
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
 * bump, and the agent's version set to the bumped epoch. Both come before the change itself in its batch. When no
 * version reaches the epoch before the bump (its last move was a change written without a version, which the version
 * set here would hide), the floor is raised to that epoch in the same statement, so copies older than it are still
 * read again.
 */
function recordChange(db: D1Database, name: string, when: string, binds: unknown[]): D1PreparedStatement[] {
  const unversioned = "NOT EXISTS (SELECT 1 FROM agent_versions WHERE version >= agent_epoch.epoch)";
  return [
    db
      .prepare(
        `UPDATE agent_epoch SET floor = CASE WHEN ${unversioned} THEN epoch ELSE floor END, epoch = ${NEXT_EPOCH}
         WHERE id = 1 AND ${when}`,
      )
      .bind(...binds),
    db
      .prepare(
        `INSERT INTO agent_versions (name, version) SELECT ?, epoch FROM agent_epoch WHERE id = 1 AND ${when}
         ON CONFLICT (name) DO UPDATE SET version = excluded.version`,
      )
      .bind(name, ...binds),
  ];
}

/** The agent-config epoch and its newest changes (null if the epoch's row is missing). */
export async function readAgentChanges(db: D1): Promise<AgentChanges | null> {
  return changesOf(await db.prepare(`SELECT ${CHANGES}`).first<ChangesRow>());
}

/** An agent's config (null: no such agent) and the agent-config epoch with its changes, in one statement. */
export async function readAgent(
  db: D1,
  name: string,
): Promise<{ config: AgentConfig | null; changes: AgentChanges | null }> {
  const row = await db
    .prepare(`SELECT ${CHANGES}, (SELECT config FROM agents WHERE name = ?) AS config`)
    .bind(name)
    .first<ChangesRow & { config: string | null }>();
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
  const record = recordChange(db, name, "EXISTS (SELECT 1 FROM agents WHERE name = ?)", [name]);
  const results = await db.batch([
    ...record,
    db.prepare("DELETE FROM agents WHERE name = ?").bind(name),
    db.prepare(`SELECT ${CHANGES}`),
  ]);
  return { deleted: Boolean(results[record.length]?.meta.changes), changes: changesOf(lastRow(results)) };
}

/** The row of a batch's last statement (its CHANGES read). */
function lastRow(results: D1Result[]): ChangesRow | undefined {
  return results[results.length - 1]?.results[0] as ChangesRow | undefined;
}
