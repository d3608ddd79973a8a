// Turn-event fixtures of the stream tests: a full turn with thinking, text and two tool calls, steps cut mid text or
// mid tool input, oddities, and an approval pause.
import type { StreamEvent } from "../../../../src/model/stream";
import type { TurnEvent } from "../../../../src/session/stream/turn-events";

const p = (event: StreamEvent): TurnEvent => ({ type: "provider", event });

/** Splits text into small pieces, as a provider streams tokens. */
export function pieces(text: string, size = 3): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

export const WEATHER_INPUT = { city: "Paris", unit: "celsius" };
export const TIME_INPUT = { tz: "Europe/Paris" };
export const THINKING = "The user wants weather and time; call both tools.";
export const TEXT_1 = "Let me check both for you.";
export const TEXT_2 = "It is sunny and 21 °C in Paris 🌞, and the time is 14:05 CEST.";

/** A full turn: thinking, text, two tool calls with outputs, a second step with text, finish. */
export const FULL_TURN: TurnEvent[] = [
  { type: "turn_start", turn_id: "turn_1", message_id: "msg_1" },
  { type: "step_start", step: 1 },
  p({ type: "message_start", id: "msg_01", model: "claude" }),
  p({ type: "block_start", index: 0, kind: "thinking" }),
  ...pieces(THINKING).map((thinking) => p({ type: "thinking_delta", index: 0, thinking })),
  p({ type: "block_stop", index: 0, part: { type: "thinking", thinking: THINKING, signature: "sig..." } }),
  p({ type: "block_start", index: 1, kind: "text" }),
  ...pieces(TEXT_1).map((text) => p({ type: "text_delta", index: 1, text })),
  p({ type: "block_stop", index: 1, part: { type: "text", text: TEXT_1 } }),
  p({ type: "block_start", index: 2, kind: "tool_use", id: "toolu_a", name: "get_weather" }),
  p({ type: "tool_input_delta", index: 2, partial_json: "" }),
  ...pieces(JSON.stringify(WEATHER_INPUT), 5).map((partial_json) =>
    p({ type: "tool_input_delta", index: 2, partial_json }),
  ),
  p({
    type: "block_stop",
    index: 2,
    part: { type: "tool_use", id: "toolu_a", name: "get_weather", input: WEATHER_INPUT },
  }),
  p({ type: "block_start", index: 3, kind: "tool_use", id: "toolu_b", name: "get_time" }),
  ...pieces(JSON.stringify(TIME_INPUT), 4).map((partial_json) =>
    p({ type: "tool_input_delta", index: 3, partial_json }),
  ),
  p({ type: "block_stop", index: 3, part: { type: "tool_use", id: "toolu_b", name: "get_time", input: TIME_INPUT } }),
  p({ type: "usage", usage: { input_tokens: 10, output_tokens: 50 } }),
  p({ type: "message_stop", stop_reason: "tool_use" }),
  // The tool phase takes both calls as the client's (a session-run tool's calls get no tool_open).
  { type: "tool_open", tool_use_id: "toolu_a" },
  { type: "tool_open", tool_use_id: "toolu_b" },
  { type: "step_finish", step: 1 },
  { type: "tool_output", tool_use_id: "toolu_a", content: "Sunny, 21 °C", is_error: false },
  {
    type: "tool_output",
    tool_use_id: "toolu_b",
    content: [
      { type: "text", text: "14:05" },
      { type: "text", text: "CEST" },
    ],
    is_error: false,
  },
  { type: "step_start", step: 2 },
  p({ type: "message_start", id: "msg_02", model: "claude" }),
  p({ type: "block_start", index: 0, kind: "text" }),
  ...pieces(TEXT_2).map((text) => p({ type: "text_delta", index: 0, text })),
  p({ type: "block_stop", index: 0, part: { type: "text", text: TEXT_2 } }),
  p({ type: "message_stop", stop_reason: "end_turn" }),
  { type: "step_finish", step: 2 },
  { type: "data", name: "turn-status", id: "status", data: { status: "completed" } },
  { type: "turn_finish", status: "completed", finish_reason: "stop" },
];

/** The provider stream is cut in the middle of a tool call's input JSON. */
export const CUT_MID_TOOL_INPUT: TurnEvent[] = [
  { type: "turn_start", turn_id: "turn_2", message_id: "msg_2" },
  { type: "step_start", step: 1 },
  p({ type: "block_start", index: 0, kind: "text" }),
  p({ type: "text_delta", index: 0, text: "Checking." }),
  p({ type: "block_stop", index: 0, part: { type: "text", text: "Checking." } }),
  p({ type: "block_start", index: 1, kind: "tool_use", id: "toolu_cut", name: "get_weather" }),
  p({ type: "tool_input_delta", index: 1, partial_json: '{"city": "Pa' }),
  { type: "step_abandoned", reason: "provider_stream_cut" },
  { type: "step_finish", step: 1 },
  { type: "turn_finish", status: "failed", finish_reason: "error" },
];

