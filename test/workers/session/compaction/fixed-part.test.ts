// A fixed part no compaction shrinks (src/session/compaction/fixed-part.ts, run-budgeted-step.ts): an agent whose
// system prompt fits its window, but not with the tools it declares with every request, fails each turn at once,
// not retryable and naming what to change, where each turn summarised the history, failed its compaction and ended
// `context_overflow` retryable, telling the user to send the next message or /retry (neither could ever succeed);
// one whose system prompt leaves less of the window than a message and a summary fails likewise once a request is
// refused, where it failed retryable; and one that leaves that much of the window, but not of the limit, sends its
// turns past the limit, compacting only what could not be sent, where every turn paid a summary that could not
// bring its request under the limit. The verdict reads the fixed part and the request uncalibrated: a calibration
// ratio taught by tool results of ids read a prose system prompt and message at two to three times what the
// provider counts, and a turn a compaction made fit failed for good.
import { describe, expect, it } from "vitest";
import {
  denseSession,
  fetchStep,
  longSession,
  PROSE_SYSTEM,
  PROTOCOLS,
  putDenseAgent,
  userText,
  uuidTool,
  WINDOW,
} from "../../compaction-helpers";
import { COMPACTION_TOOLS, clientTool, events, mockStats, script, send } from "../../helpers";

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

describe("a system prompt that leaves less of the window than a message and a summary", () => {
  it("fails the turn refused as too long not retryable, naming the room, with no summary request", async () => {
    const s = await longSession("openai", { system: SYSTEM });
    const turn = await send(s, { content: userText(1) });
    expect(turn.body.status).toBe("failed");
    const error = turn.body.error as { code: string; message: string; retryable?: boolean };
    expect([error.code, error.retryable]).toEqual(["context_overflow", false]);
    expect(error.message).toMatch(
      new RegExp(
        `^the system prompt and the tools declared with every request take about \\d+ tokens, leaving \\d+ of what a request to this model can carry, the window \\(${WINDOW} tokens\\): less than the user's newest request \\(about \\d+ tokens\\) and a summary`,
      ),
    );
    expect(error.message).toContain("shorten the system prompt");
    expect((await mockStats(s.model)).summaries ?? 0).toBe(0);
  });
});

/** ~5,600 tokens of system prompt: with the tools, the 6,400-token limit of an 8,000-token window leaves ~100. */
const CROWDING_SYSTEM = "You are a careful agent. ".repeat(893);

describe("a system prompt that leaves less of the limit than a message and a summary, but room in the window", () => {
  it("sends 10 short turns past the limit with no summary request, where 8 of them paid one", async () => {
    const s = await longSession("openai", { system: CROWDING_SYSTEM });
    const statuses: string[] = [];
    for (let i = 1; i <= 10; i++) statuses.push((await send(s, { content: `short turn ${i}` })).body.status as string);
    expect(statuses.filter((x) => x !== "completed")).toEqual([]);
    expect((await mockStats(s.model)).summaries ?? 0).toBe(0);
  });
});

describe("a prose system prompt and message after a history of ids taught a calibration ratio of ~2.2", () => {
  it("completes its turn, where it failed not retryable before any compaction was tried", async () => {
    // OpenAI, 32,000 tokens, the mock counting as o200k does. Five pages of 200 UUIDs teach a ratio of ~2.2; read by
    // it, the system prompt and a ~12,000-token (estimated; ~8,900 counted) message left no room, though the
    // provider counts ~22,400 of the 32,000 for both.
    const tools = [uuidTool("fetch_ids", 200)];
    const s = await denseSession("openai", 32_000, tools);
    const pages = Array.from({ length: 5 }, (_, k) => fetchStep(`call_page_${k + 1}`, "fetch_ids"));
    await script(s.model, [...pages, { reply: { text: "Five pages." } }]);
    expect((await send(s, { content: "Fetch five pages of ids, then say so." })).body.status).toBe("completed");
    await putDenseAgent(s, "openai", 32_000, tools, { system: PROSE_SYSTEM });
    const turn = await send(s, { content: "lorem ipsum dolor sit amet ".repeat(1778) });
    expect([turn.body.status, turn.body.error]).toEqual(["completed", undefined]);
  });
});
