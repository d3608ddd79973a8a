// invariantViolations: the encoder's open/close contract with the client, checked over a whole chunk list.
import type { UiChunk } from "../../../../src/session/stream/ui-chunks";

/**
 * The encoder's contract with the client, checked over a whole chunk list:
 * nothing references a part or tool call that was not started, ids are not
 * reused, and nothing is left open at finish-step, error or finish.
 */
export function invariantViolations(chunks: UiChunk[]): string[] {
  const bad: string[] = [];
  const seen = new Set<string>();
  const openParts = new Set<string>();
  const tools = new Set<string>();
  const openTools = new Set<string>();
  let stepOpen = false;
  chunks.forEach((c, i) => {
    const at = `#${i} ${c.type}`;
    switch (c.type) {
      case "text-start":
      case "reasoning-start":
        if (seen.has(c.id)) bad.push(`${at}: id ${c.id} reused`);
        seen.add(c.id);
        openParts.add(c.id);
        break;
      case "text-delta":
      case "reasoning-delta":
        if (!openParts.has(c.id)) bad.push(`${at}: ${c.id} not open`);
        break;
      case "text-end":
      case "reasoning-end":
        if (!openParts.delete(c.id)) bad.push(`${at}: ${c.id} not open`);
        break;
      case "tool-input-start":
        if (tools.has(c.toolCallId)) bad.push(`${at}: ${c.toolCallId} started twice`);
        tools.add(c.toolCallId);
        openTools.add(c.toolCallId);
        break;
      case "tool-input-delta":
        if (!openTools.has(c.toolCallId)) bad.push(`${at}: ${c.toolCallId} not streaming`);
        break;
      case "tool-input-available":
      case "tool-input-error":
        if (!openTools.delete(c.toolCallId)) bad.push(`${at}: ${c.toolCallId} not streaming`);
        break;
      case "tool-approval-request":
      case "tool-output-available":
      case "tool-output-error":
        if (!tools.has(c.toolCallId) || openTools.has(c.toolCallId)) bad.push(`${at}: ${c.toolCallId} has no input`);
        break;
      case "start-step":
        if (stepOpen) bad.push(`${at}: previous step not finished`);
        stepOpen = true;
        break;
      case "finish-step":
        if (!stepOpen) bad.push(`${at}: no step open`);
        stepOpen = false;
        if (openParts.size + openTools.size > 0) bad.push(`${at}: still open ${[...openParts, ...openTools]}`);
        break;
      case "error":
      case "finish":
        if (stepOpen || openParts.size + openTools.size > 0) bad.push(`${at}: step or parts still open`);
        break;
      default:
        break;
    }
  });
  return bad;
}
