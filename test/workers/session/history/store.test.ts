// HistoryStore (src/session/history/store.ts) as `$tool` references read it: a reference passes a stored result's
// value, and is refused, as an invalid call, when that result was cut for storage.
import { describe, expect, it } from "vitest";
import { jsonBytes } from "../../../../src/storage/fit";
import { RESULT_BUDGET_BYTES } from "../../../../src/storage/limits";
import {
  clientTool,
  events,
  history,
  itemsText,
  type Setup,
  setup,
  takeAfterClientResult,
  takeTool,
  uid,
} from "../../helpers";
import { deliveries } from "../../runs-helpers";

/** The tool_result parts of the session's history answering `ids`, in that order. */
async function resultsOf(s: Setup, ids: string[]): Promise<Array<Record<string, unknown>>> {
  const parts = (await history(s)).flatMap((m) => m.parts).filter((p) => p.type === "tool_result");
  return ids.map((id) => parts.find((p) => p.tool_use_id === id) ?? {});
}

describe("a $tool reference to a result cut for storage", () => {
  it("is refused as an invalid call saying it was cut, with or without a $path, and the tool is never called", async () => {
    const recorder = uid("take-cut");
    const s = await setup({ tools: [clientTool("c_big"), takeTool(recorder)] });
    const text = itemsText(4000);
    expect(jsonBytes(text)).toBeGreaterThan(RESULT_BUDGET_BYTES);
    const turn = await takeAfterClientResult(s, "toolu_cut_big", text, [
      { id: "toolu_cut_count", name: "take", input: { count: { $tool: "toolu_cut_big", $path: "meta.count" } } },
      { id: "toolu_cut_whole", name: "take", input: { data: { $tool: "toolu_cut_big" } } },
    ]);
    expect(turn.status).toBe("completed");
    const cut = /the result of toolu_cut_big was cut to its first \d+ of \d+ bytes when stored, so it cannot be passed/;
    for (const result of await resultsOf(s, ["toolu_cut_count", "toolu_cut_whole"])) {
      expect(result.is_error).toBe(true);
      expect(String(result.content)).toMatch(cut);
    }
    const invalid = (await events(s)).filter((e) => e.type === "tool_call_invalid");
    expect(invalid.map((e) => e.data.tool_use_id)).toEqual(["toolu_cut_count", "toolu_cut_whole"]);
    for (const e of invalid) expect(String((e.data.errors as string[])[0])).toMatch(cut);
    expect(await deliveries(recorder)).toEqual([]);
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
