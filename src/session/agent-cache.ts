/**
 * The session object's own copy of its agent's configuration, so a turn
 * reaches the provider without a D1 read.
 *
 * The copy is stored with the agent-config epoch it is current at (D1
 * `agent_epoch`, bumped by every change of any agent; see src/d1/agents.ts).
 * Each turn brings the epoch the worker knows with its newest changes
 * (`AgentChanges`). When that epoch is newer, and the changes tell
 * that this agent did not change since the copy's epoch, the copy is current
 * at the newer epoch (stored so, no D1 read); only when the agent did change,
 * or the changes reach back less far than the copy, does the object re-read
 * its agent from the D1 primary (one statement), before admission — so a
 * reconfigured agent takes effect at a turn boundary, never mid-turn, at the
 * latest once the worker's cache has caught up (≤ 60 s, at once in the isolate
 * that made the change; see src/http/directory.ts), and a change of another
 * agent costs no read. Sessions created before this cache existed read it once
 * at their first turn.
 *
 * Work the object starts on its own (a webhook run's start or resumption, an
 * approval's expiry, a callback's signature) has no worker to bring an epoch:
 * it uses the copy while it is at most 60 s old (the worker caches' bound) and
 * reads D1 once otherwise. A run's admission hands the object the config the
 * worker just read, so a run that starts at once reads no D1 at all.
 * A signature (`signing`) keeps that bound even while a turn is open, whose copy stays as said below: a secret
 * removed from the agent (or the agent deleted) stops signing callbacks and approval notices within 60 s.
 *
 * While a turn is open the copy is the config it was admitted with, and it stays: a running turn's, and a
 * paused one's until it resumes (client results, approval answers or expiry) and ends. Only the admission of
 * a new turn, which ends a paused one, reads a newer config; nothing does while a turn runs. While a turn is
 * paused the newer config is handed to the admission and stored only once that admission has ended the pause
 * (`commit`): a refused one (a bad result id, an oversized body) leaves the paused turn its copy, and so does a
 * message replayed by its Idempotency-Key, which admits nothing (should another call have ended the pause during the
 * replay, that call stored the config its own turn runs with).
 * That newer read is kept beside the copy (`#pending`), so the admissions refused meanwhile read D1 once, not each.
 * A D1 read is an await, during which other calls run: whether the read may replace the copy is decided again
 * once it is back, so a turn that resumed or started meanwhile keeps the config it runs with; and a session
 * deleted meanwhile (its tables dropped) reads and writes nothing more, the call answers as a deleted session's.
 */
import type { AgentConfig } from "../agents/types";
import { type AgentChanges, readAgent } from "../d1/agents";
import type { Result } from "../model/errors";
import { failure } from "../model/errors";
import { isPaused, type TurnStatus } from "../model/turn";
import { one, write } from "../storage/sql";
import { deleted } from "./deleted";

/**
 * What a caller hands a turn: the epoch it knows with the agents changed before it (the worker), or a config to use
 * as is (tests, internal callers).
 */
export type AgentArg = AgentChanges | AgentConfig;

/** How old a copy work without a worker's epoch may use (the worker caches' bound, src/http/cache.ts). */
const AGENT_COPY_MAX_AGE_MS = 60_000;

interface Cached {
  name: string;
  /** The agent-config epoch the copy is current at. */
  epoch: number;
  config: AgentConfig | null;
  /** When the copy was read from D1 (ms since the epoch). */
  fetchedAt: number;
}

/** The session's newest turn, when it is not over: running, or paused for client results or approvals. */
type OpenTurn = "running" | "paused" | null;

/** The session's newest turn as the cache sees it: whether it is open, and which turn it is. */
export interface TurnMark {
  open: OpenTurn;
  id: string | null;
}

/** The newest turn as a TurnMark. */
export function turnMark(latest: { id: string; status: TurnStatus } | null): TurnMark {
  const status = latest?.status;
  const open: OpenTurn = status === "running" ? "running" : isPaused(status) ? "paused" : null;
  return { open, id: latest?.id ?? null };
}

