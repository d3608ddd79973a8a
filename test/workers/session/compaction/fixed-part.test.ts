// A fixed part no compaction shrinks (src/session/compaction/fixed-part.ts, run-budgeted-step.ts): an agent whose
// system prompt fits its window, but not with the tools it declares with every request, fails each turn at once,
// not retryable and naming what to change, where each turn summarised the history, failed its compaction and ended
// `context_overflow` retryable, telling the user to send the next message or /retry (neither could ever succeed).
import { describe, expect, it } from "vitest";
import { longSession, PROTOCOLS, userText, WINDOW } from "../../compaction-helpers";
import { COMPACTION_TOOLS, clientTool, events, mockStats, send } from "../../helpers";

/** ~7,000 tokens of system prompt (4 characters a token): under the 8,000-token window alone. */
const SYSTEM = "You are a careful agent. ".repeat(1120);
/** A tool sent with every request whose description takes ~2,000 tokens: with it, the fixed part is over the window. */
const WIDE_TOOL = { ...clientTool("wide_core"), description: "Reads a record. ".repeat(500) };

describe.each(PROTOCOLS)("a system prompt and tools over the window on their own (%s)", (provider) => {
  it("fail each turn not retryable, naming them, with no compaction and no summary request", async () => {
    const s = await longSession(provider, { system: SYSTEM, tools: [...COMPACTION_TOOLS, WIDE_TOOL] });
    for (let i = 1; i <= 2; i++) {
      const turn = await send(s, { content: userText(i) });
      expect(turn.body.status).toBe("failed");
      const error = turn.body.error as { code: string; message: string; retryable?: boolean };
      expect([error.code, error.retryable]).toEqual(["context_overflow", false]);
      expect(error.message).toMatch(
        new RegExp(
          `^the system prompt and the tools declared with every request take about \\d+ tokens on their own, more than a request to this model can carry, the window \\(${WINDOW} tokens\\);`,
        ),
      );
      expect(error.message).toContain("shorten the system prompt");
      expect(error.message).toContain("model.context_window");
    }
    const compactions = (await events(s)).filter(
      (e) => e.type === "context_compacted" || e.type === "compaction_failed",
    );
    expect(compactions).toEqual([]);
    expect((await mockStats(s.model)).summaries ?? 0).toBe(0);
  });
});
