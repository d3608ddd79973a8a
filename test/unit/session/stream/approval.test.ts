// The approval round trip as useChat sees it: the pause segment (tool-approval-request), the client's
// answer (what addToolApprovalResponse does to the part), and the resumed segment that continues the same
// message (tool-output-available for an approved call, tool-output-denied for a declined one) — all read
// by the ai package's own parser and message assembler.
import { type DynamicToolUIPart, readUIMessageStream, type UIMessage, type UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import type { TurnEvent } from "../../../../src/session/stream/turn-events";
import { encodeAll, parseWithSdk, toSse } from "./assemble";
import { APPROVAL_PAUSE } from "./fixtures";

async function assembleFrom(
  chunks: UIMessageChunk[],
  message?: UIMessage,
): Promise<{ message: UIMessage; errors: unknown[] }> {
  const errors: unknown[] = [];
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const c of chunks) controller.enqueue(c);
      controller.close();
    },
  });
  let last: UIMessage | undefined;
  for await (const snap of readUIMessageStream({
    stream,
    ...(message ? { message } : {}),
    onError: (e) => errors.push(e),
  })) {
    last = snap;
  }
  if (!last) throw new Error("no message assembled");
  return { message: last, errors };
}

const toolPart = (m: UIMessage) => m.parts.find((p): p is DynamicToolUIPart => p.type === "dynamic-tool");

/** What addToolApprovalResponse does to the part before useChat sends the message back. */
function respond(m: UIMessage, approved: boolean): UIMessage {
  return {
    ...m,
    parts: m.parts.map((p) =>
      p.type === "dynamic-tool" && p.state === "approval-requested"
        ? { ...p, state: "approval-responded", approval: { ...p.approval, approved } }
        : p,
    ),
  } as UIMessage;
}

const resumed = (tail: TurnEvent[]): TurnEvent[] => [
  { type: "turn_start", turn_id: "turn_5", message_id: "msg_5" },
  ...tail,
  { type: "step_start", step: 2 },
  { type: "step_finish", step: 2 },
  { type: "turn_finish", status: "completed", finish_reason: "stop" },
];

describe("approval chunks through the ai package", () => {
  it("the pause leaves the part approval-requested, with the approval id, reason, signature and resolved input", async () => {
    const { message, errors } = await assembleFrom(await parseWithSdk(toSse(encodeAll(APPROVAL_PAUSE))));
    expect(errors).toEqual([]);
    const part = toolPart(message);
    expect(part?.state).toBe("approval-requested");
    expect(part?.approval).toEqual({
      id: "apr_1",
      descriptor: { tool_name: "charge_card", resolved_input: { amount: 42 } },
      requestReason: '"charge_card" requires approval before it runs',
      signature: "c2lnbmF0dXJl",
    });
  });

  it("an approved call's output in the resumed segment completes the same part", async () => {
    const paused = await assembleFrom(await parseWithSdk(toSse(encodeAll(APPROVAL_PAUSE))));
    const tail = encodeAll(
      resumed([
        { type: "approval_answer", approval_id: "apr_1", approved: true },
        { type: "tool_output", tool_use_id: "toolu_charge", content: '{"ok":true}', is_error: false, earlier: true },
      ]),
    );
    const { message, errors } = await assembleFrom(await parseWithSdk(toSse(tail)), respond(paused.message, true));
    expect(errors).toEqual([]);
    const part = toolPart(message);
    expect(part?.state).toBe("output-available");
    expect(part?.output).toEqual({ ok: true });
    expect(message.parts.filter((p) => p.type === "dynamic-tool")).toHaveLength(1);
  });

  it("a declined call becomes output-denied in the resumed segment", async () => {
    const paused = await assembleFrom(await parseWithSdk(toSse(encodeAll(APPROVAL_PAUSE))));
    const tail = encodeAll(
      resumed([
        { type: "approval_answer", approval_id: "apr_1", approved: false, reason: "too much" },
        { type: "tool_denied", tool_use_id: "toolu_charge" },
      ]),
    );
    const { message, errors } = await assembleFrom(await parseWithSdk(toSse(tail)), respond(paused.message, false));
    expect(errors).toEqual([]);
    expect(toolPart(message)?.state).toBe("output-denied");
  });

  it("a client that did not answer itself (approved from another app) sees the answer, then the output", async () => {
    const paused = await assembleFrom(await parseWithSdk(toSse(encodeAll(APPROVAL_PAUSE))));
    const tail = encodeAll(
      resumed([
        { type: "approval_answer", approval_id: "apr_1", approved: true, reason: "ok from Slack" },
        { type: "tool_output", tool_use_id: "toolu_charge", content: "done", is_error: false, earlier: true },
      ]),
    );
    const { message, errors } = await assembleFrom(await parseWithSdk(toSse(tail)), paused.message);
    expect(errors).toEqual([]);
    const part = toolPart(message);
    expect(part?.state).toBe("output-available");
    expect(part?.approval).toMatchObject({ id: "apr_1", approved: true, reason: "ok from Slack" });
  });
});
