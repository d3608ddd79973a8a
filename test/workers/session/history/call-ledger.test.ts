// CallLedger (src/session/history/call-ledger.ts) as `$tool` references read it: a reference passes a stored result's
// value, and is refused, as an invalid call, when that result was cut: for storage, or before it was stored by the
// http or MCP tool that returned it.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_MCP_OUTPUT_CHARS } from "../../../../src/mcp/limits";
import { jsonBytes } from "../../../../src/storage/fit";
import { RESULT_BUDGET_BYTES } from "../../../../src/storage/limits";
import { MAX_TOOL_RESPONSE_BYTES } from "../../../../src/tools/http-tool";
import {
  clientTool,
  events,
  fakeMcpServer,
  history,
  itemsText,
  restorePatches,
  type Setup,
  script,
  send,
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
