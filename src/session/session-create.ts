/**
 * The calls that create a session (`SessionCreate`): `init` (POST /v1/sessions) and `enqueueRun` (a webhook run's
 * hand-over, which creates the session on first use). Both come after a DELETE under way (session-delete.ts
 * `afterDelete`), and keep the agent config the worker read as the session's copy. Also `abandon`: a create whose
 * init failed gives up the index row it wrote, unless this object holds the session.
 */
import type { AgentRead } from "../agents/types";
import { deleteSessionRow } from "../d1/sessions";
import type { Failure, Result } from "../model/errors";
import { failure } from "../model/errors";
import type { AgentCache } from "./agent-cache";
import { deleted } from "./deleted";
import type { SessionInfo } from "./rpc-types";
import type { SessionRuns } from "./runs/session-runs";
import type { RunSpec, RunView } from "./runs/types";
import type { Scheduler } from "./scheduler";
import type { SessionAlarm } from "./session-alarm";
import type { SessionRecord } from "./session-record";

/**
 * What creating needs of the object: its state (blockConcurrencyWhile) and D1 (counted in debug mode), for
 * `abandon`; what it holds, `afterDelete` (session-delete.ts: resolves once no DELETE is under way), the agent copy,
 * the runs, the scheduler and the alarm's sweep (`scheduleSweep`).
 */
interface CreateDeps {
  ctx: DurableObjectState;
  db: () => D1Database;
  record: SessionRecord;
  afterDelete: () => Promise<void>;
  agents: AgentCache;
  runs: SessionRuns;
  scheduler: Scheduler;
  alarm: SessionAlarm;
}

export class SessionCreate {
  readonly #deps: CreateDeps;

  constructor(deps: CreateDeps) {
    this.#deps = deps;
  }

  /**
   * Creates the session. `agent` (its config and the agent-config epoch it was
   * read at) primes the session's agent cache, so the first turn needs no D1 read.
   * `created: false` when the object already holds a session (a webhook run created it first, say); `info` is
   * then the stored one, which stays as it was.
   */
  async init(info: SessionInfo, agent?: AgentRead): Promise<Result<{ created: boolean; info: SessionInfo }>> {
    const { afterDelete, record, agents, alarm, scheduler } = this.#deps;
    // A create during a DELETE comes after it: the worker's index row, just written, must not be one the DELETE
    // already removed while the object it names is about to be wiped.
    await afterDelete();
    record.ready();
    const existing = record.info();
    if (existing) return { ok: true, created: false, info: existing };
    const created = record.create(info);
    if (agent) agents.prime(info.agent, agent.config, agent.epoch);
    // A session that is never used still expires (when idle expiry is configured).
    alarm.scheduleSweep();
    scheduler.arm();
    return { ok: true, created: true, info: created };
  }

  /**
   * A create whose init failed (POST /v1/sessions with the client's id, which wrote the index row `tenant`/`id`)
   * gives that row up: it is deleted when this object holds no session, and kept when it holds one (the failed init
   * created it, or another create or a webhook run did, which may have been answered and count on this row). The
   * check and the delete run inside blockConcurrencyWhile, so no init or run creates the session between them: a
   * create that does so after the delete writes its row anew (a create that found this row upserts it). A broken
   * object may hold the session: its row is kept. `deleted` says which; a D1 failure is thrown, the row kept.
   */
  async abandon(tenant: string, id: string): Promise<{ deleted: boolean }> {
    const { ctx, db, record } = this.#deps;
    // A throw inside blockConcurrencyWhile would reset the object: the outcome is carried out of it instead.
    const outcome = await ctx.blockConcurrencyWhile(async () => {
      try {
        if (record.broken || record.info()) return { deleted: false };
        await deleteSessionRow(db(), tenant, id);
        return { deleted: true };
      } catch (thrown) {
        return { thrown };
      }
    });
    if ("thrown" in outcome) throw outcome.thrown;
    return outcome;
  }

  /**
   * Queues a webhook-triggered run; the session is created on first use (the
   * worker has already written its index row). Idempotent per run id.
   * `agent` (the config and epoch the worker read to verify the webhook) is
   * kept as the session's copy unless that copy is newer. `created` says this call created the session (from
   * `info`), for the worker to make sure of an index row it found rather than wrote. A refusal while this object
   * holds the session (another agent's session, a full queue) carries that session's info (`held`), for the worker
   * to make its index row describe it; only a deleted session's refusal has none.
   */
  async enqueueRun(
    info: SessionInfo,
    spec: RunSpec,
    agent?: AgentRead,
  ): Promise<Result<{ run: RunView; created: boolean }> | (Failure & { held: SessionInfo })> {
    const { afterDelete, record, agents, runs } = this.#deps;
    // As `init`: a run handed over during a DELETE comes after it (and is refused by the tombstone if admitted
    // before it, or queued as before if the DELETE failed).
    await afterDelete();
    record.ready();
    const current = record.info();
    if (!current) {
      // Admitted before this session was deleted (`info.created_at` is the run's): it stays deleted.
      const deletedAt = await record.deletedAt();
      if (deletedAt !== undefined && Date.parse(info.created_at) <= deletedAt) return deleted();
      record.create(info);
    } else if (current.agent !== spec.agent) {
      return {
        ...failure("agent_mismatch", `session "${current.id}" belongs to agent "${current.agent}"`),
        held: current,
      };
    }
    // The config the worker just read: the run starts with it, no D1 read in the object.
    if (agent) agents.offer(spec.agent, agent.config, agent.epoch);
    const queued = runs.enqueue(spec);
    // Refused (a full queue) with the session held: the worker keeps its index row, written from this.
    return queued.ok ? { ...queued, created: !current } : { ...queued, held: record.info() ?? info };
  }
}
