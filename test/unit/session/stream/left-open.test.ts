// What a turn's logged frames leave open (src/session/stream/left-open.ts), closed by an encoder that takes the turn
// over (UiEncoder `continueFrom`, as recovery does after a restart): whatever frame the log ends at, the AI SDK's
// client assembles the message with every part done and no call left streaming, and is told no outcome of a call
// whose frames the log lost.
import type { UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { coalesce } from "../../../../src/session/stream/coalesce";
import { leftOpen } from "../../../../src/session/stream/left-open";
import type { UiChunk } from "../../../../src/session/stream/ui-chunks";
import { UiEncoder } from "../../../../src/session/stream/ui-encoder";
import { assemble, encodeAll, toSse } from "./assemble";
import { FULL_TURN, SERVER_TOOLS } from "./fixtures";

/** FULL_TURN's frames as logged, its end left out: a restart can cut the log at any of them. */
const LOGGED = coalesce(encodeAll(FULL_TURN.filter((ev) => ev.type !== "turn_finish")));
const CALLS = ["toolu_a", "toolu_b"];

/**
 * What recovery sends after the frames `logged` kept: what they left open closed, the empty last step, a synthetic
 * result for each call the log shows unanswered, and the interrupted turn's end.
 */
function takeOver(logged: UiChunk[]): UiChunk[] {
  const encoder = new UiEncoder((name) => SERVER_TOOLS.has(name));
  const answered = new Set(logged.flatMap((c) => (c.type === "tool-output-available" ? [c.toolCallId] : [])));
  const reason = "the session restarted while this call was in flight";
  return [
    ...encoder.continueFrom(leftOpen(logged), reason),
    ...encoder.push({ type: "no_more_steps" }),
    ...CALLS.filter((id) => !answered.has(id)).flatMap((id) =>
      encoder.push({ type: "tool_output", tool_use_id: id, content: reason, is_error: true, earlier: true }),
    ),
    ...encoder.push({ type: "turn_error", code: "interrupted", message: "restarted" }),
    ...encoder.push({ type: "turn_finish", status: "interrupted", finish_reason: "error" }),
  ];
}

describe("a turn taken over from its logged frames", () => {
  for (let k = 0; k <= LOGGED.length; k++) {
    it(`log cut after frame ${k}: every part ends, and the client reports only the turn's error`, async () => {
      const logged = LOGGED.slice(0, k);
      const { message, errors } = await assemble(toSse([...logged, ...takeOver(logged)]));
      expect(errors.map((e) => e.message)).toEqual(["interrupted: restarted"]);
      const parts = message?.parts ?? [];
      expect(parts.filter((p) => (p.type === "text" || p.type === "reasoning") && p.state !== "done")).toEqual([]);
      expect(parts.filter((p) => p.type === "dynamic-tool" && p.state.startsWith("input-"))).toEqual([]);
    });
  }

  it("tells no outcome of a call the log never started (its frames lost)", () => {
    const before = LOGGED.findIndex((c) => c.type === "tool-input-start" && c.toolCallId === "toolu_b");
    const sent = takeOver(LOGGED.slice(0, before)) as UIMessageChunk[];
    expect(sent.filter((c) => "toolCallId" in c && c.toolCallId === "toolu_b")).toEqual([]);
    expect(sent.find((c) => c.type === "tool-output-error")).toMatchObject({ toolCallId: "toolu_a" });
  });
});
