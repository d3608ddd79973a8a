// The web client's approvals handed back to useChat: one left open in the stored history moved into the turn's live
// message (takeOpenApprovals), so the resumed segment continues it, and one whose answer never reached the server
// opened again (reopenApprovals).
import { readUIMessageStream, type UIMessage, type UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { fromHistory, type PausedStep, type StoredMessage } from "../../../web/src/from-history.ts";
import { fromUiMessages } from "../../../web/src/from-live.ts";
import { reopenApprovals, takeOpenApprovals } from "../../../web/src/open-approvals.ts";
import { encodeAll } from "../session/stream/assemble.ts";
import { approval, pausedElsewhere, pauseElsewhere } from "./transcript-fixtures.ts";

describe("reopenApprovals", () => {
  it("gives an approval whose answer never reached the server its request back, as useChat first showed it", () => {
    const asked = {
      type: "dynamic-tool",
      toolName: "charge_card",
      toolCallId: "c11",
      state: "approval-requested",
      input: { amount: 11 },
      approval: { id: "apr_11", requestReason: "needs approval", signature: "sig_11" },
    } as const;
    const answered = {
      ...asked,
      state: "approval-responded",
      approval: { ...asked.approval, approved: false, reason: "no" },
    };
    const messages = [
      { id: "u11", role: "user", parts: [{ type: "text", text: "charge 11" }] },
      { id: "msg_t11", role: "assistant", parts: [{ type: "text", text: "Asking." }, answered] },
    ] as UIMessage[];
    const answeredHere = new Set(["apr_11"]);
    expect(reopenApprovals(messages, answeredHere)).toEqual([
      messages[0],
      { ...messages[1], parts: [{ type: "text", text: "Asking." }, asked] },
    ]);
    expect(fromUiMessages(reopenApprovals(messages, answeredHere))[1]?.blocks[1]).toMatchObject({ state: "approval" });
  });

  it("leaves an approval approved elsewhere answered: only the ones this page answered reopen", () => {
    const pause: PausedStep = {
      approvals: [approval("ap_A12", "c12a", "pending", "needs approval"), approval("ap_D12", "c12d", "approved")],
      calls: [
        { id: "c12a", execution: "http", state: "pending" },
        { id: "c12d", execution: "http", state: "pending" },
      ],
    };
    const stored: StoredMessage[] = [
      { seq: 1, role: "user", origin: "client", turn_id: "t12", parts: [{ type: "text", text: "charge, email" }] },
      {
        seq: 2,
        role: "assistant",
        origin: "model",
        turn_id: "t12",
        parts: [
          { type: "tool_use", id: "c12a", name: "charge_card", input: { amount: 12 } },
          { type: "tool_use", id: "c12d", name: "send_email", input: { to: "a@b.c" } },
        ],
      },
    ];
    const { seed } = takeOpenApprovals(fromHistory(stored, null, pause));
    // What addToolApprovalResponse({id: "ap_A12", approved: false}) makes of the seed before the send fails.
    const answered = {
      ...seed,
      parts: seed?.parts.map((p) =>
        p.type === "dynamic-tool" && p.state === "approval-requested"
          ? { ...p, state: "approval-responded", approval: { ...p.approval, approved: false } }
          : p,
      ),
    } as UIMessage;
    const reopened = reopenApprovals([answered], new Set(["ap_A12"]));
    expect(reopened[0]?.parts).toEqual(seed?.parts);
    expect(fromUiMessages(reopened)[0]?.blocks.map((b) => b.kind === "tool" && [b.id, b.state])).toEqual([
      ["c12a", "approval"],
      ["c12d", "approved"],
    ]);
  });
});

describe("takeOpenApprovals", () => {
  const paused: StoredMessage[] = [
    { seq: 1, role: "user", origin: "client", turn_id: "t7", parts: [{ type: "text", text: "charge 5, refund 2" }] },
    {
      seq: 2,
      role: "assistant",
      origin: "model",
      turn_id: "t7",
      parts: [
        { type: "text", text: "On it." },
        { type: "tool_use", id: "c7", name: "charge_card", input: { amount: 5 } },
        { type: "tool_use", id: "c8", name: "refund_card", input: { amount: 2 } },
      ],
    },
  ];
  const pending: PausedStep = {
    approvals: [approval("apr_7", "c7", "pending", "needs approval"), approval("apr_8", "c8", "pending", "")],
    calls: [
      { id: "c7", execution: "http", state: "pending" },
      { id: "c8", execution: "http", state: "pending" },
    ],
  };

  it("moves the newest entry's waiting calls into the turn's assistant UI message, as useChat holds them live", () => {
    const { earlier, seed, turnId } = takeOpenApprovals(fromHistory(paused, null, pending));
    expect(turnId).toBe("t7");
    expect(seed).toEqual({
      id: "msg_t7",
      role: "assistant",
      parts: [
        {
          type: "dynamic-tool",
          toolName: "charge_card",
          toolCallId: "c7",
          state: "approval-requested",
          input: { amount: 5 },
          approval: {
            id: "apr_7",
            descriptor: { tool_name: "charge_card" },
            requestReason: "needs approval",
            signature: "sig_apr_7",
          },
        },
        {
          type: "dynamic-tool",
          toolName: "refund_card",
          toolCallId: "c8",
          state: "approval-requested",
          input: { amount: 2 },
          approval: { id: "apr_8", descriptor: { tool_name: "refund_card" }, signature: "sig_apr_8" },
        },
      ],
    });
    expect(earlier.map((e) => e.blocks)).toEqual([
      [{ kind: "text", text: "charge 5, refund 2" }],
      [{ kind: "text", text: "On it." }],
    ]);
    expect(
      fromUiMessages(seed ? [seed] : []).flatMap((e) => e.blocks.map((b) => b.kind === "tool" && b.state)),
    ).toEqual(["approval", "approval"]);
  });

  it("leaves a transcript with nothing waiting as it is", () => {
    const entries = fromHistory(paused);
    expect(takeOpenApprovals(entries)).toEqual({ earlier: entries, seed: null, turnId: null });
  });

  it("seeds every call of the paused step, the ones answered elsewhere as useChat would hold them live", () => {
    const { earlier, seed } = takeOpenApprovals(fromHistory(pausedElsewhere, null, pauseElsewhere));
    const base = (id: string, toolName: string, input: unknown) => ({
      type: "dynamic-tool",
      toolName,
      toolCallId: id,
      input,
    });
    expect(seed?.parts).toEqual([
      {
        ...base("c1", "charge_card", { amount: 5 }),
        state: "approval-requested",
        approval: {
          id: "ap_A",
          descriptor: { tool_name: "charge_card" },
          requestReason: "needs approval",
          signature: "sig_ap_A",
        },
      },
      {
        ...base("c2", "refund_card", { amount: 2 }),
        state: "output-denied",
        approval: { id: "ap_B", approved: false, reason: "not today" },
      },
      { ...base("c3", "lookup", { q: "card" }), state: "output-available", output: "visa", providerExecuted: true },
      {
        ...base("c4", "send_email", { to: "a@b.c" }),
        state: "approval-responded",
        approval: { id: "ap_D", approved: true, signature: "sig_ap_D" },
      },
    ]);
    expect(earlier.at(-1)?.blocks).toEqual([{ kind: "text", text: "On it." }]);
  });

  it("lets the resumed segment continue the seeded message after approvals answered elsewhere (no throw)", async () => {
    const { seed } = takeOpenApprovals(fromHistory(pausedElsewhere, null, pauseElsewhere));
    // What addToolApprovalResponse({id: "ap_A", approved: true}) makes of it before useChat sends it back.
    const answered = {
      ...seed,
      parts: seed?.parts.map((p) =>
        p.type === "dynamic-tool" && p.state === "approval-requested"
          ? { ...p, state: "approval-responded", approval: { ...p.approval, approved: true } }
          : p,
      ),
    } as UIMessage;
    // The resumed segment as the server streams it (approval-resume.ts): every approval of the pause by its id,
    // the declined call denied, the approved ones' outputs, then the next step.
    const tail = encodeAll([
      { type: "turn_start", turn_id: "tp", message_id: "msg_tp" },
      { type: "approval_answer", approval_id: "ap_A", approved: true },
      { type: "approval_answer", approval_id: "ap_B", approved: false, reason: "not today" },
      { type: "tool_denied", tool_use_id: "c2" },
      { type: "approval_answer", approval_id: "ap_D", approved: true },
      { type: "tool_output", tool_use_id: "c1", content: "charged", is_error: false, earlier: true },
      { type: "tool_output", tool_use_id: "c4", content: "sent", is_error: false, earlier: true },
      { type: "step_start", step: 2 },
      { type: "step_finish", step: 2 },
      { type: "turn_finish", status: "completed", finish_reason: "stop" },
    ]) as UIMessageChunk[];
    const errors: unknown[] = [];
    let last: UIMessage | undefined;
    const stream = new ReadableStream<UIMessageChunk>({
      start(controller) {
        for (const c of tail) controller.enqueue(c);
        controller.close();
      },
    });
    for await (const snap of readUIMessageStream({ message: answered, stream, onError: (e) => errors.push(e) })) {
      last = snap;
    }
    expect(errors).toEqual([]);
    expect(
      fromUiMessages(last ? [last] : []).flatMap((e) => e.blocks.map((b) => b.kind === "tool" && b.state)),
    ).toEqual(["done", "denied", "done", "done"]);
  });
});

describe("takeOpenApprovals with a client call in the paused step", () => {
  /** A step paused on an approval of the server call `ca`, beside a client call `cx` (an app runs it). */
  function pausedWithClient(turn: string): StoredMessage[] {
    return [
      { seq: 1, role: "user", origin: "client", turn_id: turn, parts: [{ type: "text", text: "charge and pick" }] },
      {
        seq: 2,
        role: "assistant",
        origin: "model",
        turn_id: turn,
        parts: [
          { type: "tool_use", id: "ca", name: "charge_card", input: { amount: 5 } },
          { type: "tool_use", id: "cx", name: "pick_file", input: {} },
        ],
      },
    ];
  }

  /** The seed after the person approved `ca` (what addToolApprovalResponse makes of it), then the resumed segment. */
  async function resume(seed: UIMessage | null, turn: string, events: Parameters<typeof encodeAll>[0]) {
    const answered = {
      ...seed,
      parts: seed?.parts.map((p) =>
        p.type === "dynamic-tool" && p.state === "approval-requested"
          ? { ...p, state: "approval-responded", approval: { ...p.approval, approved: true } }
          : p,
      ),
    } as UIMessage;
    const chunks = encodeAll([{ type: "turn_start", turn_id: turn, message_id: `msg_${turn}` }, ...events]);
    const stream = new ReadableStream<UIMessageChunk>({
      start(controller) {
        for (const c of chunks as UIMessageChunk[]) controller.enqueue(c);
        controller.close();
      },
    });
    const errors: unknown[] = [];
    let last: UIMessage | undefined;
    for await (const snap of readUIMessageStream({ message: answered, stream, onError: (e) => errors.push(e) })) {
      last = snap;
    }
    return { errors, last };
  }

  it("seeds a client call still awaited at load, so the app's result the resumed segment opens with finds it", async () => {
    const pause: PausedStep = {
      approvals: [approval("ap_ca", "ca", "pending", "needs approval")],
      calls: [
        { id: "ca", execution: "http", state: "pending" },
        { id: "cx", execution: "client", state: "pending" },
      ],
    };
    const { seed } = takeOpenApprovals(fromHistory(pausedWithClient("t-seed-cx"), null, pause));
    expect(seed?.parts[1]).toEqual({
      type: "dynamic-tool",
      toolName: "pick_file",
      toolCallId: "cx",
      input: {},
      state: "input-available",
    });
    expect(fromUiMessages(seed ? [seed] : [])[0]?.blocks.map((b) => b.kind === "tool" && b.state)).toEqual([
      "approval",
      "client",
    ]);
    // An app answered cx after the page loaded; the segment the approval resumes opens with that result.
    const { errors, last } = await resume(seed, "t-seed-cx", [
      { type: "tool_output", tool_use_id: "cx", content: "a.txt", is_error: false, earlier: true },
      { type: "tool_output", tool_use_id: "ca", content: "charged", is_error: false, earlier: true },
    ]);
    expect(errors).toEqual([]);
    expect(fromUiMessages(last ? [last] : [])[0]?.blocks.map((b) => b.kind === "tool" && b.state)).toEqual([
      "done",
      "done",
    ]);
  });

  it("seeds a client call answered before the load with its output, which the resumed segment tells again", async () => {
    const pause: PausedStep = {
      approvals: [approval("ap_ca2", "ca", "pending", "needs approval")],
      calls: [
        { id: "ca", execution: "http", state: "pending" },
        { id: "cx", execution: "client", state: "resolved", result: "a.txt", is_error: false },
      ],
    };
    const { seed } = takeOpenApprovals(fromHistory(pausedWithClient("t-seed-cx2"), null, pause));
    expect(seed?.parts[1]).toEqual({
      type: "dynamic-tool",
      toolName: "pick_file",
      toolCallId: "cx",
      input: {},
      state: "output-available",
      output: "a.txt",
    });
    const { errors, last } = await resume(seed, "t-seed-cx2", [
      { type: "tool_output", tool_use_id: "cx", content: "a.txt", is_error: false, earlier: true },
    ]);
    expect(errors).toEqual([]);
    expect(fromUiMessages(last ? [last] : [])[0]?.blocks[1]).toMatchObject({ state: "done", output: "a.txt" });
  });
});
