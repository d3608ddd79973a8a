/**
 * The session object's wake-up (`wakeUp`, from its constructor): before any call is served, an existing schema is
 * brought up to date, the compactor's state loaded and interrupted turns recovered (recovery.ts), all inside
 * blockConcurrencyWhile and never thrown out of the constructor.
 */
import { log } from "../observability/log";
import { recoverInterruptedTurns } from "./recovery";
import type { SessionEngine } from "./session-engine";
import type { SessionRecord } from "./session-record";

/**
 * Startup failures are caught here, never thrown out of the constructor.
 * A failed migration is re-thrown by the calls that need the state; `clear`
 * wipes and rebuilds the schema instead, `destroy` wipes it. Recovery repairs what it can and
 * marks the rest failed (recovery.ts), so it cannot brick the object. An
 * object addressed by an unknown name has no tables and gets none here.
 */
export function wakeUp(ctx: DurableObjectState, record: SessionRecord, engine: SessionEngine): void {
  ctx
    .blockConcurrencyWhile(async () => {
      try {
        if (!record.load()) return;
        engine.compactor.load();
      } catch (e) {
        record.failed(e);
        return;
      }
      try {
        recoverInterruptedTurns(engine);
      } catch (e) {
        log("error", "session_recovery_failed", { error: String(e), stack: (e as Error)?.stack });
      }
    })
    .catch((e) => record.failed(e));
}