/** Cut while thinking and text are both still streaming, then the turn errors. */
export const CUT_MID_TEXT: TurnEvent[] = [
  { type: "turn_start", turn_id: "turn_3", message_id: "msg_3" },
  { type: "step_start", step: 1 },
  p({ type: "block_start", index: 0, kind: "thinking" }),
  p({ type: "thinking_delta", index: 0, thinking: "Hmm" }),
  p({ type: "block_start", index: 1, kind: "text" }),
  p({ type: "text_delta", index: 1, text: "Half a sent" }),
  { type: "turn_error", code: "provider_idle_timeout", message: "no bytes for 60s" },
  { type: "turn_finish", status: "failed", finish_reason: "error" },
];

/** Odd but legal event orders: retries, invalid input, errors, transient data, cancel. */
export const ODDITIES: TurnEvent[] = [
  { type: "turn_start", turn_id: "turn_4", message_id: "msg_4" },
  { type: "step_start", step: 1 },
  p({ type: "retry", attempt: 1, delay_ms: 500, status: 529, reason: "overloaded" }),
  { type: "data", name: "progress", data: { pct: 10 }, transient: true },
  p({ type: "block_start", index: 0, kind: "tool_use", id: "toolu_bad", name: "search" }),
  p({ type: "tool_input_delta", index: 0, partial_json: '{"q": ' }),
  p({ type: "block_invalid", index: 0, id: "toolu_bad", name: "search", raw: '{"q": ', reason: "unexpected end" }),
  p({ type: "block_invalid", index: 1, id: "toolu_nostart", name: "search", raw: "{", reason: "unexpected end" }),
  p({ type: "block_stop", index: 2, part: { type: "tool_use", id: "toolu_whole", name: "lookup", input: {} } }),
  p({ type: "block_stop", index: 3, part: { type: "text", text: "whole text" } }),
  p({ type: "text_delta", index: 4, text: "no start" }),
  { type: "tool_open", tool_use_id: "toolu_whole" },
  { type: "step_finish", step: 1 },
  { type: "tool_output", tool_use_id: "toolu_whole", content: "failed: not found", is_error: true },
  { type: "tool_output", tool_use_id: "toolu_unknown", content: "x", is_error: false },
  { type: "turn_finish", status: "cancelled", finish_reason: "other" },
];

/** The tools the fixtures' session runs itself (`encodeAll`): only such a call is ever asked a person's approval. */
export const SERVER_TOOLS: ReadonlySet<string> = new Set(["charge_card"]);

/**
 * A step whose call needs a person's approval: the request follows the call, then the turn pauses. The call's amount
 * is a `$tool` reference, so the request carries the value it runs with (`resolved_input`).
 */
export const APPROVAL_PAUSE: TurnEvent[] = [
  { type: "turn_start", turn_id: "turn_5", message_id: "msg_5" },
  { type: "step_start", step: 1 },
  p({ type: "block_start", index: 0, kind: "tool_use", id: "toolu_charge", name: "charge_card" }),
  p({ type: "tool_input_delta", index: 0, partial_json: '{"amount": {"$tool": "toolu_quote", "$path": "amount"}}' }),
  p({
    type: "block_stop",
    index: 0,
    part: {
      type: "tool_use",
      id: "toolu_charge",
      name: "charge_card",
      input: { amount: { $tool: "toolu_quote", $path: "amount" } },
    },
  }),
  {
    type: "approval_request",
    approval_id: "apr_1",
    tool_use_id: "toolu_charge",
    tool: "charge_card",
    reason: '"charge_card" requires approval before it runs',
    signature: "c2lnbmF0dXJl",
    resolved_input: { amount: 42 },
  },
  // A request for a call the client never saw would make it throw: the encoder drops it.
  {
    type: "approval_request",
    approval_id: "apr_2",
    tool_use_id: "toolu_unseen",
    tool: "x",
    reason: "r",
    signature: "s",
  },
  { type: "step_finish", step: 1 },
  { type: "data", name: "awaiting-approval", data: { approvals: [{ approval_id: "apr_1" }] }, transient: true },
  { type: "turn_finish", status: "awaiting_approval", finish_reason: "tool-calls" },
];

export const SCENARIOS: Record<string, TurnEvent[]> = {
  FULL_TURN,
  APPROVAL_PAUSE,
  CUT_MID_TOOL_INPUT,
  CUT_MID_TEXT,
  ODDITIES,
};
