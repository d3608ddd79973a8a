// The web client's transcript from the live useChat messages (fromUiMessages): text, each tool part by its state,
// approval requests with what the person approves, and compaction data parts.
import type { UIMessage, UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { fromUiMessages } from "../../../web/src/from-live.ts";
import { encodeAll } from "../session/stream/assemble.ts";
import { assembled } from "./transcript-fixtures.ts";

describe("fromUiMessages", () => {
  it("maps text, dynamic tool parts by state, and compaction data parts", () => {
    const messages = [
      {
        id: "m1",
        role: "assistant",
        parts: [
          { type: "text", text: "Checking." },
          {
            type: "dynamic-tool",
            toolName: "get_weather",
            toolCallId: "c1",
            state: "input-available",
            input: {},
            providerExecuted: true,
          },
          {
            type: "dynamic-tool",
            toolName: "lookup",
            toolCallId: "c2",
            state: "output-error",
            input: {},
            errorText: "boom",
          },
          { type: "data-compaction", data: { boundary_seq: 10 } },
        ],
      },
    ] as UIMessage[];
    const [entry] = fromUiMessages(messages);
    expect(entry?.blocks.map((b) => (b.kind === "tool" ? `${b.name}:${b.state}:${b.output}` : b.kind))).toEqual([
      "text",
      "get_weather:running:",
      "lookup:error:boom",
      "notice",
    ]);
  });

  it("shows a client tool's call (not run by the server) as waiting for an app, not as running forever", () => {
    const messages = [
      {
        id: "m-client-live",
        role: "assistant",
        parts: [
          { type: "dynamic-tool", toolName: "pick_file", toolCallId: "cc1", state: "input-available", input: {} },
          { type: "dynamic-tool", toolName: "pick_color", toolCallId: "cc2", state: "input-streaming", input: {} },
        ],
      },
    ] as UIMessage[];
    const [entry] = fromUiMessages(messages);
    expect(entry?.blocks.map((b) => (b.kind === "tool" ? `${b.name}:${b.state}` : b.kind))).toEqual([
      "pick_file:client",
      "pick_color:client",
    ]);
  });

  /** A step of a client call `cx` waiting for an app beside `charge_card`, whose approval this page answered. */
  function answeredBesideClientCall(id: string, approval: { approved: boolean; reason?: string }): UIMessage[] {
    return [
      {
        id,
        role: "assistant",
        parts: [
          { type: "dynamic-tool", toolName: "pick_file", toolCallId: `cx-${id}`, state: "input-available", input: {} },
          {
            type: "dynamic-tool",
            toolName: "charge_card",
            toolCallId: `ca-${id}`,
            state: "approval-responded",
            input: { amount: 9 },
            approval: { id: `apr-${id}`, ...approval },
            providerExecuted: true,
          },
        ],
      },
    ] as UIMessage[];
  }

  it("shows a call approved beside a client call waiting for an app as approved and held back, not as running", () => {
    const [entry] = fromUiMessages(answeredBesideClientCall("m-held-approved", { approved: true }));
    expect(entry?.blocks.map((b) => (b.kind === "tool" ? `${b.name}:${b.state}` : b.kind))).toEqual([
      "pick_file:client",
      "charge_card:approved",
    ]);
  });

  it("shows a call denied beside a client call waiting for an app as declined with the reason, not as running", () => {
    const [entry] = fromUiMessages(answeredBesideClientCall("m-held-denied", { approved: false, reason: "no" }));
    expect(entry?.blocks[1]).toMatchObject({ name: "charge_card", state: "denied", output: "Declined: no" });
  });

  it("turns an approval request into a block with the approval to answer, and a denial into denied", () => {
    const messages = [
      {
        id: "m2",
        role: "assistant",
        parts: [
          {
            type: "dynamic-tool",
            toolName: "charge_card",
            toolCallId: "c3",
            state: "approval-requested",
            input: { amount: 5 },
            approval: { id: "apr_1", requestReason: '"charge_card" requires approval before it runs' },
          },
          {
            type: "dynamic-tool",
            toolName: "refund_card",
            toolCallId: "c4",
            state: "output-denied",
            input: { amount: 7 },
            approval: { id: "apr_2", approved: false, reason: "not today" },
          },
          {
            type: "dynamic-tool",
            toolName: "send_email",
            toolCallId: "c5",
            state: "approval-responded",
            input: {},
            approval: { id: "apr_3", approved: true },
          },
        ],
      },
    ] as UIMessage[];
    const [entry] = fromUiMessages(messages);
    expect(entry?.blocks).toEqual([
      {
        kind: "tool",
        id: "c3",
        name: "charge_card",
        state: "approval",
        input: { amount: 5 },
        output: "",
        approval: { id: "apr_1", reason: '"charge_card" requires approval before it runs' },
      },
      {
        kind: "tool",
        id: "c4",
        name: "refund_card",
        state: "denied",
        input: { amount: 7 },
        output: "Declined: not today",
      },
      { kind: "tool", id: "c5", name: "send_email", state: "approved", heldBy: "approval", input: {}, output: "" },
    ]);
  });
});

describe("fromUiMessages of a streamed approval request", () => {
  it("shows the values a call with $tool references runs with, from the request's descriptor", async () => {
    const chunks = encodeAll([
      { type: "turn_start", turn_id: "t-live-resolved", message_id: "msg_t-live-resolved" },
      { type: "step_start", step: 1 },
      {
        type: "provider",
        event: {
          type: "block_stop",
          index: 0,
          part: {
            type: "tool_use",
            id: "c-live-resolved",
            name: "charge_card",
            input: { amount: { $tool: "c-quote", $path: "echo.input.amount" } },
          },
        },
      },
      {
        type: "approval_request",
        approval_id: "apr_live_resolved",
        tool_use_id: "c-live-resolved",
        tool: "charge_card",
        reason: "needs approval",
        signature: "sig",
        resolved_input: { amount: 4200 },
      },
      { type: "step_finish", step: 1 },
      { type: "turn_finish", status: "awaiting_approval", finish_reason: "tool-calls" },
    ]) as UIMessageChunk[];
    const last = await assembled(chunks);
    expect(fromUiMessages(last ? [last] : [])[0]?.blocks[0]).toMatchObject({
      state: "approval",
      approval: { id: "apr_live_resolved", resolvedInput: { amount: 4200 } },
    });
  });
});
