/**
 * A provider's compaction part fitted to its row before it is stored (`fitNative`): whole, or a failed compaction.
 */
import type { CompactionPart } from "../../model/message";
import { jsonBytes } from "../../storage/fit";
import { SUMMARY_BUDGET_BYTES } from "../../storage/limits";

/**
 * A provider's compaction part as it is stored (in its assistant message's row, its content in its record's row
 * too): whole when it fits SUMMARY_BUDGET_BYTES. It goes back to the provider exactly as issued (its content is
 * sealed by its opaque state), so a larger one is never cut: it becomes a failed compaction (content null, a no-op
 * to the provider), and the history it would have replaced stays in the view. Pure.
 */
export function fitNative(part: CompactionPart): CompactionPart {
  if (jsonBytes(part) <= SUMMARY_BUDGET_BYTES) return part;
  return { type: "compaction", provider: part.provider, content: null };
}
