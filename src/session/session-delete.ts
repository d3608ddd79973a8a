/**
 * The end of a session's storage (`SessionDelete`): DELETE (`destroy`, and `afterDelete` for a create or a run
 * that must come after it), the expiry of an idle session (`expire`), the rebuild of an object whose schema could
 * not be brought up (`rebuild`, for `clear`), and the wipe all three share. The D1 rows go first in a DELETE and an
 * expiry, so a D1 failure wipes nothing (a DELETE's answer is then `database_unavailable`; the rows may be gone all
 * the same when D1 carried out a batch it answered late or lost the answer of, and a retry then wipes the session).
 */
import { deleteSessionIndex } from "../d1/sessions";
import { unlessUnavailable } from "../d1/unavailable";
import { failure, type Result } from "../model/errors";
import { log } from "../observability/log";
import { nowIso } from "../storage/sql";
import type { AgentCache } from "./agent-cache";
import type { Reply, SessionInfo } from "./rpc-types";
import type { RunRow } from "./runs/run-store";
import type { SessionRuns } from "./runs/session-runs";
import type { Scheduler } from "./scheduler";
import type { SessionAlarm } from "./session-alarm";
import type { SessionEngine } from "./session-engine";
import { missing, type SessionRecord } from "./session-record";
import type { Sweeper } from "./sweeper";

/**
 * What deleting needs of the object: its state (blockConcurrencyWhile, the raw storage), D1 (counted in debug mode),
 * what it holds, and its count of a call's storage work for the DELETE's answer (Session's `#counted`); for the
 * rebuild also its runs and the alarm's sweep (`scheduleSweep`).
 */
interface DeleteDeps {
  ctx: DurableObjectState;
  db: () => D1Database;
  counted: <R extends object>(fn: () => Promise<R>) => Promise<Reply<R>>;
  record: SessionRecord;
  engine: SessionEngine;
  scheduler: Scheduler;
  sweeper: Sweeper;
  agents: AgentCache;
  runs: SessionRuns;
  alarm: SessionAlarm;
}

export class SessionDelete {
  readonly #deps: DeleteDeps;
  /** The DELETE under way (`destroy`), if any: a create or a run waits for it to end (`afterDelete`). */
  #deletion: Promise<Reply<Result<{ deleted: true }>>> | null = null;

  constructor(deps: DeleteDeps) {
    this.#deps = deps;
  }

  /**
   * `clear` of an object whose schema could not be brought up: everything is wiped and the schema rebuilt, keeping
   * the session's identity (`meta.session`) and where its stream frame ids got to. A session whose record cannot be
   * read is refused (`session_unreadable`), nothing changed: a rebuild without it would leave tables and no session,
   * every later call 404 while the index still lists the id; DELETE removes it. The runs still open are read before
   * the wipe and failed after it, with their callbacks (`SessionRuns.failRebuilt`); and the session's sweep is
   * scheduled and its alarm armed, as at its creation, so it still expires when idle.
   */
  async rebuild(): Promise<Result<{ cleared: true }>> {
    const { record, engine, runs, alarm, scheduler } = this.#deps;
    let info: SessionInfo | null;
    try {
      info = record.stored();
    } catch (e) {
      log("error", "session_rebuild_refused", { error: String(e) });
      return failure(
        "session_unreadable",
        "the session's own record cannot be read, so it cannot be rebuilt; DELETE the session to remove it",
      );
    }
    if (!info) return missing();
    // The same session goes on: its frame ids too, above any a client may hold as its Last-Event-ID.
    let head = 0;
    try {
      head = engine.streamLog.head();
    } catch {
      // The log itself is unreadable: nothing tells how far its ids went, and they start again from 1.
    }
    // Every column the run store reads has been there since the runs table was made (schema v4): an object broken
    // at a later step reads them; one broken before has no table, and no run.
    let open: RunRow[] = [];
    try {
      open = runs.store.open();
    } catch (e) {
      log("error", "session_rebuild_runs_unread", { error: String(e) });
    }
    await this.#wipe();
    record.ensureSchema();
    // The same session, the same incarnation: its tokens still open it.
    record.record(info);
    engine.streamLog.continueAbove(head);
    engine.eventLog.record("session_cleared", null, { at: nowIso(), rebuilt: true });
    runs.failRebuilt(open);
    // A session that is never used again still expires (when idle expiry is configured), as after `init`.
    alarm.scheduleSweep();
    scheduler.arm();
    return { ok: true, cleared: true };
  }

