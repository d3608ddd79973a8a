// The web client's transcript: stored history and live useChat messages become the same entries.
import { readUIMessageStream, type UIMessage, type UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import {
  answerableAt,
  closedCalls,
  type Entry,
  fromHistory,
  fromUiMessages,
  openCalls,
  outcomeNotice,
  outcomeNotices,
  type PausedStep,
  pauseMovedOn,
  reopenApprovals,
  type StoredMessage,
  takeOpenApprovals,
  withClosedCalls,
  withOutcomes,
  withoutLiveTurns,
} from "../../../web/src/transcript.ts";
import { encodeAll } from "../session/stream/assemble.ts";

/** The assistant message the AI SDK assembles from a whole stream of chunks (as useChat shows it live). */
async function assembled(chunks: UIMessageChunk[]): Promise<UIMessage | undefined> {
  let last: UIMessage | undefined;
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const c of chunks) controller.enqueue(c);
      controller.close();
    },
  });
  for await (const snap of readUIMessageStream({ stream })) last = snap;
  return last;
}

const history: StoredMessage[] = [
  { seq: 1, role: "user", origin: "client", turn_id: "t1", parts: [{ type: "text", text: "weather?" }] },
  {
    seq: 2,
    role: "assistant",
    origin: "model",
    turn_id: "t1",
    parts: [
      { type: "text", text: "Checking." },
      { type: "tool_use", id: "c1", name: "get_weather", input: { city: "Paris" } },
    ],
  },
  {
    seq: 3,
    role: "user",
    origin: "tool",
    turn_id: "t1",
    parts: [{ type: "tool_result", tool_use_id: "c1", content: [{ type: "text", text: "sunny" }], is_error: false }],
  },
  { seq: 4, role: "assistant", origin: "model", turn_id: "t1", parts: [{ type: "text", text: "Sunny." }] },
  { seq: 5, role: "user", origin: "client", turn_id: "t2", parts: [{ type: "text", text: "and tomorrow?" }] },
  { seq: 6, role: "assistant", origin: "model", turn_id: "t2", parts: [{ type: "text", text: "Tomor" }] },
];

/** An approval of a pause as `GET /v1/sessions/{id}` shows it in `pause` (its signature: `sig_` + its id). */
function approval(
  id: string,
  callId: string,
  status: PausedStep["approvals"][number]["status"],
  reason = "",
  decided: string | null = null,
): PausedStep["approvals"][number] {
  return { approval_id: id, tool_call_id: callId, reason, signature: `sig_${id}`, status, decided_reason: decided };
}

/**
 * A step paused for approval after a reload: c1 waits for the person, c2 was declined elsewhere ("not today"),
 * c3 (a server tool beside them) ran, c4 was approved elsewhere and runs when the turn resumes. The history has
 * the calls without results: they stay in the ledger until the step closes.
 */
const pausedElsewhere: StoredMessage[] = [
  { seq: 1, role: "user", origin: "client", turn_id: "tp", parts: [{ type: "text", text: "do all four" }] },
  {
    seq: 2,
    role: "assistant",
    origin: "model",
    turn_id: "tp",
    parts: [
      { type: "text", text: "On it." },
      { type: "tool_use", id: "c1", name: "charge_card", input: { amount: 5 } },
      { type: "tool_use", id: "c2", name: "refund_card", input: { amount: 2 } },
      { type: "tool_use", id: "c3", name: "lookup", input: { q: "card" } },
      { type: "tool_use", id: "c4", name: "send_email", input: { to: "a@b.c" } },
    ],
  },
];
const pauseElsewhere: PausedStep = {
  approvals: [
    approval("ap_A", "c1", "pending", "needs approval"),
    approval("ap_B", "c2", "declined", "", "not today"),
    approval("ap_D", "c4", "approved"),
  ],
  calls: [
    { id: "c1", execution: "http", state: "pending" },
    { id: "c2", execution: "http", state: "resolved", result: "the user declined: not today", is_error: true },
    { id: "c3", execution: "http", state: "resolved", result: [{ type: "text", text: "visa" }], is_error: false },
    { id: "c4", execution: "http", state: "pending" },
  ],
};

