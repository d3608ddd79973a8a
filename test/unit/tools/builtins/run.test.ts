// The built-in disclosure tools as the model calls them: what tool_search (its `select:` form and keywords) and
// select_tools load and say.
import { ToolIndex } from "@switchboard/tool-search";
import { describe, expect, it, vi } from "vitest";
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

/** Deferred alpha and beta, core gamma, with a real search index over the deferred ones. */
function searchContext(loaded: string[] = []) {
  const tool = (name: string, description: string, defer: boolean) => ({
    name,
    description,
    input_schema: { type: "object", properties: { [`${name}_id`]: { type: "string", description: "Its id" } } },
    ...(defer ? { defer: true } : {}),
    execution: { type: "client" },
  });
  const agent = normalizeAgent("a", {
    model: { provider: "anthropic", name: "m" },
    tools: [
      tool("alpha", "alpha reports on invoices", true),
      tool("beta", "beta sends reminders", true),
      tool("gamma", "gamma reads the ledger", false),
    ],
  });
  const registry = new ToolRegistry(agent);
  const index = new ToolIndex(
    registry.deferred().map((t) => ({ name: t.name, description: t.description, input_schema: t.input_schema })),
  );
  return { registry, loaded: new Set(loaded), index: () => index };
}

const selected = (out: ReturnType<typeof runBuiltin>) => {
  const first = Array.isArray(out.content) ? out.content[0] : undefined;
  return JSON.parse(first?.type === "text" ? first.text : "{}") as Record<string, string>;
};

describe("select_tools", () => {
  it("answers a name asked twice in one call (in any spelling) once, as loaded", () => {
    const out = runBuiltin("select_tools", { names: ["alpha", "ALPHA", "alpha"] }, searchContext());
    expect(out.load).toEqual(["alpha"]);
    expect(selected(out)).toEqual({ alpha: "loaded" });
  });

  it("answers every name asked, __proto__ and constructor too", () => {
    const out = runBuiltin("select_tools", { names: ["__proto__", "constructor", "alpha"] }, searchContext());
    expect(out.load).toEqual(["alpha"]);
    expect(Object.entries(selected(out))).toEqual([
      ["__proto__", "unknown"],
      ["constructor", "unknown"],
      ["alpha", "loaded"],
    ]);
  });

  it("refuses a name longer than any tool's (64 characters) as an invalid call, loading nothing", () => {
    const out = runBuiltin("select_tools", { names: ["alpha", "y".repeat(65)] }, searchContext());
    expect(out.is_error).toBe(true);
    expect(out.invalid).toEqual(["/names/1: must be at most 64 characters long (got 65)"]);
    expect(out.content).toBe(
      "invalid arguments for select_tools: /names/1: must be at most 64 characters long (got 65). " +
        'tool_info(name: "select_tools", include_schema: true) shows the schema.',
    );
    expect(out.load).toEqual([]);
  });

  it("tool_info refuses a name longer than any tool's (64 characters) as an invalid call", () => {
    const out = runBuiltin("tool_info", { name: "y".repeat(65) }, searchContext());
    expect(out.is_error).toBe(true);
    expect(out.invalid).toEqual(["/name: must be at most 64 characters long (got 65)"]);
  });
});

describe("tool_search keywords", () => {
  it("says a matching tool is already loaded instead of that nothing matched", () => {
    const out = runBuiltin("tool_search", { query: "alpha" }, searchContext(["alpha"]));
    expect(out.load).toEqual([]);
    expect(answer(out).note).toBe("already loaded: alpha; call it directly");
  });

  it("says a core tool named by the query is already available", () => {
    const out = runBuiltin("tool_search", { query: "gamma" }, searchContext());
    expect(answer(out).note).toBe("already available: gamma; call it directly");
  });
});

describe("tool_search's answer", () => {
  // Room set: the plain projection (tools[] carries loaded schemas); unset: Anthropic's and message-level.
  it.each([
    ["anthropic / message-level", undefined],
    ["plain", 16],
  ])("names a keyword match's parameters without its input schema (%s)", (_, room) => {
    const out = runBuiltin("tool_search", { query: "invoices" }, { ...searchContext(), ...(room ? { room } : {}) });
    expect(out.load).toEqual(["alpha"]);
    expect(answer(out).matches).toEqual([
      { name: "alpha", description: "alpha reports on invoices", parameters: ["alpha_id"] },
    ]);
  });
});

