// keptAfterCompaction (src/session/compaction/kept-after-compaction.ts): a deferred tool a compaction kept is declared
// in full again.
import { describe, expect, it } from "vitest";
import type { Message, ToolDeclaration } from "../../../../src/model/message";
import { keptAfterCompaction } from "../../../../src/session/compaction/kept-after-compaction";

const decl = (name: string, defer_loading?: boolean): ToolDeclaration => ({
  name,
  description: name,
  input_schema: { type: "object" },
  ...(defer_loading ? { defer_loading } : {}),
});
const preamble = (names: string[]): Message =>
  ({ role: "user", parts: [{ type: "tool_declarations", tools: names.map((n) => decl(n)) }] }) as unknown as Message;

describe("keptAfterCompaction", () => {
  it("declares in full a deferred tool the compaction kept (its tool_reference was summarised away)", () => {
    const out = keptAfterCompaction([decl("core"), decl("kept", true), decl("other", true)], preamble(["kept"]));
    expect(out).toEqual([decl("core"), decl("kept"), decl("other", true)]);
  });

  it("returns tools[] itself when nothing is re-declared", () => {
    const tools = [decl("core"), decl("deferred", true)];
    expect(keptAfterCompaction(tools, null)).toBe(tools);
    expect(keptAfterCompaction(tools, preamble([]))).toBe(tools);
  });
});
