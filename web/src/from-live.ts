// `fromUiMessages`: the live useChat messages (AI SDK UI parts) → the transcript; `toolBlock`, how a live tool part
// shows, which the stored history's paused calls take too (from-history.ts), so they show as they would live. Pure,
// tested in plain vitest (test/unit/web/from-live.test.ts).
import type { DynamicToolUIPart, UIMessage } from "ai";
import {
  type Block,
  COMPACTION_NOTICE,
  declinedLine,
  type Entry,
  heldBack,
  outputText,
  type ToolBlock,
} from "./transcript";

/** Live useChat messages → transcript. */
export function fromUiMessages(messages: UIMessage[]): Entry[] {
  return messages.map((m) => {
    const blocks: Block[] = [];
    for (const p of m.parts) {
      if (p.type === "text") {
        if (p.text.length > 0) blocks.push({ kind: "text", text: p.text });
      } else if (p.type === "dynamic-tool") {
        blocks.push(toolBlock(p));
      } else if (p.type === "data-compaction") {
        blocks.push({ kind: "notice", text: COMPACTION_NOTICE });
      }
    }
    return { id: m.id, role: m.role === "user" ? "user" : "assistant", blocks: heldBack(blocks) };
  });
}

/**
 * A live tool part → its block; an approval request carries what the Approve / Deny buttons answer. A call the
 * server does not run (no `providerExecuted`: a client tool's) waits, once its input is in, for an app to answer.
 */
export function toolBlock(p: DynamicToolUIPart): ToolBlock {
  const block: ToolBlock = {
    kind: "tool",
    id: p.toolCallId,
    name: p.toolName,
    state: "running",
    input: p.input,
    output: "",
  };
  if (p.state === "output-available") return { ...block, state: "done", output: outputText(p.output) };
  if (p.state === "output-error") return { ...block, state: "error", output: p.errorText ?? "error" };
  if (p.state === "output-denied") {
    return { ...block, state: "denied", output: declinedLine(p.approval.reason) };
  }
  if (p.state === "approval-requested") {
    const resolvedInput = resolvedInputOf(p.approval.descriptor);
    const approval = {
      id: p.approval.id,
      reason: p.approval.requestReason ?? "",
      ...(resolvedInput !== undefined ? { resolvedInput } : {}),
    };
    return { ...block, state: "approval", approval };
  }
  // Answered here, the turn not yet resumed: a denial is final at once; an approval is held back only while another
  // call of its step waits (heldBack), otherwise the resumed turn runs it now. Neither is left ⏳ beside "ready".
  if (p.state === "approval-responded") {
    return p.approval.approved
      ? { ...block, state: "approved" }
      : { ...block, state: "denied", output: declinedLine(p.approval.reason) };
  }
  if (!p.providerExecuted && (p.state === "input-streaming" || p.state === "input-available")) {
    return { ...block, state: "client" };
  }
  return block;
}

/**
 * The arguments an approval's call runs with, from the descriptor of its request (`tool-approval-request`'s
 * `approvalDescriptor`, kept by useChat as `approval.descriptor`): `resolved_input`, there only for a call with
 * `$tool` references. Undefined otherwise.
 */
function resolvedInputOf(descriptor: unknown): unknown {
  if (typeof descriptor !== "object" || descriptor === null) return undefined;
  return (descriptor as { resolved_input?: unknown }).resolved_input;
}
