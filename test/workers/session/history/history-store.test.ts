// HistoryStore (src/session/history/history-store.ts) as GET /messages pages it (by count and by bytes, `next` leading through
// every message), and as the provider view opens with the request a cut inside a turn carries (the request still
// worked on until the user writes again, then an earlier one, verbatim either way).
import { runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { CARRIED_NOTE } from "../../../../src/session/compaction/records";
import { jsonBytes } from "../../../../src/storage/fit";
import { PAGE_BUDGET_BYTES, RESULT_BUDGET_BYTES } from "../../../../src/storage/limits";
import { echoSteps, longTurnSession, requestText } from "../../compaction-helpers";
import {
  apiJson,
  COMPACTION_TOOLS,
  clientTool,
  type Msg,
  mockRequests,
  restorePatches,
  type Setup,
  script,
  send,
  seqPages,
  sessionStores,
  sessionStub,
  setup,
} from "../../helpers";

afterEach(restorePatches);

/**
 * Writes `steps` tool steps through the history's own write path, as an http tool's step stores them: an assistant
 * message of three calls, then the user message of their results, each at its 256 KiB budget (~787 KB a message).
 * Returns the seqs written, in order.
 */
async function writeToolSteps(s: Setup, steps: number): Promise<number[]> {
  const big = "r".repeat(RESULT_BUDGET_BYTES + 10_000);
  return runInDurableObject(await sessionStub(s), (_instance, state) => {
    const { history } = sessionStores(state.storage);
    const seqs: number[] = [];
    for (let step = 0; step < steps; step++) {
      const turnId = `turn_pages_${step}`;
      const ids = [0, 1, 2].map((k) => `toolu_pages_${step}_${k}`);
      state.storage.transactionSync(() => {
        const uses = ids.map((id) => ({ type: "tool_use" as const, id, name: "fetch_page", input: { k: id } }));
        seqs.push(history.appendAssistantParts(turnId, null, uses, () => "http"));
        const supplied = new Map(ids.map((id) => [id, { tool_use_id: id, content: big, is_error: false }]));
        const { message } = history.closeOpenCalls({ turnId, reason: "test", supplied });
        if (message) seqs.push(message.seq);
      });
    }
    return seqs;
  });
}

interface MessagesPage {
  messages: Msg[];
  next: number | null;
}

/** Bytes of the page's messages as stored (their parts' JSON), which the page budget counts. */
const storedBytes = (messages: Msg[]) => messages.reduce((n, m) => n + jsonBytes(m.parts), 0);

describe("a page of GET /messages over large messages", () => {
  // 48 steps hold ~38 MB of stored messages: one page of all of them would be over the 32 MiB an RPC answer may be.
  it.each([100, 500])("answers 200 within the page budget, with a next (limit=%i)", async (limit) => {
    const s = await setup();
    await writeToolSteps(s, 48);
    const res = await apiJson<MessagesPage>(`/v1/sessions/${s.session}/messages?limit=${limit}`, { key: s.key });
    expect(res.status).toBe(200);
    expect(res.body.messages.length).toBeGreaterThan(0);
    expect(res.body.messages.length).toBeLessThan(limit);
    expect(storedBytes(res.body.messages)).toBeLessThanOrEqual(PAGE_BUDGET_BYTES);
    expect(res.body.next).toBe(res.body.messages.at(-1)?.seq);
  });

  it("leads through every message once, in order, when its next is followed", async () => {
    const s = await setup();
    const written = await writeToolSteps(s, 48);
    const pages = await seqPages<MessagesPage>(s, "messages", 500);
    expect(pages.map((p) => p.status)).toEqual(pages.map(() => 200));
    for (const p of pages) expect(storedBytes(p.body.messages)).toBeLessThanOrEqual(PAGE_BUDGET_BYTES);
    expect(pages.flatMap((p) => p.body.messages.map((m) => m.seq))).toEqual(written);
    expect(pages.length).toBeGreaterThan(1);
  });
});

describe("the request a cut inside a turn carries, once the user has written since (anthropic, 8,000-token window)", () => {
  /**
   * The body of the request a plain question sends after the turn whose cut carried `request` (checked: that turn's
   * latest request carrying one carried it as the request still worked on).
   */
  async function nextBody(s: Setup, request: string): Promise<string> {
    const carried = (await mockRequests(s.model)).filter((r) => JSON.stringify(r.body).includes(CARRIED_NOTE));
    // The cut was inside the turn: its steps read the request as the one still worked on.
    expect(carried.length).toBeGreaterThan(0);
    expect(JSON.stringify(carried.at(-1)?.body)).toContain(request);
    await script(s.model, [{ reply: { text: "4" } }]);
    expect((await send(s, { content: "What is 2+2?" })).body.status).toBe("completed");
    return JSON.stringify((await mockRequests(s.model)).at(-1)?.body);
  }

  it("after that turn completed, is no longer the request still worked on, and stays verbatim", async () => {
    const s = await longTurnSession("anthropic");
    const request = requestText(12);
    await script(s.model, [...echoSteps(1, 12), { reply: { text: "All cities echoed." } }]);
    const turn = await send(s, { content: request });
    expect(turn.body.status).toBe("completed");
    const body = await nextBody(s, request);
    expect(body).not.toContain("still working on");
    expect(body).toContain(request);
  });

  it("after a new message superseded that turn's pause, is no longer the request still worked on, and stays verbatim", async () => {
    const s = await longTurnSession("anthropic", [...COMPACTION_TOOLS, clientTool("ask_user")]);
    const request = requestText(12);
    await script(s.model, [
      ...echoSteps(1, 12),
      { reply: { tool_calls: [{ id: "call_ask_more", name: "ask_user", input: { q: "more cities?" } }] } },
    ]);
    const turn = await send(s, { content: request });
    expect(turn.body.status).toBe("awaiting_tool_results");
    const body = await nextBody(s, request);
    expect(body).not.toContain("still working on");
    expect(body).toContain(request);
  });
});