describe("select_tools with an unknown name", () => {
  it("answers it once however it is spelled, under its first spelling", () => {
    const out = runBuiltin("select_tools", { names: ["nope", "NOPE", "Nope"] }, searchContext());
    expect(selected(out)).toEqual({ nope: "unknown" });
  });
});

describe("tool_search select: with no names", () => {
  it("is an invalid call saying a name is needed", () => {
    const out = runBuiltin("tool_search", { query: "select: ," }, searchContext());
    expect(out.invalid).toEqual(["select: needs at least one tool name"]);
    expect(out.is_error).toBe(true);
    expect(out.load).toEqual([]);
  });
});

describe("tool_info with an unknown name", () => {
  it("is an invalid call naming the unknown tool, with the similar tools in its answer", () => {
    const out = runBuiltin("tool_info", { name: "alphas" }, searchContext());
    expect(out.invalid).toEqual(['unknown tool "alphas"']);
    expect(out.is_error).toBe(true);
    expect(out.content).toContain("similar tools: alpha");
  });
});

describe("tool_info for a tool whose schema is a root union", () => {
  it("lists the fields of the union's branches as its parameters", () => {
    const agent = normalizeAgent("a", {
      model: { provider: "anthropic", name: "m" },
      tools: [
        {
          name: "pet_ti",
          description: "a cat or a dog",
          input_schema: {
            anyOf: [{ $ref: "#/$defs/Cat" }, { $ref: "#/$defs/Dog" }],
            $defs: {
              Cat: { type: "object", properties: { meow_ti: { type: "string" } }, required: ["meow_ti"] },
              Dog: { type: "object", properties: { bark_ti: { type: "string" } }, required: ["bark_ti"] },
            },
          },
          defer: true,
          execution: { type: "client" },
        },
      ],
    });
    const registry = new ToolRegistry(agent);
    const index = new ToolIndex(registry.deferred().map((t) => ({ name: t.name, description: t.description })));
    const out = runBuiltin(
      "tool_info",
      { name: "pet_ti" },
      { registry, loaded: new Set<string>(), index: () => index },
    );
    expect(out.is_error).toBe(false);
    expect((selected(out) as unknown as { parameters: string[] }).parameters).toEqual(["meow_ti", "bark_ti"]);
  });
});

describe("loading within the room tools[] has (BuiltinContext.room)", () => {
  it("select: loads only what fits and names the rest in the note", () => {
    const out = runBuiltin("tool_search", { query: "select:tool_1,tool_2,tool_3" }, { ...context(), room: 2 });
    expect(out.load).toEqual(["tool_1", "tool_2"]);
    expect(answer(out).matches.map((m) => m.name)).toEqual(["tool_1", "tool_2"]);
    expect(answer(out).note).toBe("not loaded, over the 2 tools tools[] has room for: tool_3.");
  });

  it("select_tools answers the names past the room as not loaded", () => {
    const out = runBuiltin("select_tools", { names: ["alpha", "beta"] }, { ...searchContext(), room: 1 });
    expect(out.load).toEqual(["alpha"]);
    expect(selected(out)).toEqual({ alpha: "loaded", beta: "not loaded: over the 1 tools tools[] has room for" });
  });

  it("loads only into the room the tools earlier calls of the same step kept leave (BuiltinContext.kept)", () => {
    const kept = new Set(["k_0", "k_1"]);
    const out = runBuiltin(
      "select_tools",
      { names: ["alpha", "beta"] },
      { ...searchContext([...kept]), room: 3, kept },
    );
    expect(out.load).toEqual(["alpha"]);
    expect(selected(out)).toEqual({
      alpha: "loaded",
      beta: "not loaded: over the 3 tools tools[] has room for (2 of them kept for tools this step has loaded or named)",
    });
  });

  it("select: says a tool it found is not loaded when the tools the step kept fill the room", () => {
    const kept = new Set(Array.from({ length: 16 }, (_, i) => `k_${i}`));
    const out = runBuiltin("tool_search", { query: "select:tool_1" }, { ...context(), loaded: kept, room: 16, kept });
    expect(out.load).toEqual([]);
    expect(answer(out)).toEqual({
      matches: [],
      note:
        "not loaded, over the 16 tools tools[] has room for (16 of them kept for tools this step has loaded or " +
        "named): tool_1.",
    });
  });

  it("keywords say a tool they found is not loaded when the tools the step kept fill the room", () => {
    const kept = new Set(Array.from({ length: 16 }, (_, i) => `k_${i}`));
    const out = runBuiltin("tool_search", { query: "invoices" }, { ...searchContext([...kept]), room: 16, kept });
    expect(out.load).toEqual([]);
    expect(answer(out)).toEqual({
      matches: [],
      note:
        "not loaded, over the 16 tools tools[] has room for (16 of them kept for tools this step has loaded or " +
        "named): alpha.",
    });
  });

  it("select: counts a loaded tool the step kept once, so the one slot left loads the new tool", () => {
    const kept = new Set(["tool_0", ...Array.from({ length: 14 }, (_, i) => `k_${i}`)]);
    const ctx = { ...context(), loaded: kept, room: 16, kept };
    const out = runBuiltin("tool_search", { query: "select:tool_0,tool_1" }, ctx);
    expect(out.load).toEqual(["tool_1"]);
    expect(answer(out).matches.map((m) => m.name)).toEqual(["tool_0", "tool_1"]);
    expect(answer(out).note).toBeUndefined();
  });

  it("select_tools counts a loaded tool it answers as available against the room, rather than unload it", () => {
    const out = runBuiltin("select_tools", { names: ["beta", "alpha"] }, { ...searchContext(["alpha"]), room: 1 });
    expect(out.load).toEqual([]);
    expect(out.keep).toEqual(["alpha"]);
    expect(selected(out)).toEqual({
      beta: "not loaded: over the 1 tools tools[] has room for (1 of them kept for tools this step has loaded or named)",
      alpha: "already available",
    });
  });

  it("tool_search select: keeps the loaded tools it answers as matches", () => {
    const out = runBuiltin(
      "tool_search",
      { query: "select:tool_0,tool_1" },
      { ...context(), loaded: new Set(["tool_0"]) },
    );
    expect(out.keep).toEqual(["tool_0"]);
  });

  it("tool_info keeps a loaded tool it answers as loaded", () => {
    expect(runBuiltin("tool_info", { name: "alpha" }, searchContext(["alpha"])).keep).toEqual(["alpha"]);
  });
});

