// The built-in disclosure tools as the model calls them: what tool_search's `select:` form loads and says.
import { describe, expect, it } from "vitest";
import { normalizeAgent } from "../../../../src/agents/normalize";
import { runBuiltin } from "../../../../src/tools/builtins/run";
import { ToolRegistry } from "../../../../src/tools/registry";

const NAMES = Array.from({ length: 8 }, (_, i) => `tool_${i}`);

function context() {
  const agent = normalizeAgent("a", {
    model: { provider: "anthropic", name: "m" },
    tools: NAMES.map((name) => ({
      name,
      description: `the ${name} tool`,
      input_schema: { type: "object" },
      defer: true,
      execution: { type: "client" },
    })),
  });
  const registry = new ToolRegistry(agent);
  return {
    registry,
    loaded: new Set<string>(),
    index: () => {
      throw new Error("select: never searches");
    },
  };
}

const answer = (out: ReturnType<typeof runBuiltin>) => {
  const first = Array.isArray(out.content) ? out.content[0] : undefined;
  return JSON.parse(first?.type === "text" ? first.text : "{}") as { matches: Array<{ name: string }>; note?: string };
};

describe("tool_search select:", () => {
  it("loads every name asked for, past the keyword search's default of 5", () => {
    const out = runBuiltin("tool_search", { query: `select:${NAMES.join(",")}` }, context());
    expect(out.load).toEqual(NAMES);
    expect(answer(out).note).toBeUndefined();
  });

  it("says which names are not tools instead of dropping them", () => {
    const out = runBuiltin("tool_search", { query: "select:tool_1,no_such_tool,tool_2" }, context());
    expect(out.load).toEqual(["tool_1", "tool_2"]);
    expect(answer(out).note).toBe("not tools of this session: no_such_tool.");
  });

  it("says which names max_results left out", () => {
    const out = runBuiltin("tool_search", { query: "select:tool_1,tool_2,tool_3", max_results: 2 }, context());
    expect(out.load).toEqual(["tool_1", "tool_2"]);
    expect(answer(out).note).toBe("not loaded, over max_results (2): tool_3.");
  });
});
