// Request bodies serialized a tool at a time (src/providers/body-text.ts): bodyText equals JSON.stringify, promptSize
// leaves out deferred tools no tool_reference has loaded, and wireOnce keeps each tool's wire form.
import { describe, expect, it } from "vitest";
import type { ToolDeclaration } from "../../../src/model/message";
import { bodyText, promptSize, wireOnce } from "../../../src/providers/body-text";
import { getAdapter } from "../../../src/providers/index";
import type { ProviderName, StepRequest } from "../../../src/providers/types";
import { textTokens } from "../../../src/session/compaction/estimate";
import { CATALOG_SCHEMA } from "../../helpers/fixtures";
import { capabilities, msg, request } from "./helpers";

/** Schemas as a registry holds them: one object per tool, kept across steps. */
const SCHEMAS = {
  search: { type: "object", properties: { q: { type: "string", description: "words" } }, required: ["q"] },
  weather: { type: "object", properties: { city: { type: "string" }, unit: { enum: ["c", "f"] } } },
  deferred: { type: "object", properties: { id: { type: "integer" } }, additionalProperties: false },
};

/** A step's declarations as stepTools builds them: new objects every step, around the same schemas. */
function declarations(): ToolDeclaration[] {
  return [
    { name: "search", description: "Search the web", input_schema: SCHEMAS.search },
    { name: "weather", description: "Weather for a city", input_schema: SCHEMAS.weather },
    { name: "lookup", description: "Look up a record", input_schema: SCHEMAS.deferred, defer_loading: true },
  ];
}

function step(provider: ProviderName, tools = declarations()): StepRequest {
  return request(provider, {
    model: {
      provider,
      name: "m",
      capabilities: capabilities({ prompt_cache: true, message_level_tools: provider === "openai" }),
    },
    system: "be brief",
    messages: [
      msg("user", [{ type: "text", text: 'hi \u2028 "quoted" \\ é' }]),
      msg("assistant", [{ type: "tool_use", id: "t1", name: "search", input: { q: "x" } }]),
      msg("user", [
        { type: "tool_result", tool_use_id: "t1", content: "found", is_error: false },
        {
          type: "tool_declarations",
          tools: [{ name: "lookup", description: "Look up", input_schema: SCHEMAS.deferred }],
        },
      ]),
    ],
    tools,
  });
}

const PROVIDERS: ProviderName[] = ["anthropic", "openai", "openai-responses"];

describe("bodyText", () => {
  it.each(PROVIDERS)("is JSON.stringify of the %s body, byte for byte, on the first step and the next", (provider) => {
    const build = getAdapter(provider).buildBody;
    for (let i = 0; i < 2; i++) {
      const req = step(provider);
      expect(bodyText(req, build)).toBe(JSON.stringify(build(step(provider))));
    }
  });

  it.each(PROVIDERS)(
    "sends the %s body with each lone surrogate as U+FFFD, an escaped backslash left alone",
    (provider) => {
      const req = request(provider, {
        messages: [msg("user", [{ type: "text", text: `cut \ud83d here \\ud83d \\\ud83d 😀 \ude00` }])],
      });
      const sent = JSON.parse(bodyText(req, getAdapter(provider).buildBody)) as unknown;
      expect(JSON.stringify(sent)).toContain(`"cut \uFFFD here \\\\ud83d \\\\\uFFFD 😀 \uFFFD"`);
    },
  );

  it.each(PROVIDERS)("gives the %s tools of the next step the same wire objects, frozen", (provider) => {
    const build = getAdapter(provider).buildBody;
    const first = build(step(provider)).tools as object[];
    const next = build(step(provider)).tools as object[];
    expect(next).toHaveLength(first.length);
    for (const [i, wire] of next.entries()) expect(wire).toBe(first[i]);
    expect(next.every((wire) => Object.isFrozen(wire))).toBe(true);
  });

  it("keeps each wire protocol's shape for the same schema, name and description", () => {
    const wires = Object.fromEntries(
      PROVIDERS.map((p) => [p, (getAdapter(p).buildBody(step(p)).tools as object[])[0]]),
    );
    expect(wires.anthropic).toEqual({ name: "search", description: "Search the web", input_schema: SCHEMAS.search });
    expect(wires.openai).toEqual({
      type: "function",
      function: { name: "search", description: "Search the web", parameters: SCHEMAS.search },
    });
    expect(wires["openai-responses"]).toEqual({
      type: "function",
      name: "search",
      description: "Search the web",
      parameters: SCHEMAS.search,
      strict: false,
    });
  });

  it("serializes a renamed or redescribed tool anew, not from the text of the old one", () => {
    const build = getAdapter("anthropic").buildBody;
    bodyText(step("anthropic"), build);
    const changed = declarations().map((d) =>
      d.name === "search" ? { ...d, name: "search_v2", description: "Search the web, v2" } : d,
    );
    const text = bodyText(step("anthropic", changed), build);
    expect(text).toBe(JSON.stringify(build(step("anthropic", changed))));
    expect(JSON.parse(text).tools[0]).toMatchObject({ name: "search_v2", description: "Search the web, v2" });
  });

  it("keeps a tool's deferred and loaded forms apart (defer_loading, the cache breakpoint)", () => {
    const build = getAdapter("anthropic").buildBody;
    const deferred = bodyText(step("anthropic"), build);
    const loaded = declarations().map(({ defer_loading: _d, ...d }) => d);
    const text = bodyText(step("anthropic", loaded), build);
    expect(JSON.parse(deferred).tools[2]).toEqual({
      name: "lookup",
      description: "Look up a record",
      input_schema: SCHEMAS.deferred,
      defer_loading: true,
    });
    // Loaded, it is the last non-deferred tool: it carries the cache breakpoint and no defer_loading.
    expect(JSON.parse(text).tools[2]).toEqual({
      name: "lookup",
      description: "Look up a record",
      input_schema: SCHEMAS.deferred,
      cache_control: { type: "ephemeral" },
    });
    expect(JSON.parse(text).tools[1]).not.toHaveProperty("cache_control");
  });
});

