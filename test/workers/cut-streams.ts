/**
 * Raw provider streams (for the mock's `raw` answers) whose last tool call is cut off mid-input: Anthropic with
 * `stop_reason` max_tokens or refusal, Chat Completions with `finish_reason: "length"`. Text before the call is
 * optional; without it the step streams only the cut call.
 */

export interface CutCall {
  /** Text the model streams before the call ("" for none). */
  text: string;
  id: string;
  name: string;
  /** The call's input as far as it streamed. */
  partial: string;
}

export function anthropicCut(call: CutCall, stop: "max_tokens" | "refusal" = "max_tokens"): string {
  const at = call.text ? 1 : 0;
  const frames: Array<Record<string, unknown>> = [
    {
      type: "message_start",
      message: {
        id: "msg_cut",
        type: "message",
        role: "assistant",
        model: "m",
        content: [],
        usage: { input_tokens: 5 },
      },
    },
    ...(call.text
      ? [
          { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
          { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: call.text } },
          { type: "content_block_stop", index: 0 },
        ]
      : []),
    {
      type: "content_block_start",
      index: at,
      content_block: { type: "tool_use", id: call.id, name: call.name, input: {} },
    },
    { type: "content_block_delta", index: at, delta: { type: "input_json_delta", partial_json: call.partial } },
    // The API closes the cut block like any other and names the cause only in message_delta.
    { type: "content_block_stop", index: at },
    { type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 16 } },
    { type: "message_stop" },
  ];
  return frames.map((f) => `event: ${String(f.type)}\ndata: ${JSON.stringify(f)}\n\n`).join("");
}

export function openaiCut(call: CutCall): string {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    id: "chatcmpl-cut",
    object: "chat.completion.chunk",
    model: "m",
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const chunks = [
    chunk(call.text ? { role: "assistant", content: call.text } : { role: "assistant" }),
    chunk({ tool_calls: [{ index: 0, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: call.partial } }] }),
    chunk({}, "length"),
  ];
  return `${chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("")}data: [DONE]\n\n`;
}
