// How many summary requests one compaction pays (src/session/compaction/summarise.ts): a summary request carries the
// triggering request's system prompt and tools (for the provider's prompt cache) only while they leave a piece of
// transcript at least half the room it has without them, so a system prompt of 44 % of the window no longer splits
// the transcript into pieces of ~900 tokens (28 summary requests for one compaction); without them it sends our own
// system and no tools at all, never a different set.
import { describe, expect, it } from "vitest";
import { denseSession, PROSE_SYSTEM, putDenseAgent, uuidTool } from "../../compaction-helpers";
import { events, mockRequests, send } from "../../helpers";

/** ~12,000 estimated tokens of prose: a message the mock's default brain echoes whole. */
const PROSE = "lorem ipsum dolor sit amet ".repeat(1778);

/**
 * An OpenAI session of a 32,000-token window (the mock counting as o200k does) whose agent has PROSE_SYSTEM: 55 % of
 * its 25,600-token limit.
 */
async function crowdedSession() {
  const tools = [uuidTool("fetch_ids", 200)];
  const s = await denseSession("openai", 32_000, tools);
  await putDenseAgent(s, "openai", 32_000, tools, { system: PROSE_SYSTEM });
  return s;
}

describe("a compaction beside a system prompt of 44 % of the window", () => {
  it("pays at most 4 summary requests (twice the 2 its transcript needs without the prefix), where it paid 28", async () => {
    const s = await crowdedSession();
    for (let i = 1; i <= 3; i++) expect((await send(s, { content: PROSE })).body.status).toBe("completed");
    const compacted = (await events(s)).filter((e) => e.type === "context_compacted");
    expect(compacted).toHaveLength(2);
    for (const e of compacted) expect(e.data.summary_requests).toBeLessThanOrEqual(4);
  });

  it("sends its summary requests with our own system and no tools, not the agent's system prompt", async () => {
    const s = await crowdedSession();
    for (let i = 1; i <= 2; i++) expect((await send(s, { content: PROSE })).body.status).toBe("completed");
    const summaries = (await mockRequests(s.model)).filter((r) => r.served === "summary");
    expect(summaries.length).toBeGreaterThan(0);
    for (const r of summaries) {
      const raw = JSON.stringify(r.body);
      expect(raw).toContain("You write a summary");
      expect(raw).not.toContain("You are a careful agent.");
      expect(r.body.tools ?? []).toEqual([]);
    }
  });
});
