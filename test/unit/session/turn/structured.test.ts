// missingStructured: the structured_output_missing error of a turn that ended without a valid call.
import { describe, expect, it } from "vitest";
import type { Message } from "../../../../src/model/message";
import { missingStructured } from "../../../../src/session/turn/structured";

const toolResult = (seq: number, turnId: string): Message => ({
  seq,
  role: "user",
  parts: [{ type: "tool_result", tool_use_id: "toolu_capped", content: "42", is_error: false }],
  origin: "tool",
  turn_id: turnId,
  created_at: "2026-01-01T00:00:00.000Z",
});

const said = (seq: number, turnId: string, text: string): Message => ({
  seq,
  role: "assistant",
  parts: [{ type: "text", text }],
  origin: "model",
  turn_id: turnId,
  created_at: "2026-01-01T00:00:00.000Z",
});

describe("missingStructured", () => {
  it("quotes no earlier turn's text when this turn stored none", () => {
    const earlier = [said(2, "turn_earlier_ms", "the earlier turn's answer")];
    const error = missingStructured(1, earlier, "turn_now_ms", "model");
    expect(error.message).not.toContain("earlier turn's answer");
    expect(error.message).not.toContain("it said");
  });

  it("quotes this turn's last assistant text", () => {
    const messages = [said(2, "turn_prev_q", "old words"), said(4, "turn_this_q", "new words")];
    expect(missingStructured(1, messages, "turn_this_q", "model").message).toContain('it said: "new words"');
  });

  it("says max_steps ended the turn, not the model", () => {
    const error = missingStructured(3, [], "turn_capped_ms", "max_steps");
    expect(error.message).toContain("max_steps");
    expect(error.message).not.toContain("the model ended the turn");
  });

  it("is not retryable when the model ended the turn with its own text (/retry has nothing to re-run)", () => {
    const error = missingStructured(1, [said(2, "turn_plain_rt", "sunny")], "turn_plain_rt", "model");
    expect(error.retryable).toBe(false);
  });

  it("is retryable when history ends with the turn's tool results (/retry re-runs from them)", () => {
    const messages = [said(2, "turn_tools_rt", "looking"), toolResult(3, "turn_tools_rt")];
    expect(missingStructured(1, messages, "turn_tools_rt", "max_steps").retryable).toBe(true);
  });
});