describe("tool_search select: of many names", () => {
  /** 200 deferred tools, `tool_0` to `tool_199`, and no search index (select: never searches). */
  function manyContext() {
    const agent = normalizeAgent("a", {
      model: { provider: "anthropic", name: "m" },
      tools: Array.from({ length: 200 }, (_, i) => ({
        name: `tool_${i}`,
        description: `the tool_${i} tool`,
        input_schema: { type: "object" },
        defer: true,
        execution: { type: "client" },
      })),
    });
    return { ...context(), registry: new ToolRegistry(agent) };
  }
  /** As many names that are no tool as a query holds: 400 (1,690 characters). */
  const unknownNames = Array.from({ length: 400 }, (_, i) => `x${i}`);

  it("lists a few of the names that are no tools and counts the rest", () => {
    const out = runBuiltin("tool_search", { query: `select:${unknownNames.join(",")}` }, manyContext());
    expect(out.load).toEqual([]);
    expect(answer(out)).toEqual({
      matches: [],
      note:
        "none of x0, x1, x2, x3, x4 and 15 more is a tool of this session; " +
        "not loaded, over max_results (20): x20, x21, x22, x23, x24 and 375 more",
    });
  });

  it("looks at no more names than max_results, answering the rest as over it", () => {
    const out = runBuiltin("tool_search", { query: "select:tool_1,nope,tool_2", max_results: 2 }, manyContext());
    expect(out.load).toEqual(["tool_1"]);
    expect(answer(out).note).toBe("not tools of this session: nope; not loaded, over max_results (2): tool_2.");
  });

  it("folds each name and each tool's name at most a few times, not once per name and tool", () => {
    const ctx = manyContext();
    const query = `select:${unknownNames.join(",")}`;
    const folds = vi.spyOn(String.prototype, "toLowerCase");
    try {
      runBuiltin("tool_search", { query }, ctx);
      expect(folds.mock.calls.length).toBeLessThanOrEqual(3 * (unknownNames.length + 200));
    } finally {
      folds.mockRestore();
    }
  });

  it("refuses a query over 2,000 characters as an invalid call", () => {
    const out = runBuiltin("tool_search", { query: `select:${"y".repeat(1994)}` }, manyContext());
    expect(out.is_error).toBe(true);
    expect(out.invalid).toEqual(["/query: must be at most 2000 characters long (got 2001)"]);
    expect(out.load).toEqual([]);
  });
});
