// The web client's open calls (waiting for an app or the person, or approved and held back): which entry the person
// can answer (answerableAt), which calls are open (openCalls), whether the session moved on from them
// (pauseMovedOn), and how a new message closed them (closedCalls, withClosedCalls).
import type { UIMessage } from "ai";
import { describe, expect, it } from "vitest";
import { fromHistory, type PausedStep } from "../../../web/src/from-history.ts";
import { fromUiMessages } from "../../../web/src/from-live.ts";
import { answerableAt, closedCalls, openCalls, pauseMovedOn, withClosedCalls } from "../../../web/src/open-calls.ts";
import type { Entry } from "../../../web/src/transcript.ts";
import { approval } from "./transcript-fixtures.ts";

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
