// CallIds: how one step maps the tool_use ids a provider sends onto session-unique canonical ids.
import { describe, expect, it } from "vitest";
import type { StreamEvent } from "../../../../src/model/stream";
import { CallIds } from "../../../../src/session/turn/call-ids";

const start = (index: number, id: string): StreamEvent => ({
  type: "block_start",
  index,
  kind: "tool_use",
  id,
  name: "t",
});
const stop = (index: number, id: string, input: Record<string, unknown> = {}): StreamEvent =>
  ({ type: "block_stop", index, part: { type: "tool_use", id, name: "t", input } }) as StreamEvent;

function idOf(ev: StreamEvent): string | undefined {
  if (ev.type === "block_start" && ev.kind === "tool_use") return ev.id;
  if (ev.type === "block_stop" && ev.part.type === "tool_use") return ev.part.id;
  if (ev.type === "block_invalid" || ev.type === "block_incomplete") return ev.id;
  return undefined;
}

describe("CallIds", () => {
  it("keeps an id the session never used, and renames one it did to the first free <id>_<n>", () => {
    const taken = new Set(["call_0", "call_0_2"]);
    const ids = new CallIds((id) => taken.has(id));
    const fresh = ids.map(start(0, "toolu_new"));
    expect(idOf(fresh.ev)).toBe("toolu_new");
    expect(fresh.renamed).toBeUndefined();
    const reused = ids.map(start(1, "call_0"));
    expect(idOf(reused.ev)).toBe("call_0_3");
    expect(reused.renamed).toEqual({ provider_id: "call_0", tool_use_id: "call_0_3" });
    // Every later event of the block carries the id its start got.
    expect(idOf(ids.map(stop(1, "call_0", { q: "x" })).ev)).toBe("call_0_3");
    const invalid: StreamEvent = { type: "block_invalid", index: 1, id: "call_0", name: "t", raw: "{", reason: "r" };
    expect(idOf(ids.map(invalid).ev)).toBe("call_0_3");
  });

  it("gives two blocks of one response with the same id two ids", () => {
    const ids = new CallIds(() => false);
    expect(idOf(ids.map(start(0, "call_0")).ev)).toBe("call_0");
    expect(idOf(ids.map(start(1, "call_0")).ev)).toBe("call_0_2");
    expect(idOf(ids.map(stop(0, "call_0")).ev)).toBe("call_0");
    expect(idOf(ids.map(stop(1, "call_0")).ev)).toBe("call_0_2");
  });

  it("a block that completes without its start seen still gets a unique id", () => {
    const ids = new CallIds((id) => id === "call_0");
    expect(idOf(ids.map(stop(0, "call_0")).ev)).toBe("call_0_2");
  });

  it("uses `call` as the stem for a reused provider id with characters Anthropic refuses", () => {
    const ids = new CallIds((id) => id === "fn:0");
    expect(idOf(ids.map(start(0, "fn:0")).ev)).toBe("call_2");
  });

  it("leaves a $tool reference as written, even to an id this step gave a new call under another name", () => {
    const ids = new CallIds((id) => id === "call_0");
    ids.map(start(0, "call_0"));
    const input = { a: { $tool: "call_0", $path: "x" }, b: [{ $tool: "toolu_other" }] };
    const out = ids.map(stop(1, "call_1", structuredClone(input))).ev;
    expect(out.type === "block_stop" && out.part.type === "tool_use" && out.part.input).toEqual(input);
  });

  it("passes other events through untouched", () => {
    const ids = new CallIds(() => true);
    const text: StreamEvent = { type: "text_delta", index: 0, text: "hi" };
    expect(ids.map(text).ev).toBe(text);
  });
});