const length = (text: string) => text.length;

describe("promptSize", () => {
  it("leaves out the tools Anthropic keeps out of the prompt (defer_loading) and nothing else", () => {
    const build = getAdapter("anthropic").buildBody;
    const req = step("anthropic");
    const body = build(step("anthropic")) as { tools: Array<{ defer_loading?: true }> };
    const seen = JSON.stringify({ ...body, tools: body.tools.filter((t) => !t.defer_loading) });
    expect(promptSize(req, build, length)).toBe(seen.length);
    expect(promptSize(req, build, length)).toBeLessThan(bodyText(req, build).length);
  });

  it.each(PROVIDERS)("is the whole %s body when no tool is deferred", (provider) => {
    const build = getAdapter(provider).buildBody;
    const loaded = declarations().map(({ defer_loading: _d, ...d }) => d);
    const req = step(provider, loaded);
    expect(promptSize(req, build, length)).toBe(bodyText(req, build).length);
  });
});

describe("promptSize of a deferred tool a tool_reference loaded (Anthropic tool search)", () => {
  /** The same history, its tool_search result loading `catalog` (a tool_reference) or only saying it was found. */
  const loading = (reference: boolean): StepRequest =>
    request("anthropic", {
      model: { provider: "anthropic", name: "m", capabilities: capabilities({ native_tool_search: true }) },
      messages: [
        msg("user", [{ type: "text", text: "find the catalog tool" }]),
        msg("assistant", [{ type: "tool_use", id: "t1", name: "tool_search", input: { query: "catalog" } }]),
        msg("user", [
          {
            type: "tool_result",
            tool_use_id: "t1",
            content: [
              { type: "text", text: "found" },
              ...(reference ? [{ type: "tool_reference" as const, tool_name: "catalog" }] : []),
            ],
            is_error: false,
          },
        ]),
      ],
      tools: [
        ...declarations(),
        { name: "catalog", description: "Catalog records", input_schema: CATALOG_SCHEMA, defer_loading: true },
      ],
    });

  it("counts its whole definition: the request that loaded it is larger by at least its schema", () => {
    const build = getAdapter("anthropic").buildBody;
    const schema = textTokens(JSON.stringify(CATALOG_SCHEMA));
    expect(schema).toBeGreaterThan(5000);
    expect(
      promptSize(loading(true), build, textTokens) - promptSize(loading(false), build, textTokens),
    ).toBeGreaterThan(schema);
  });
});

describe("wireOnce", () => {
  it("builds once per schema and fields, compared by identity", () => {
    const schema = { type: "object" };
    let built = 0;
    const make = (fields: unknown[]) => wireOnce("t", schema, fields, () => ({ n: ++built }));
    const a = make(["x", true]);
    expect(make(["x", true])).toBe(a);
    expect(make(["x", false])).not.toBe(a);
    expect(make(["x"])).not.toBe(a);
    expect(wireOnce("u", schema, ["x", true], () => ({ n: ++built }))).not.toBe(a);
    expect(wireOnce("t", { type: "object" }, ["x", true], () => ({ n: ++built }))).not.toBe(a);
    expect(built).toBe(5);
  });

  it("keeps at most 8 forms of one schema, so a schema seen under many names does not grow without bound", () => {
    const schema = { type: "object" };
    const first = wireOnce("t", schema, ["v0"], () => ({ v: 0 }));
    for (let i = 1; i <= 7; i++) wireOnce("t", schema, [`v${i}`], () => ({ v: i }));
    expect(wireOnce("t", schema, ["v0"], () => ({ v: 0 }))).toBe(first);
    wireOnce("t", schema, ["v8"], () => ({ v: 8 }));
    expect(wireOnce("t", schema, ["v0"], () => ({ v: 0 }))).not.toBe(first);
  });

  it("returns an object that refuses changes, so its cached text cannot go stale", () => {
    const wire = wireOnce("t", {}, ["frozen"], () => ({ name: "a" }) as Record<string, unknown>);
    expect(() => {
      wire.name = "b";
    }).toThrow(TypeError);
  });
});
