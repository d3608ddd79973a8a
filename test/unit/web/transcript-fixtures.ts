// What the web client's transcript tests share: a stored history, a step paused for approval after a reload with
// its `pause`, an approval of a pause, and the assistant message the AI SDK assembles from a stream (as useChat
// shows it live).
import { readUIMessageStream, type UIMessage, type UIMessageChunk } from "ai";
import type { PausedStep, StoredMessage } from "../../../web/src/from-history.ts";

/** The assistant message the AI SDK assembles from a whole stream of chunks (as useChat shows it live). */
export async function assembled(chunks: UIMessageChunk[]): Promise<UIMessage | undefined> {
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

export const history: StoredMessage[] = [
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
export function approval(
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
export const pausedElsewhere: StoredMessage[] = [
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
export const pauseElsewhere: PausedStep = {
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
