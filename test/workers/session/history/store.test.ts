// HistoryStore (src/session/history/store.ts) as `$tool` references read it (a reference passes a stored result's
// value, and is refused, as an invalid call, when that result was cut: for storage, or before it was stored by the
// http or MCP tool that returned it), as GET /messages pages it (by count and by bytes, `next` leading through
// every message), and as the provider view opens with the request a cut inside a turn carries (the request still
// worked on until the user writes again, then an earlier one, verbatim either way).
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_MCP_OUTPUT_CHARS } from "../../../../src/mcp/limits";
import { CARRIED_NOTE } from "../../../../src/session/compaction/records";
import { jsonBytes } from "../../../../src/storage/fit";
import { PAGE_BUDGET_BYTES, RESULT_BUDGET_BYTES } from "../../../../src/storage/limits";
import { MAX_TOOL_RESPONSE_BYTES } from "../../../../src/tools/http-tool";
import { echoSteps, longTurnSession, requestText } from "../../compaction-helpers";
import {
  apiJson,
  COMPACTION_TOOLS,
  clientTool,
  events,
  fakeMcpServer,
  history,
  itemsText,
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
  takeAfterClientResult,
  takeTool,
  uid,
} from "../../helpers";
import { deliveries } from "../../runs-helpers";

afterEach(restorePatches);

/** The tool_result parts of the session's history answering `ids`, in that order. */
async function resultsOf(s: Setup, ids: string[]): Promise<Array<Record<string, unknown>>> {
  const parts = (await history(s)).flatMap((m) => m.parts).filter((p) => p.type === "tool_result");
  return ids.map((id) => parts.find((p) => p.tool_use_id === id) ?? {});
}

/** Two `take` calls referencing call `id`'s result: by the `$path` "meta.count", and whole. */
const takeBoth = (id: string) => [
  { id: `${id}_count`, name: "take", input: { count: { $tool: id, $path: "meta.count" } } },
  { id: `${id}_whole`, name: "take", input: { data: { $tool: id } } },
];

/**
 * Asserts that both `takeBoth(id)` calls were refused as invalid calls whose result and `tool_call_invalid` event say
 * `cut`, and that `take` (recording to `recorder`) was never called.
 */
async function expectRefusedAsCut(s: Setup, id: string, cut: RegExp, recorder: string): Promise<void> {
  const ids = takeBoth(id).map((c) => c.id);
  for (const result of await resultsOf(s, ids)) {
    expect(result.is_error).toBe(true);
    expect(String(result.content)).toMatch(cut);
  }
  const invalid = (await events(s)).filter((e) => e.type === "tool_call_invalid");
  expect(invalid.map((e) => e.data.tool_use_id)).toEqual(ids);
  for (const e of invalid) expect(String((e.data.errors as string[])[0])).toMatch(cut);
  expect(await deliveries(recorder)).toEqual([]);
}

describe("a $tool reference to a result cut for storage", () => {
  it("is refused as an invalid call saying it was cut, with or without a $path, and the tool is never called", async () => {
    const recorder = uid("take-cut");
    const s = await setup({ tools: [clientTool("c_big"), takeTool(recorder)] });
    const text = itemsText(4000);
    expect(jsonBytes(text)).toBeGreaterThan(RESULT_BUDGET_BYTES);
    const turn = await takeAfterClientResult(s, "toolu_cut_big", text, takeBoth("toolu_cut_big"));
    expect(turn.status).toBe("completed");
    const cut = /the result of toolu_cut_big was cut to its first \d+ of \d+ bytes when stored, so it cannot be passed/;
    await expectRefusedAsCut(s, "toolu_cut_big", cut, recorder);
  });
});

/** A turn in which the model calls `name` (no arguments) as `id`, then makes both `takeBoth(id)` calls, then ends. */
async function takeAfterServerCall(s: Setup, id: string, name: string): Promise<void> {
  await script(s.model, [
    { reply: { tool_calls: [{ id, name, input: {} }] } },
    { reply: { tool_calls: takeBoth(id) } },
    { reply: { text: "done" } },
  ]);
  expect((await send(s, { content: "fetch it all, then pass it on" })).body.status).toBe("completed");
}

describe("a $tool reference to a result cut before it was stored", () => {
  it("is refused as one cut for storage is when an http tool answered over the bytes read, with or without a $path", async () => {
    const recorder = uid("take-http-cut");
    const dump = {
      name: "dump",
      description: "answers more than is read",
      input_schema: { type: "object" },
      execution: { type: "http", url: `${env.MOCK_URL}/_tool?bytes=${MAX_TOOL_RESPONSE_BYTES + 1}` },
    };
    const s = await setup({ tools: [dump, takeTool(recorder)] });
    await takeAfterServerCall(s, "toolu_http_cut", "dump");
    const cut = /the result of toolu_http_cut was cut before it was stored .*, so it cannot be passed/;
    await expectRefusedAsCut(s, "toolu_http_cut", cut, recorder);
  });

  it("is refused as one cut for storage is when an MCP tool's output was over its characters, with or without a $path", async () => {
    const recorder = uid("take-mcp-cut");
    const text = itemsText(4000);
    expect(text.length).toBeGreaterThan(MAX_MCP_OUTPUT_CHARS);
    fakeMcpServer(["dump"], { content: [{ type: "text", text }] });
    const s = await setup({
      tools: [takeTool(recorder)],
      mcp_servers: [{ name: "big", url: "https://mcp.example.com/mcp", defer: false }],
    });
    await takeAfterServerCall(s, "toolu_mcp_cut", "mcp__big__dump");
    const cut = /the result of toolu_mcp_cut was cut before it was stored .*, so it cannot be passed/;
    await expectRefusedAsCut(s, "toolu_mcp_cut", cut, recorder);
  });
});

describe("a $tool reference to a result at the storage budget", () => {
  it("passes the result's object, stored whole", async () => {
    const recorder = uid("take-whole");
    const s = await setup({ tools: [clientTool("c_big"), takeTool(recorder)] });
    const text = itemsText(1000, RESULT_BUDGET_BYTES);
    expect(jsonBytes(text)).toBe(RESULT_BUDGET_BYTES);
    const turn = await takeAfterClientResult(s, "toolu_whole_big", text, [
      { id: "toolu_whole_take", name: "take", input: { data: { $tool: "toolu_whole_big" } } },
    ]);
    expect(turn.status).toBe("completed");
    const [result] = await resultsOf(s, ["toolu_whole_take"]);
    expect(result?.is_error).toBe(false);
    const calls = await deliveries(recorder);
    expect(calls).toHaveLength(1);
    expect(JSON.parse(calls[0]?.body ?? "{}").input.data).toEqual(JSON.parse(text));
  });
});

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
