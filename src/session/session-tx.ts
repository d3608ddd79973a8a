/**
 * The session object's transaction: one `transactionSync` (storage/transaction.ts) that, when it rolls back,
 * also drops what the rollback leaves wrong in memory — each store's copy of its rows (the history view and
 * open-call flag, the loaded-tool set, the newest turn, the approvals flag and signing key, the scheduler's
 * earliest due time), all read again on next use — and puts back the turn steps and usage its writes took.
 */
import { transaction } from "../storage/transaction";
import type { ApprovalStore } from "./approval-store";
import type { HistoryStore } from "./history/history-store";
import { jobsChanged } from "./scheduler";
import type { SessionTools } from "./session-tools";
import type { TurnStore } from "./turn/turn-store";

/** The stores that keep rows in memory. */
export interface SessionStores {
  history: HistoryStore;
  tools: SessionTools;
  turns: TurnStore;
  approvals: ApprovalStore;
}

/** Drops every store's in-memory rows; the next use reads them again. */
export function dropCaches(d: SessionStores): void {
  d.history.invalidate();
  d.tools.loaded.invalidate();
  d.turns.invalidate();
  d.approvals.invalidate();
  jobsChanged();
}

export function sessionTx<T>(d: SessionStores & { storage: DurableObjectStorage }, fn: () => T): T {
  // The turn store keeps what this transaction's writes took from pending until it commits or rolls back.
  return d.turns.within(() => transaction(d.storage, fn, () => dropCaches(d)));
}
