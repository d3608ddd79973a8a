// A compaction's summary request (src/session/compaction/summary-request.ts): an answer the provider stopped by
// refusal (its stop reason, or OpenAI refusal text under an ordinary finish), or one that calls a tool, is no
// summary. It fails as a cut summary stream does: nothing is stored, and the history it was asked to summarise stays
// in the view, every user message in the summary written later.
import { describe, expect, it } from "vitest";
import { allMessages, longSession, PROTOCOLS, refusedCompaction, turns, userText } from "../../compaction-helpers";
import { mockRequests, script, send, summaryScript } from "../../helpers";

/** Summary answers that are none: cut by a refusal partway, and the words leading up to a tool call. */
const NOT_SUMMARIES = [
  { what: "a refusal", answer: { reply: { text: "The user sent", stop_reason: "refusal" } } },
  {
    what: "a tool call",
    answer: {
      reply: {
        text: "Let me look the order up first.",
        tool_calls: [{ id: "call_in_summary", name: "lookup_order", input: { city: "Oslo" } }],
      },
    },
  },
];

describe.each(PROTOCOLS)("POST /compact whose summary request is answered with no summary (%s)", (provider) => {
  it.each(NOT_SUMMARIES)(
    "answered with $what: 409 not_compacted, no marker, and the next request still carries the first message",
    async ({ answer }) => {
      const s = await longSession(provider);
      expect(await turns(s, 1, 4)).toEqual(Array(4).fill("completed"));
      await summaryScript(s.model, [answer], true);
      await refusedCompaction(s);
      expect((await allMessages(s)).markers).toEqual([]);
      await script(s.model, [{ reply: { text: "Carrying on." } }]);
      expect((await send(s, { content: userText(5) })).body.status).toBe("completed");
      expect(JSON.stringify((await mockRequests(s.model)).at(-1)?.body)).toContain("msg-1:");
    },
  );
});

describe.each(["openai", "openai-responses"] as const)(
  "POST /compact whose summary request is answered with refusal text under an ordinary finish (%s)",
  (provider) => {
    it("is refused 409 not_compacted and leaves the history and its markers exactly as they were", async () => {
      const s = await longSession(provider);
      expect(await turns(s, 1, 4)).toEqual(Array(4).fill("completed"));
      const before = await allMessages(s);
      // Chat Completions streams it in delta.refusal, Responses as a refusal content part; both then finish as usual.
      await summaryScript(s.model, [{ reply: { refusal: "I'm sorry, I can't help with that." } }], true);
      await refusedCompaction(s);
      expect(await allMessages(s)).toEqual(before);
    });
  },
);

describe("a turn's compaction whose first summary request is refused (anthropic, its tools sent, two pieces)", () => {
  it("stores no summary of the later piece alone: the summary stored next names every user message", async () => {
    const s = await longSession("anthropic", { compaction: { keep_recent_turns: 0 } });
    expect(await turns(s, 1, 8)).toEqual(Array(8).fill("completed"));
    // The first piece of transcript (msg-1…) is refused; the rest are answered by the mock's summariser.
    await summaryScript(s.model, [{ reply: { text: "The user sent", stop_reason: "refusal" } }], true);
    // ~2,000 tokens more: past the threshold (0.8 of the window), still within the window.
    expect((await send(s, { content: userText(9, "y ".repeat(4000)) })).body.status).toBe("completed");
    expect((await send(s, { content: userText(10) })).body.status).toBe("completed");
    const summary = (await allMessages(s)).markers.at(-1)?.summary ?? "";
    for (let i = 1; i <= 8; i++) expect(summary).toContain(`msg-${i}:`);
  });
});
