/**
 * What a compaction reports: `CompactionInfo` (what `context_compacted` and the `data-compaction` part carry), or why
 * none was made (`CompactionOutcome`).
 */

/** What `context_compacted` and the `data-compaction` part carry. */
export interface CompactionInfo {
  boundary_seq: number;
  tokens_before: number;
  tokens_after: number;
  tools_kept: string[];
  tools_dropped: string[];
  native: boolean;
  summary_requests: number;
}

export type CompactionOutcome = { ok: true; info: CompactionInfo } | { ok: false; reason: string };
