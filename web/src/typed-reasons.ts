// `useTypedReasons`: the reason the person typed for each approval, by approval id, held by the chat rather than by
// its prompt. The prompt goes once its call is answered, and an answer the server never took opens the approval
// again (reopenApprovals) with a new prompt: the reason typed is still in it, not lost with the first.
import { useCallback, useMemo, useState } from "react";

/** The reasons typed so far, and how a prompt records one. */
export interface TypedReasons {
  /** By approval id. */
  byId: ReadonlyMap<string, string>;
  type: (approvalId: string, text: string) => void;
}

/** The chat's reasons typed for its approvals, kept for as long as the chat is shown. */
export function useTypedReasons(): TypedReasons {
  const [byId, setById] = useState<ReadonlyMap<string, string>>(new Map());
  const type = useCallback((approvalId: string, text: string) => {
    setById((m) => new Map(m).set(approvalId, text));
  }, []);
  return useMemo(() => ({ byId, type }), [byId, type]);
}