describe("fromHistory", () => {
  it("folds each tool result into the call it answers instead of showing a user bubble", () => {
    const entries = fromHistory(history);
    expect(entries.map((e) => e.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(entries[1]?.blocks[1]).toEqual({
      kind: "tool",
      id: "c1",
      name: "get_weather",
      state: "done",
      input: { city: "Paris" },
      output: "sunny",
    });
  });

  it("shows a turn's steps as one entry, as useChat holds the turn live", () => {
    const entries = fromHistory(history);
    expect(entries[1]?.id).toBe("h2");
    expect(
      entries[1]?.blocks.map((b) => (b.kind === "tool" ? `tool ${b.id}` : b.kind === "text" ? b.text : "")),
    ).toEqual(["Checking.", "tool c1", "Sunny."]);
  });

  it("pretty-prints a JSON object tool result as the live stream shows it", () => {
    const stored: StoredMessage[] = [
      {
        seq: 1,
        role: "assistant",
        origin: "model",
        turn_id: "tj",
        parts: [{ type: "tool_use", id: "cj", name: "get_weather", input: {} }],
      },
      {
        seq: 2,
        role: "user",
        origin: "tool",
        turn_id: "tj",
        parts: [{ type: "tool_result", tool_use_id: "cj", content: '{"temp_c":21,"sky":"clear"}', is_error: false }],
      },
    ];
    const live = fromUiMessages([
      {
        id: "msg_tj",
        role: "assistant",
        parts: [
          {
            type: "dynamic-tool",
            toolName: "get_weather",
            toolCallId: "cj",
            state: "output-available",
            input: {},
            output: { temp_c: 21, sky: "clear" },
          },
        ],
      },
    ] as UIMessage[]);
    const reloaded = fromHistory(stored)[0]?.blocks[0];
    expect(reloaded).toMatchObject({ state: "done", output: '{\n  "temp_c": 21,\n  "sky": "clear"\n}' });
    expect(reloaded).toEqual(live[0]?.blocks[0]);
  });

  it("leaves out what the model wrote in the live turn (the resumed stream replays it), keeps the user's message", () => {
    const entries = fromHistory(history, "t2");
    expect(entries.at(-1)).toEqual({
      id: "h5",
      role: "user",
      blocks: [{ kind: "text", text: "and tomorrow?" }],
      turnId: "t2",
    });
    expect(entries.flatMap((e) => e.blocks).some((b) => b.kind === "text" && b.text === "Tomor")).toBe(false);
  });

  it("marks a call whose approval is still pending as waiting for the person, with the approval to answer", () => {
    const stored: StoredMessage[] = [
      { seq: 1, role: "user", origin: "client", turn_id: "t9", parts: [{ type: "text", text: "charge 5" }] },
      {
        seq: 2,
        role: "assistant",
        origin: "model",
        turn_id: "t9",
        parts: [{ type: "tool_use", id: "c9", name: "charge_card", input: { amount: 5 } }],
      },
    ];
    const entries = fromHistory(stored, null, {
      approvals: [approval("apr_9", "c9", "pending", "needs approval")],
      calls: [{ id: "c9", execution: "http", state: "pending" }],
    });
    expect(entries[1]?.blocks[0]).toMatchObject({
      kind: "tool",
      id: "c9",
      name: "charge_card",
      state: "approval",
      input: { amount: 5 },
      output: "",
      approval: { id: "apr_9", reason: "needs approval" },
    });
    expect(fromHistory(stored)[1]?.blocks[0]).toMatchObject({ state: "running" });
  });

  it("shows a paused call with $tool references with the values it runs with, its resolved_input", () => {
    const stored: StoredMessage[] = [
      { seq: 1, role: "user", origin: "client", turn_id: "t-resolved", parts: [{ type: "text", text: "charge it" }] },
      {
        seq: 2,
        role: "assistant",
        origin: "model",
        turn_id: "t-resolved",
        parts: [
          {
            type: "tool_use",
            id: "c-resolved",
            name: "charge_card",
            input: { amount: { $tool: "c-quote", $path: "echo.input.amount" } },
          },
        ],
      },
    ];
    const entries = fromHistory(stored, null, {
      approvals: [{ ...approval("apr_resolved", "c-resolved", "pending"), resolved_input: { amount: 4200 } }],
      calls: [{ id: "c-resolved", execution: "http", state: "pending" }],
    });
    expect(entries[1]?.blocks[0]).toMatchObject({
      state: "approval",
      input: { amount: { $tool: "c-quote", $path: "echo.input.amount" } },
      approval: { id: "apr_resolved", resolvedInput: { amount: 4200 } },
    });
    // Taken into useChat (takeOpenApprovals), the call shows the same as a live request shows it.
    const { seed } = takeOpenApprovals(entries);
    expect(fromUiMessages(seed ? [seed] : [])[0]?.blocks[0]).toMatchObject({
      approval: { id: "apr_resolved", resolvedInput: { amount: 4200 } },
    });
  });

  it("shows a client call the paused turn still awaits as waiting for an app, not as running", () => {
    const stored: StoredMessage[] = [
      { seq: 1, role: "user", origin: "client", turn_id: "t-client", parts: [{ type: "text", text: "pick one" }] },
      {
        seq: 2,
        role: "assistant",
        origin: "model",
        turn_id: "t-client",
        parts: [{ type: "tool_use", id: "cc9", name: "pick_file", input: {} }],
      },
    ];
    const entries = fromHistory(stored, null, {
      approvals: [],
      calls: [{ id: "cc9", execution: "client", state: "pending" }],
    });
    expect(entries[1]?.blocks[0]).toMatchObject({ kind: "tool", id: "cc9", state: "client" });
  });

  it("shows a call approved beside a client call still awaited as approved and held back, not as running", () => {
    const stored: StoredMessage[] = [
      { seq: 1, role: "user", origin: "client", turn_id: "t-held", parts: [{ type: "text", text: "pick, charge" }] },
      {
        seq: 2,
        role: "assistant",
        origin: "model",
        turn_id: "t-held",
        parts: [
          { type: "tool_use", id: "cx-held", name: "pick_file", input: {} },
          { type: "tool_use", id: "ca-held", name: "charge_card", input: { amount: 8 } },
        ],
      },
    ];
    const entries = fromHistory(stored, null, {
      approvals: [approval("apr_held", "ca-held", "approved")],
      calls: [
        { id: "cx-held", execution: "client", state: "pending" },
        { id: "ca-held", execution: "http", state: "pending" },
      ],
    });
    expect(entries[1]?.blocks.map((b) => (b.kind === "tool" ? `${b.name}:${b.state}` : b.kind))).toEqual([
      "pick_file:client",
      "charge_card:approved",
    ]);
  });

  it("shows a call the person declined as denied with the reason, as it showed live, not as a failed call", () => {
    const declined = (seq: number, id: string, content: string): StoredMessage[] => [
      {
        seq,
        role: "assistant",
        origin: "model",
        turn_id: `t${seq}`,
        parts: [{ type: "tool_use", id, name: "charge_card", input: { amount: seq } }],
      },
      {
        seq: seq + 1,
        role: "user",
        origin: "tool",
        turn_id: `t${seq}`,
        parts: [{ type: "tool_result", tool_use_id: id, content, is_error: true }],
      },
    ];
    const entries = fromHistory([
      ...declined(1, "d1", "the user declined: too much"),
      ...declined(3, "d2", "the user declined: no reason given"),
    ]);
    const live = fromUiMessages([
      {
        id: "m1",
        role: "assistant",
        parts: [
          {
            type: "dynamic-tool",
            toolName: "charge_card",
            toolCallId: "d1",
            state: "output-denied",
            input: { amount: 1 },
            approval: { id: "apr_d1", approved: false, reason: "too much" },
          },
        ],
      },
    ] as UIMessage[]);
    expect(entries.map((e) => e.blocks[0])).toEqual([
      live[0]?.blocks[0],
      { kind: "tool", id: "d2", name: "charge_card", state: "denied", input: { amount: 3 }, output: "Declined" },
    ]);
  });

  it("shows the notice of Switchboard's own compaction before the first message its summary kept", () => {
    const notice = { kind: "notice", text: expect.stringContaining("summarised") };
    const entries = fromHistory(history, null, null, [{ before_seq: 4 }]);
    expect(entries.map((e) => e.id)).toEqual(["h1", "h2", "compaction-4", "h4", "h5", "h6"]);
    expect(entries[2]?.blocks).toEqual([notice]);
  });

  it("leaves out the compaction of the live turn, whose resumed stream replays it, even before an earlier turn", () => {
    const entries = fromHistory(history, "t2", null, [{ before_seq: 4, turn_id: "t2" }]);
    expect(entries.map((e) => e.id)).toEqual(["h1", "h2", "h5"]);
  });

  it("shows a native compaction once: its part in the kept message, not the compaction marker too", () => {
    const kept: StoredMessage = {
      seq: 7,
      role: "assistant",
      origin: "model",
      turn_id: "t3",
      parts: [
        { type: "compaction", content: "summary" },
        { type: "text", text: "Go on." },
      ],
    };
    const entries = fromHistory([...history, kept], null, null, [{ before_seq: 7 }]);
    expect(entries.flatMap((e) => e.blocks).filter((b) => b.kind === "notice")).toHaveLength(1);
    expect(entries.at(-1)?.id).toBe("h7");
  });

  it("shows the paused step's calls answered elsewhere as the pause says, not as running", () => {
    const tools = fromHistory(pausedElsewhere, null, pauseElsewhere)[1]?.blocks.filter((b) => b.kind === "tool");
    expect(tools?.map((b) => [b.id, b.state])).toEqual([
      ["c1", "approval"],
      ["c2", "denied"],
      ["c3", "done"],
      ["c4", "approved"],
    ]);
    expect(tools?.[2]).toMatchObject({ output: "visa" });
  });

  it("announces tool-set changes as notices", () => {
    const entries = fromHistory([
      {
        seq: 1,
        role: "user",
        origin: "system",
        turn_id: "t1",
        parts: [{ type: "notice", kind: "tools_changed", text: "<tools_added>", added: ["send_email"], removed: [] }],
      },
    ]);
    expect(entries[0]?.blocks).toEqual([{ kind: "notice", text: "Tools added: send_email" }]);
  });

  it("says how many more a change too large to list names, as its text does", () => {
    const text =
      "<tools_added>a1, a2, ...and 4998 more (tool_search finds them)</tools_added>\n<tools_removed>r1</tools_removed>";
    const entries = fromHistory([
      {
        seq: 1,
        role: "user",
        origin: "system",
        turn_id: "t1",
        parts: [{ type: "notice", kind: "tools_changed", text, added: ["a1", "a2"], removed: ["r1"] }],
      },
    ]);
    expect(entries[0]?.blocks).toEqual([
      { kind: "notice", text: "Tools added: a1, a2 and 4998 more" },
      { kind: "notice", text: "Tools removed: r1" },
    ]);
  });
});

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

describe("withoutLiveTurns", () => {
  const live = [
    { id: "msg_t2", role: "assistant", parts: [{ type: "text", text: "Tomorrow is rainy." }] },
  ] as UIMessage[];

  it("leaves out what the model wrote in a turn useChat streams, keeping that turn's user message", () => {
    const shown = withoutLiveTurns(fromHistory(history), live, new Set());
    expect(shown.map((e) => e.id)).toEqual(["h1", "h2", "h5"]);
  });

  it("keeps the stored entries of a turn whose live message only continues them", () => {
    const entries = fromHistory(history);
    expect(withoutLiveTurns(entries, live, new Set(["t2"]))).toEqual(entries);
  });
});

describe("outcomeNotice", () => {
  it("names a stopped, failed or cut-off turn, and one ended by a limit", () => {
    expect(outcomeNotice({ status: "cancelled", finish_reason: "cancelled" })).toBe("Stopped.");
    expect(outcomeNotice({ status: "failed", error: { message: "provider_http_error: bad thing" } })).toBe(
      "The answer failed: provider_http_error: bad thing",
    );
    expect(outcomeNotice({ status: "interrupted" })).toMatch(/cut off: the session restarted/);
    expect(outcomeNotice({ status: "completed", finish_reason: "max_steps" })).toMatch(/step limit/);
    expect(outcomeNotice({ status: "completed", finish_reason: "max_tokens" })).toMatch(/output limit/);
  });

  it("says nothing for a plain answer or a turn that is not over", () => {
    expect(outcomeNotice({ status: "completed", finish_reason: "end_turn" })).toBeNull();
    expect(outcomeNotice({ status: "awaiting_approval" })).toBeNull();
    expect(outcomeNotice({ status: "running" })).toBeNull();
  });
});

describe("outcomeNotices", () => {
  it("gives every listed turn that did not simply answer its line, in order, each turn once", () => {
    const turns = [
      { id: "t1", status: "failed", error: { message: "provider_http_error: 500" } },
      { id: "t2", status: "completed", finish_reason: "end_turn" },
      { id: "t3", status: "cancelled", finish_reason: "cancelled" },
      { id: "t3", status: "cancelled", finish_reason: "cancelled" },
    ];
    expect(outcomeNotices(turns)).toEqual([
      { turnId: "t1", text: "The answer failed: provider_http_error: 500" },
      { turnId: "t3", text: "Stopped." },
    ]);
  });
});

describe("withOutcomes", () => {
  it("puts a turn's line after its last stored entry", () => {
    // The compaction notice splits t1's answer in two entries (h2, h4): the line goes after the second.
    const stored = fromHistory(history, null, null, [{ before_seq: 4 }]);
    const shown = withOutcomes(stored, [], new Map([["t1", "Stopped."]]));
    expect(shown.map((e) => e.id)).toEqual(["h1", "h2", "compaction-4", "h4", "h5", "h6"]);
    expect(shown[3]?.blocks.at(-1)).toEqual({ kind: "notice", text: "Stopped." });
    expect(shown[1]?.blocks.some((b) => b.kind === "notice")).toBe(false);
  });

  it("puts it after the live message of the turn (msg_<turn id>)", () => {
    const live = fromUiMessages([
      { id: "u1", role: "user", parts: [{ type: "text", text: "go" }] },
      { id: "msg_t9", role: "assistant", parts: [{ type: "text", text: "Half an ans" }] },
    ] as UIMessage[]);
    const shown = withOutcomes([], live, new Map([["t9", "Stopped."]]));
    expect(shown[1]?.blocks).toEqual([
      { kind: "text", text: "Half an ans" },
      { kind: "notice", text: "Stopped." },
    ]);
  });

  it("gives a turn that wrote nothing an entry of its own after its user message", () => {
    const stored: StoredMessage[] = [
      { seq: 1, role: "user", origin: "client", turn_id: "t1", parts: [{ type: "text", text: "hi" }] },
    ];
    const shown = withOutcomes(fromHistory(stored), [], new Map([["t1", "The answer failed: overloaded"]]));
    expect(shown.map((e) => [e.role, e.blocks])).toEqual([
      ["user", [{ kind: "text", text: "hi" }]],
      ["assistant", [{ kind: "notice", text: "The answer failed: overloaded" }]],
    ]);
  });
});

describe("withOutcomes and live entries", () => {
  it("puts the line of a stored turn that wrote nothing before the live entries, not below the newest turn", () => {
    const stored: StoredMessage[] = [
      { seq: 1, role: "user", origin: "client", turn_id: "t1", parts: [{ type: "text", text: "hi" }] },
      { seq: 2, role: "assistant", origin: "model", turn_id: "t1", parts: [{ type: "text", text: "Hello." }] },
    ];
    const live = fromUiMessages([
      { id: "u3", role: "user", parts: [{ type: "text", text: "charge 9" }] },
      { id: "msg_t3", role: "assistant", parts: [{ type: "text", text: "Asking first." }] },
    ] as UIMessage[]);
    // t2: a retry that failed before the model wrote anything (no entry of its own).
    const shown = withOutcomes(fromHistory(stored), live, new Map([["t2", "The answer failed: overloaded"]]));
    expect(shown.map((e) => e.id)).toEqual(["h1", "h2", "outcome-t2", "u3", "msg_t3"]);
  });
});

describe("answerableAt", () => {
  const approval = (id: string) =>
    ({
      id: `msg_${id}`,
      role: "assistant",
      parts: [
        {
          type: "dynamic-tool",
          toolName: "charge_card",
          toolCallId: `call_${id}`,
          state: "approval-requested",
          input: {},
          approval: { id: `apr_${id}` },
        },
      ],
    }) as unknown as UIMessage;

  it("is the newest entry with a call waiting for approval, even with an outcome line after it", () => {
    const entries = [...fromUiMessages([approval("a")]), { id: "outcome-t9", role: "assistant" as const, blocks: [] }];
    expect(answerableAt(entries)).toBe(0);
  });

  it("is none once a user message follows it (that message declined it)", () => {
    const entries = fromUiMessages([
      approval("a"),
      { id: "u2", role: "user", parts: [{ type: "text", text: "no" }] } as UIMessage,
    ]);
    expect(answerableAt(entries)).toBe(-1);
  });
});

/** A live turn paused on a client call (`cc_<id>`, waiting for an app) beside an approval (`ca_<id>`, asked). */
function pausedLive(id: string): UIMessage {
  return {
    id: `msg_${id}`,
    role: "assistant",
    parts: [
      { type: "dynamic-tool", toolName: "pick_file", toolCallId: `cc_${id}`, state: "input-available", input: {} },
      {
        type: "dynamic-tool",
        toolName: "charge_card",
        toolCallId: `ca_${id}`,
        state: "approval-requested",
        input: { amount: 3 },
        approval: { id: `apr_${id}` },
      },
    ],
  } as UIMessage;
}

/** The `pause` of pausedLive(id) as GET /v1/sessions/{id} shows it while nothing was answered. */
function pauseOf(id: string): PausedStep {
  return {
    approvals: [approval(`apr_${id}`, `ca_${id}`, "pending")],
    calls: [
      { id: `cc_${id}`, execution: "client", state: "pending" },
      { id: `ca_${id}`, execution: "http", state: "pending" },
    ],
  };
}

describe("openCalls", () => {
  it("lists the newest turn's calls waiting for an app or the person, by id with how each shows", () => {
    expect(openCalls(fromUiMessages([pausedLive("oc1")]))).toEqual(
      new Map([
        ["cc_oc1", "client"],
        ["ca_oc1", "approval"],
      ]),
    );
  });

  it("lists none once a user message follows them", () => {
    const user = { id: "u-oc2", role: "user", parts: [{ type: "text", text: "never mind" }] } as UIMessage;
    expect(openCalls(fromUiMessages([pausedLive("oc2"), user])).size).toBe(0);
  });

  it("lists a call approved here while another approval of its step waits as approved and held back, not running", () => {
    // The person approved the first charge; the second still asks. useChat sends neither answer before both are
    // given, so nothing runs: the first is open (a new message closes it, and the page shows how the server did).
    const approvedFirst: UIMessage = {
      id: "msg_oc3",
      role: "assistant",
      parts: [
        {
          type: "dynamic-tool",
          toolName: "charge_card",
          toolCallId: "c1_oc3",
          state: "approval-responded",
          input: { amount: 1 },
          approval: { id: "apr_c1_oc3", approved: true },
        },
        {
          type: "dynamic-tool",
          toolName: "charge_card",
          toolCallId: "c2_oc3",
          state: "approval-requested",
          input: { amount: 2 },
          approval: { id: "apr_c2_oc3" },
        },
      ],
    } as UIMessage;
    const entries = fromUiMessages([approvedFirst]);
    expect(entries[0]?.blocks.map((b) => b.kind === "tool" && `${b.id}:${b.state}`)).toEqual([
      "c1_oc3:approved",
      "c2_oc3:approval",
    ]);
    expect(openCalls(entries)).toEqual(
      new Map([
        ["c1_oc3", "approved"],
        ["c2_oc3", "approval"],
      ]),
    );
  });
});

describe("pauseMovedOn", () => {
  it("is false while the state still holds the shown calls open as shown", () => {
    expect(pauseMovedOn(openCalls(fromUiMessages([pausedLive("pm1")])), pauseOf("pm1"))).toBe(false);
  });

  it("is true once an app answered the client call the page shows waiting", () => {
    const pause = pauseOf("pm2");
    pause.calls[0] = { id: "cc_pm2", execution: "client", state: "resolved", result: "a.txt", is_error: false };
    expect(pauseMovedOn(openCalls(fromUiMessages([pausedLive("pm2")])), pause)).toBe(true);
  });

  it("is true once the turn is not paused any more (resumed or ended)", () => {
    expect(pauseMovedOn(openCalls(fromUiMessages([pausedLive("pm3")])), null)).toBe(true);
  });

  it("is true once an approval the page still offers was answered elsewhere", () => {
    const pause = { ...pauseOf("pm4"), approvals: [approval("apr_pm4", "ca_pm4", "approved")] };
    expect(pauseMovedOn(openCalls(fromUiMessages([pausedLive("pm4")])), pause)).toBe(true);
  });

  it("is false for a call approved here whose answer waits to be sent with the step's others", () => {
    const shown = new Map([["ca_pm5", "approved" as const]]);
    expect(pauseMovedOn(shown, pauseOf("pm5"))).toBe(false);
  });

  it("is false when the page shows nothing open", () => {
    expect(pauseMovedOn(new Map(), null)).toBe(false);
  });
});

describe("closedCalls and withClosedCalls", () => {
  /** The history once a new message superseded pausedLive(id)'s turn: it closed both calls as it was stored. */
  function supersededHistory(id: string): Entry[] {
    return fromHistory([
      { seq: 1, role: "user", origin: "client", turn_id: `t_${id}`, parts: [{ type: "text", text: "pick, charge" }] },
      {
        seq: 2,
        role: "assistant",
        origin: "model",
        turn_id: `t_${id}`,
        parts: [
          { type: "tool_use", id: `cc_${id}`, name: "pick_file", input: {} },
          { type: "tool_use", id: `ca_${id}`, name: "charge_card", input: { amount: 3 } },
        ],
      },
      {
        seq: 3,
        role: "user",
        origin: "client",
        turn_id: `t2_${id}`,
        parts: [
          {
            type: "tool_result",
            tool_use_id: `cc_${id}`,
            content: "tool result unavailable: no result was provided before the next user message",
            is_error: true,
          },
          {
            type: "tool_result",
            tool_use_id: `ca_${id}`,
            content: "the user declined: the user moved on",
            is_error: true,
          },
          { type: "text", text: "never mind" },
        ],
      },
    ]);
  }

  it("shows the calls a new message superseded as the server closed them, not waiting", () => {
    const user = { id: `u-cl1`, role: "user", parts: [{ type: "text", text: "never mind" }] } as UIMessage;
    const live = fromUiMessages([pausedLive("cl1"), user]);
    const shown = withClosedCalls(live, closedCalls(supersededHistory("cl1"), ["cc_cl1", "ca_cl1"]));
    expect(shown[0]?.blocks.map((b) => (b.kind === "tool" ? [b.id, b.state, b.output] : b.kind))).toEqual([
      ["cc_cl1", "error", "tool result unavailable: no result was provided before the next user message"],
      ["ca_cl1", "denied", "Declined: the user moved on"],
    ]);
  });

  it("takes only the calls asked for, and only closed ones", () => {
    const history = supersededHistory("cl2");
    expect([...closedCalls(history, ["cc_cl2"]).keys()]).toEqual(["cc_cl2"]);
    expect(closedCalls(fromUiMessages([pausedLive("cl2")]), ["cc_cl2", "ca_cl2"]).size).toBe(0);
  });

  it("leaves calls it has no closing for as they are", () => {
    const live = fromUiMessages([pausedLive("cl3")]);
    expect(withClosedCalls(live, closedCalls(supersededHistory("cl3"), []))).toEqual(live);
  });
});

describe("a tool result that loaded tools", () => {
  it("reads the same live as after a reload", async () => {
    const content = [
      { type: "text" as const, text: "Loaded 1 tool." },
      { type: "tool_reference" as const, tool_name: "get_weather" },
    ];
    const chunks = encodeAll([
      { type: "turn_start", turn_id: "t-loaded", message_id: "msg_t-loaded" },
      { type: "step_start", step: 1 },
      {
        type: "provider",
        event: {
          type: "block_stop",
          index: 0,
          part: { type: "tool_use", id: "c-loaded", name: "tool_search", input: { query: "weather" } },
        },
      },
      { type: "tool_output", tool_use_id: "c-loaded", content, is_error: false },
      { type: "step_finish", step: 1 },
      { type: "turn_finish", status: "completed", finish_reason: "stop" },
    ]) as UIMessageChunk[];
    const last = await assembled(chunks);
    const live = fromUiMessages(last ? [last] : [])[0]?.blocks[0];
    const stored = fromHistory([
      { seq: 1, role: "user", origin: "client", turn_id: "t-loaded", parts: [{ type: "text", text: "weather?" }] },
      {
        seq: 2,
        role: "assistant",
        origin: "model",
        turn_id: "t-loaded",
        parts: [{ type: "tool_use", id: "c-loaded", name: "tool_search", input: { query: "weather" } }],
      },
      {
        seq: 3,
        role: "user",
        origin: "tool",
        turn_id: "t-loaded",
        parts: [{ type: "tool_result", tool_use_id: "c-loaded", content, is_error: false }],
      },
    ]).find((e) => e.role === "assistant")?.blocks[0];
    expect(live).toMatchObject({ kind: "tool", output: "Loaded 1 tool.\n[tool loaded: get_weather]" });
    expect(stored).toMatchObject({ kind: "tool", output: (live as { output: unknown }).output });
  });
});
