// The web client's approval answers carried across a re-read of the session (carriedAnswers): the ones this page
// gave and has not sent go to the approvals still waiting, and through useChat's own flow they are sent once the
// step's answers are all given.
import { Chat } from "@ai-sdk/react";
import type { DynamicToolUIPart, UIMessage, UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { carriedAnswers } from "../../../web/src/carried-answers.ts";
import { approvalSender } from "../../../web/src/chat-request.ts";
import { fromHistory, type PausedStep, type StoredMessage } from "../../../web/src/from-history.ts";
import { takeOpenApprovals } from "../../../web/src/open-approvals.ts";

/** A turn paused on two approvals: charge_card (`c1`, approval `ap_<turn>_1`) and refund_card (`c2`, `ap_<turn>_2`). */
function pausedTurn(turn: string): StoredMessage[] {
  return [
    { seq: 1, role: "user", origin: "client", turn_id: turn, parts: [{ type: "text", text: "charge 5, refund 2" }] },
    {
      seq: 2,
      role: "assistant",
      origin: "model",
      turn_id: turn,
      parts: [
        { type: "tool_use", id: "c1", name: "charge_card", input: { amount: 5 } },
        { type: "tool_use", id: "c2", name: "refund_card", input: { amount: 2 } },
      ],
    },
  ];
}

/** The pause as the session's state shows it, each approval with its status. */
function pause(turn: string, first: "pending" | "approved" | "declined", second: typeof first): PausedStep {
  const approval = (n: 1 | 2, status: typeof first) => ({
    approval_id: `ap_${turn}_${n}`,
    tool_call_id: `c${n}`,
    reason: "",
    signature: `sig_${turn}_${n}`,
    status,
    decided_reason: null,
  });
  return {
    approvals: [approval(1, first), approval(2, second)],
    calls: [
      { id: "c1", execution: "http", state: "pending" },
      { id: "c2", execution: "http", state: "pending" },
    ],
  };
}

/** The seed the page hands useChat for the paused step as it reads it (takeOpenApprovals of the history). */
function seedOf(turn: string, state: PausedStep): UIMessage | null {
  return takeOpenApprovals(fromHistory(pausedTurn(turn), null, state)).seed;
}

/** `seed` with the page's answer to approval `id` given, as addToolApprovalResponse leaves it (not sent yet). */
function answered(seed: UIMessage | null, id: string, approved: boolean, reason?: string): UIMessage[] {
  if (!seed) return [];
  const parts = seed.parts.map((p) =>
    p.type === "dynamic-tool" && p.state === "approval-requested" && p.approval.id === id
      ? ({ ...p, state: "approval-responded", approval: { ...p.approval, approved, reason } } as DynamicToolUIPart)
      : p,
  );
  return [{ ...seed, parts }];
}

describe("carriedAnswers", () => {
  it("carries the page's unsent answer to an approval the session read again still shows waiting", () => {
    const turn = "t-carry";
    const live = answered(seedOf(turn, pause(turn, "pending", "pending")), `ap_${turn}_1`, true);
    // Another tab approved the second; the first still waits on the server, for the answer this page holds.
    const again = seedOf(turn, pause(turn, "pending", "approved"));
    expect(carriedAnswers(live, new Set([`ap_${turn}_1`]), again)).toEqual([{ id: `ap_${turn}_1`, approved: true }]);
  });

  it("carries a denial with the reason typed", () => {
    const turn = "t-carry-deny";
    const live = answered(seedOf(turn, pause(turn, "pending", "pending")), `ap_${turn}_2`, false, "too much");
    const again = seedOf(turn, pause(turn, "declined", "pending"));
    expect(carriedAnswers(live, new Set([`ap_${turn}_2`]), again)).toEqual([
      { id: `ap_${turn}_2`, approved: false, reason: "too much" },
    ]);
  });

  it("drops an answer to an approval answered elsewhere first: the server's outcome shows instead", () => {
    const turn = "t-carry-gone";
    const live = answered(seedOf(turn, pause(turn, "pending", "pending")), `ap_${turn}_1`, false);
    const again = seedOf(turn, pause(turn, "approved", "pending"));
    expect(carriedAnswers(live, new Set([`ap_${turn}_1`]), again)).toEqual([]);
  });

  it("carries no answer this page did not give since its last send", () => {
    const turn = "t-carry-mine";
    const live = answered(seedOf(turn, pause(turn, "pending", "pending")), `ap_${turn}_1`, true);
    const again = seedOf(turn, pause(turn, "pending", "approved"));
    expect(carriedAnswers(live, new Set(), again)).toEqual([]);
  });
});

describe("carriedAnswers given again through the AI SDK's Chat (what useChat wraps)", () => {
  it("sends the step's answers once the carried one completes them, with the other's answer from elsewhere", async () => {
    const turn = "t-carry-send";
    const live = answered(seedOf(turn, pause(turn, "pending", "pending")), `ap_${turn}_1`, true);
    const seed = seedOf(turn, pause(turn, "pending", "approved"));
    const posted: UIMessage[][] = [];
    const sender = approvalSender();
    let finished = () => {};
    const sent = new Promise<void>((resolve) => {
      finished = resolve;
    });
    const chat = new Chat<UIMessage>({
      id: "s-carry-send",
      transport: {
        sendMessages: async ({ messages }) => {
          posted.push(messages);
          return new ReadableStream<UIMessageChunk>({ start: (c) => c.close() });
        },
        reconnectToStream: async () => null,
      },
      sendAutomaticallyWhen: sender.shouldSend,
      onFinish: () => finished(),
    });
    // What the page's rejoin does with the history read again: the paused step into useChat, the answers given again.
    chat.messages = seed ? [seed] : [];
    // Each is given as the page gives an answer (giveAnswer): the sender told it is the page's own, then useChat.
    for (const a of carriedAnswers(live, new Set([`ap_${turn}_1`]), seed)) {
      sender.gave(a.id);
      await chat.addToolApprovalResponse(a);
    }
    await sent;
    expect(posted).toHaveLength(1);
    const parts = (posted[0]?.at(-1)?.parts ?? []) as DynamicToolUIPart[];
    expect(parts.map((p) => [p.toolCallId, p.state, p.approval?.approved])).toEqual([
      ["c1", "approval-responded", true],
      ["c2", "approval-responded", true],
    ]);
  });
});