  async #wipe(): Promise<void> {
    const { ctx, record, engine, scheduler, sweeper, agents } = this.#deps;
    scheduler.forget();
    sweeper.forget();
    await ctx.storage.deleteAlarm();
    await ctx.storage.deleteAll();
    record.wiped();
    agents.invalidate();
    engine.wiped();
  }

  /**
   * DELETE: the session's D1 rows (index row and run records) first, then the running turn is cancelled, then its
   * storage is wiped and the tombstone written, as `expire` does. If D1 fails the rows (or leaves them unanswered
   * past its bound, d1/unavailable.ts) nothing is wiped, a running turn goes on, so does a request waiting on network
   * I/O, and the answer is `database_unavailable` (the client retries the DELETE, which finds no row if D1 carried
   * the batch out all the same, and wipes the session it holds); any other error is thrown. D1 goes first also so that a webhook run admitted once
   * the rows are gone finds no index row: it either arrives after the wipe with a later `created_at` and creates the
   * session anew, with its own index row, or (admitted before) is refused by the tombstone. A create or a run that
   * reaches the object while the DELETE is under way waits for it to end (`afterDelete`), so none is let in between
   * the D1 rows and the wipe. `tenant` and `id` are the worker's: an object that holds nothing may still have an
   * index row (a half-done create or DELETE), which goes too. Debug mode: the answer carries the storage work from
   * this DELETE's start (not that of one it waited for).
   */
  async destroy(tenant: string, id: string): Promise<Reply<Result<{ deleted: true }>>> {
    // One DELETE at a time: the check and the start below have no await between them.
    while (this.#deletion) await this.#deletion.catch(() => {});
    const deletion = this.#deps.counted(() => this.#destroy(tenant, id));
    this.#deletion = deletion;
    try {
      return await deletion;
    } finally {
      if (this.#deletion === deletion) this.#deletion = null;
    }
  }

  /** Resolves once no DELETE is under way (whatever its outcome). */
  async afterDelete(): Promise<void> {
    while (this.#deletion) await this.#deletion.catch(() => {});
  }

  async #destroy(tenant: string, id: string): Promise<Result<{ deleted: true }>> {
    const { ctx, db, record, engine } = this.#deps;
    // No `ready()`: DELETE works even when the object's state could not be loaded. A throw inside
    // blockConcurrencyWhile would reset the object: the outcome is carried out of it instead.
    const index = await ctx.blockConcurrencyWhile(async () => {
      try {
        return await unlessUnavailable(
          async () => {
            const indexed = await deleteSessionIndex(db(), tenant, id);
            // Only once the D1 rows are gone, with nothing delivered in between (as `expire`): work in flight (a
            // message waiting on an MCP listing, a run waiting on D1) sees the generation change after its await and
            // writes nothing; until the wipe is done, nothing new is admitted either. A DELETE that cannot reach D1
            // changes nothing: that work goes on.
            engine.beginDelete();
            return { ok: true as const, indexed };
          },
          { session: `${tenant}:${id}`, for: "delete" },
        );
      } catch (thrown) {
        return { thrown };
      }
    });
    if ("thrown" in index) throw index.thrown;
    if (!index.ok) return index;
    try {
      const runner = engine.running;
      if (runner) {
        runner.cancel("the session was deleted");
        await engine.waitFor(runner.turnId);
      }
      const outcome = await ctx.blockConcurrencyWhile(async () => {
        try {
          const held = record.broken || record.info() !== null;
          // An object that never held a session, and has no index row, stays without storage.
          if (!held && !index.indexed) return { found: false };
          // The object may be addressed again; it must come back as a fresh, empty session.
          await this.#wipe();
          await record.tombstone();
          return { found: true };
        } catch (error) {
          return { error };
        }
      });
      if ("error" in outcome) throw outcome.error;
      // An object that never held a session answers 404 (the worker routes by name without asking D1).
      if (!outcome.found) return missing();
    } finally {
      engine.endDelete();
    }
    return { ok: true, deleted: true };
  }

  /**
   * Deletes a session that has been idle past its retention: first its D1 rows
   * (index and run records), then its storage, with no other event let in
   * between. If D1 cannot be reached nothing is deleted and the sweep retries. Debug mode: its D1 batch is counted
   * with the object's work (`debugCounts`), in no request's answer: the alarm runs it, with none to carry it.
   */
  async expire(): Promise<void> {
    const { ctx, db, record, engine, sweeper } = this.#deps;
    const info = record.info();
    if (!info) return;
    await ctx.blockConcurrencyWhile(async () => {
      try {
        if (!sweeper.idleExpired(Date.now())) return;
        await deleteSessionIndex(db(), info.tenant, info.id);
        // As a DELETE: work in flight (a request waiting on an MCP listing) sees the session gone, not a wiped store.
        engine.beginDelete();
        try {
          await this.#wipe();
          await record.tombstone();
        } finally {
          engine.endDelete();
        }
        log("info", "session_expired", { session: `${info.tenant}:${info.id}` });
      } catch (e) {
        sweeper.schedule();
        log("error", "session_expire_failed", { error: String(e) });
      }
    });
  }
}
