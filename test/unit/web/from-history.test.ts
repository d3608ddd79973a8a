// The web client's transcript from the stored history (fromHistory): tool results folded into their calls, a turn's
// steps one entry, the paused step's calls as its `pause` says, compactions and tool-set changes as notices; a
// reloaded call reads as it did live.
import type { UIMessage, UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { fromHistory, type StoredMessage } from "../../../web/src/from-history.ts";
import { fromUiMessages } from "../../../web/src/from-live.ts";
import { takeOpenApprovals } from "../../../web/src/open-approvals.ts";
import { encodeAll } from "../session/stream/assemble.ts";
import { approval, assembled, history, pausedElsewhere, pauseElsewhere } from "./transcript-fixtures.ts";

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