/**
 * Whether agent `name` may have changed after `epoch` as far as `news` tells: it is listed above that epoch, or the
 * changes listed do not reach back to it (a copy older than the 32 newest changes, or than an epoch move no version
 * explains: `since`).
 */
function changedAfter(news: AgentChanges, name: string, epoch: number): boolean {
  if (news.since > epoch) return true;
  return news.changed.some(([changed, version]) => changed === name && version > epoch);
}

export class AgentCache {
  #memo: Cached | null = null;
  /** A config newer than the copy, read while a turn was paused; stored once an admission ends the pause. */
  #pending: Cached | null = null;

  readonly #sql: () => SqlStorage;
  readonly #db: () => D1Database;
  readonly #turn: () => TurnMark;
  constructor(sql: () => SqlStorage, db: () => D1Database, turn: () => TurnMark) {
    this.#db = db;
    this.#sql = sql;
    this.#turn = turn;
  }

  #open(): OpenTurn {
    return this.#turn().open;
  }

  /** Whether a newer config may replace the copy now: no turn runs, and a paused one only ends by an admission. */
  #mayRefresh(admission: boolean): boolean {
    const open = this.#open();
    return open === null || (open === "paused" && admission);
  }

  /** Stores a config read elsewhere (session creation reads it with the epoch in one statement). */
  prime(name: string, config: AgentConfig | null, epoch: number): void {
    const fetchedAt = Date.now();
    write(
      this.#sql(),
      `INSERT INTO agent_config (name, config, epoch, fetched_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET config = excluded.config, epoch = excluded.epoch, fetched_at = excluded.fetched_at`,
      name,
      config ? JSON.stringify(config) : null,
      epoch,
      new Date(fetchedAt).toISOString(),
    );
    write(this.#sql(), "DELETE FROM agent_config WHERE name <> ?", name);
    this.#memo = { name, epoch, config, fetchedAt };
    if (this.#pending && (this.#pending.name !== name || this.#pending.epoch <= epoch)) this.#pending = null;
  }

  /**
   * A config just read from D1 elsewhere (a run's admission): kept unless the copy is of a newer epoch, or a
   * turn is open (its copy stays; the run reads the config again when it starts).
   */
  offer(name: string, config: AgentConfig | null, epoch: number): void {
    const cached = this.#cached(name);
    if (cached && this.#open() !== null) return;
    if (!cached || epoch >= cached.epoch) this.prime(name, config, epoch);
  }

  /**
   * The agent's config for work with no worker's epoch (null: the agent was deleted); see the file's note.
   * `admission`: the work admits a new turn (a run's start or resumption). `gone`: as for `resolve`; a session
   * deleted during the D1 read gets null, and the caller, which checks the same, stops.
   */
  async current(name: string, admission = false, gone = () => false): Promise<AgentConfig | null> {
    const cached = this.#cached(name);
    if (cached && (Date.now() - cached.fetchedAt <= AGENT_COPY_MAX_AGE_MS || !this.#mayRefresh(admission))) {
      return cached.config;
    }
    const before = this.#turn();
    const { config, changes } = await readAgent(this.#db(), name);
    const epoch = changes?.epoch;
    // Its tables were dropped meanwhile: reading the turn or storing the copy would throw "no such table".
    if (gone()) return null;
    // A run starts only where no one else's pause waits (session-runs.ts `blocked`), so its admission, which
    // nothing refuses, ends any pause left: the copy can be stored at once. Unless a turn opened or resumed
    // during the read: that turn keeps its copy (the caller checks again and does not start).
    const now = this.#turn();
    const changed = now.open !== null && (now.open !== before.open || now.id !== before.id);
    if (!this.#cached(name) || !changed) this.prime(name, config, Math.max(epoch ?? 0, cached?.epoch ?? 0));
    return config;
  }

  /**
   * The agent's config to sign an outbound webhook with (a callback, an approval notice): as `current`, except
   * that a copy over 60 s old kept for an open turn is not used. D1's config signs instead, and is not stored:
   * the open turn keeps its copy. Else a turn paused for an hour would have its notices, and another run's
   * callbacks, signed with a secret the operator removed meanwhile.
   */
  async signing(name: string, gone = () => false): Promise<AgentConfig | null> {
    const cached = this.#cached(name);
    const stale = cached !== null && Date.now() - cached.fetchedAt > AGENT_COPY_MAX_AGE_MS;
    if (stale && this.#open() !== null) return (await readAgent(this.#db(), name)).config;
    return this.current(name, false, gone);
  }

  /**
   * The agent's config for a turn call; 409 agent_missing when the agent was deleted. `admission`: the call may
   * admit a new turn (a message, a retry); anything else (results, approvals, state) keeps an open turn's copy.
   * `gone`: whether the session was deleted (or is being) since the call began, asked after the D1 read.
   */
  async resolve(
    name: string,
    arg: AgentArg,
    admission = false,
    gone = () => false,
  ): Promise<Result<{ agent: AgentConfig; commit?: () => void }>> {
    if ("model" in arg) return { ok: true, agent: arg };
    let cached = this.#cached(name);
    // A newer epoch for changes of other agents only: the copy is current, nothing to read.
    if (cached && arg.epoch > cached.epoch && !changedAfter(arg, name, cached.epoch)) {
      cached = this.#current(cached, arg);
    }
    if (!cached || (arg.epoch > cached.epoch && this.#mayRefresh(admission))) {
      const pending = this.#pending?.name === name && this.#pending.epoch >= arg.epoch ? this.#pending : null;
      const read = pending ?? (await this.#read(name, arg.epoch));
      if (gone()) return deleted();
      // Decided again after the read's await: a turn that resumed or started meanwhile keeps its copy.
      cached = this.#cached(name);
      if (cached && !this.#mayRefresh(admission)) return this.#answer(name, cached);
      // Paused: the newer config goes to the admission, and is stored only once that admission ended the pause.
      if (cached && this.#open() === "paused") {
        this.#pending = read;
        if (!read.config) return failure("agent_missing", `agent "${name}" no longer exists`);
        return { ok: true, agent: read.config, commit: () => this.prime(name, read.config, read.epoch) };
      }
      this.prime(name, read.config, read.epoch);
      cached = this.#memo as Cached;
    }
    return this.#answer(name, cached);
  }

  /** The agent read from the D1 primary, at no older an epoch than `known` (the worker's). */
  async #read(name: string, known: number): Promise<Cached> {
    const { config, changes } = await readAgent(this.#db(), name);
    return { name, config, epoch: Math.max(changes?.epoch ?? 0, known), fetchedAt: Date.now() };
  }

  /**
   * The copy, current at the epoch of `news`, which tells that its agent did not change since the copy's epoch: so
   * stored, with the time it was read from D1 kept (work without a worker's epoch still re-reads a copy over 60 s
   * old). The config stays what it is, so this is done whatever turn is open.
   */
  #current(copy: Cached, news: AgentChanges): Cached {
    write(this.#sql(), "UPDATE agent_config SET epoch = ? WHERE name = ?", news.epoch, copy.name);
    this.#memo = { ...copy, epoch: news.epoch };
    return this.#memo;
  }

  #answer(name: string, copy: Cached): Result<{ agent: AgentConfig }> {
    if (!copy.config) return failure("agent_missing", `agent "${name}" no longer exists`);
    return { ok: true, agent: copy.config };
  }

  #cached(name: string): Cached | null {
    if (this.#memo?.name === name) return this.#memo;
    const row = one<{ name: string; config: string | null; epoch: number; fetched_at: string }>(
      this.#sql(),
      "SELECT name, config, epoch, fetched_at FROM agent_config WHERE name = ?",
      name,
    );
    this.#memo = row
      ? {
          name: row.name,
          epoch: row.epoch,
          config: row.config ? (JSON.parse(row.config) as AgentConfig) : null,
          fetchedAt: Date.parse(row.fetched_at) || 0,
        }
      : null;
    return this.#memo;
  }

  /** After deleteAll: the next read comes from storage (or D1). */
  invalidate(): void {
    this.#memo = null;
    this.#pending = null;
  }
}
