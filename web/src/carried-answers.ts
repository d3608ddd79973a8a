// `carriedAnswers`: the approval answers this page gave and has not sent yet (useChat sends a step's answers
// together, once all are given), carried across a re-read of the session to the approvals it still shows waiting.
// Pure, tested in plain vitest (test/unit/web/carried-answers.test.ts).
import type { UIMessage } from "ai";

/** One answer to an approval, as `addToolApprovalResponse` takes it. */
export interface CarriedAnswer {
  id: string;
  approved: boolean;
  reason?: string;
}

/**
 * The answers `live` (useChat's messages before the page reads the session again) holds for the approvals this page
 * answered and has not sent (`answeredHere`, by approval id), kept for those `seed` (takeOpenApprovals of the history
 * read again) still shows waiting for the person, in its order. An answer to an approval no longer waiting (answered
 * elsewhere first, expired, its turn moved on) is dropped: the outcome the server recorded shows instead. An answer
 * this page did not give (one seeded approved from the pause) is never carried.
 */
export function carriedAnswers(
  live: readonly UIMessage[],
  answeredHere: ReadonlySet<string>,
  seed: UIMessage | null,
): CarriedAnswer[] {
  const given = new Map<string, CarriedAnswer>();
  for (const m of live) {
    for (const p of m.parts) {
      if (p.type !== "dynamic-tool" || p.state !== "approval-responded" || !answeredHere.has(p.approval.id)) continue;
      const { id, approved, reason } = p.approval;
      given.set(id, { id, approved, ...(reason ? { reason } : {}) });
    }
  }
  const carried: CarriedAnswer[] = [];
  for (const p of seed?.parts ?? []) {
    if (p.type !== "dynamic-tool" || p.state !== "approval-requested") continue;
    const answer = given.get(p.approval.id);
    if (answer) carried.push(answer);
  }
  return carried;
}
