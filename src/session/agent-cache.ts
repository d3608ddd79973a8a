/**
 * The session object's own copy of its agent's configuration, so a turn
 * reaches the provider without a D1 read.
 *
 * The copy is stored with the agent-config epoch it was read at (D1
 * `agent_epoch`, bumped by every agent PUT/DELETE). Each turn brings the epoch
 * the worker knows; only when that is newer does the object re-read its agent
 * from the D1 primary (one statement), before admission — so a reconfigured
 * agent takes effect at a turn boundary, never mid-turn, at the latest once
 * the worker's epoch cache has caught up (≤ 60 s, at once in the isolate
 * that made the change; see src/http/directory.ts). Sessions created before
 * this cache existed, or by a webhook run, read it once at their first turn.
 */
import type { AgentConfig } from "../agents/types";
import { readAgent } from "../d1/agents";
import type { Result } from "../model/errors";
import { failure } from "../model/errors";
import { nowIso, one, write } from "../storage/sql";

/** What a caller hands a turn: the epoch it knows (the worker), or a config to use as is (tests, internal callers). */
export type AgentArg = { epoch: number } | AgentConfig;

interface Cached {
  name: string;
  epoch: number;
  config: AgentConfig | null;
}

export class AgentCache {
  #memo: Cached | null = null;

  readonly #sql: () => SqlStorage;
  readonly #db: () => D1Database;
  constructor(sql: () => SqlStorage, db: () => D1Database) {
    this.#db = db;
    this.#sql = sql;
  }

  /** Stores a config read elsewhere (session creation reads it with the epoch in one statement). */
  prime(name: string, config: AgentConfig | null, epoch: number): void {
    write(
      this.#sql(),
      `INSERT INTO agent_config (name, config, epoch, fetched_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET config = excluded.config, epoch = excluded.epoch, fetched_at = excluded.fetched_at`,
      name,
      config ? JSON.stringify(config) : null,
      epoch,
      nowIso(),
    );
    write(this.#sql(), "DELETE FROM agent_config WHERE name <> ?", name);
    this.#memo = { name, epoch, config };
  }

  /** The agent's config for a turn about to be admitted; 409 agent_missing when the agent was deleted. */
  async resolve(name: string, arg: AgentArg): Promise<Result<{ agent: AgentConfig }>> {
    if ("model" in arg) return { ok: true, agent: arg };
    let cached = this.#cached(name);
    if (!cached || arg.epoch > cached.epoch) {
      const { config, epoch } = await readAgent(this.#db(), name);
      this.prime(name, config, Math.max(epoch ?? 0, arg.epoch));
      cached = this.#memo as Cached;
    }
    if (!cached.config) return failure("agent_missing", `agent "${name}" no longer exists`);
    return { ok: true, agent: cached.config };
  }

  #cached(name: string): Cached | null {
    if (this.#memo?.name === name) return this.#memo;
    const row = one<{ name: string; config: string | null; epoch: number }>(
      this.#sql(),
      "SELECT name, config, epoch FROM agent_config WHERE name = ?",
      name,
    );
    this.#memo = row
      ? { name: row.name, epoch: row.epoch, config: row.config ? (JSON.parse(row.config) as AgentConfig) : null }
      : null;
    return this.#memo;
  }

  /** After deleteAll: the next read comes from storage (or D1). */
  invalidate(): void {
    this.#memo = null;
  }
}
