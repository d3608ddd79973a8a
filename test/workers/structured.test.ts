// Structured output (a turn asked to answer by a json_schema): schema compile errors, turns ending in
// structured_result, /chat, size caps, and chained arguments beside invalid calls.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { STRUCTURED_RESULT_BUDGET_BYTES } from "../../src/storage/limits";
import {
  api,
  apiJson,
  events,
  history,
  mockRequests,
  pairingProblems,
  script,
  send,
  setup,
  sseFrames,
} from "./helpers";

const SCHEMA = {
  type: "object",
  properties: { city: { type: "string" }, temp_c: { type: "number" } },
  required: ["city", "temp_c"],
  additionalProperties: false,
};

const echo = (name: string) => ({
  name,
  description: `echo ${name}`,
  input_schema: { type: "object", properties: { q: { type: "string" } } },
  execution: { type: "http", url: `${env.MOCK_URL}/_tool` },
});

type Turn = {
  status: string;
  structured_result?: unknown;
  error?: { code: string; message: string; retryable?: boolean };
};

describe("structured output: schema compile", () => {
  it.each([
    ["an array root", { type: "array", items: { type: "string" } }],
    ["a typo keyword", { type: "object", propertees: { a: { type: "string" } } }],
    // Valid draft-07, but providers read the structured_output tool's schema as 2020-12 and refuse it.
    ["a draft-07 tuple", { type: "object", properties: { pair: { type: "array", items: [{ type: "string" }] } } }],
    ["a non-object", "not a schema"],
  ])("refuses %s with 422 and writes nothing", async (_n, schema) => {
    const s = await setup();
    const res = await apiJson<{ error: { code: string; message: string } }>(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "x", json_schema: schema },
    });
    expect(res.status).toBe(schema === "not a schema" ? 400 : 422);
    expect(await history(s)).toEqual([]);
    expect(await mockRequests(s.model)).toEqual([]);
  });

  it("names the problem of a typo", async () => {
    const s = await setup();
    const res = await apiJson<{ error: { code: string; message: string } }>(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "x", json_schema: { type: "object", properties: { a: { type: "string", minLenght: 2 } } } },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("invalid_schema");
    expect(res.body.error.message).toContain("minLenght");
  });

  it("accepts type unions at the root, declaring type object to the provider", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { tool_calls: [{ id: "toolu_u", name: "structured_output", input: {} }] } }]);
    const res = await send(s, { content: "x", json_schema: { type: ["object", "null"] } });
    expect(res.status).toBe(201);
    // The mock refuses a root type other than "object", as Anthropic does.
    expect((res.body as unknown as Turn).status).toBe("completed");
  });

  it("accepts a root union of object $refs with no root type, declaring its branches' properties", async () => {
    const s = await setup();
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_ru", name: "structured_output", input: { meow: "loud" } }] } },
    ]);
    const pet = {
      anyOf: [{ $ref: "#/$defs/Cat" }, { $ref: "#/$defs/Dog" }],
      $defs: {
        Cat: { type: "object", properties: { meow: { type: "string" } }, required: ["meow"] },
        Dog: { type: "object", properties: { bark: { type: "string" } }, required: ["bark"] },
      },
    };
    const body = (await send(s, { content: "a pet", json_schema: pet })).body as unknown as Turn;
    expect(body).toMatchObject({ status: "completed", structured_result: { meow: "loud" } });
    const tools = ((await mockRequests(s.model))[0]?.body.tools ?? []) as Array<{
      name: string;
      input_schema: { properties?: object };
    }>;
    const declared = tools.find((t) => t.name === "structured_output")?.input_schema;
    expect(Object.keys(declared?.properties ?? {})).toEqual(["meow", "bark"]);
  });
  it("declares the fields of a union nested in a root union branch, through a $ref", async () => {
    const s = await setup();
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_nu", name: "structured_output", input: { purr_nu: "soft" } }] } },
    ]);
    const pet = {
      anyOf: [{ $ref: "#/$defs/Feline" }, { $ref: "#/$defs/Dog" }],
      $defs: {
        Feline: { oneOf: [{ $ref: "#/$defs/Cat" }, { $ref: "#/$defs/Lion" }] },
        Cat: { type: "object", properties: { purr_nu: { type: "string" } }, required: ["purr_nu"] },
        Lion: { type: "object", properties: { roar_nu: { type: "string" } }, required: ["roar_nu"] },
        Dog: { type: "object", properties: { bark_nu: { type: "string" } }, required: ["bark_nu"] },
      },
    };
    const body = (await send(s, { content: "a pet", json_schema: pet })).body as unknown as Turn;
    expect(body).toMatchObject({ status: "completed", structured_result: { purr_nu: "soft" } });
    const tools = ((await mockRequests(s.model))[0]?.body.tools ?? []) as Array<{
      name: string;
      input_schema: { properties?: object };
    }>;
    const declared = tools.find((t) => t.name === "structured_output")?.input_schema;
    expect(Object.keys(declared?.properties ?? {})).toEqual(["purr_nu", "roar_nu", "bark_nu"]);
  });
});

describe("structured output: turns", () => {
  it("the first valid call ends the turn with structured_result", async () => {
    const s = await setup();
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_so", name: "structured_output", input: { city: "Oslo", temp_c: 21 } }] } },
    ]);
    const res = await send(s, { content: "weather as JSON", json_schema: SCHEMA });
    const body = res.body as unknown as Turn;
    expect(body.status).toBe("completed");
    expect(body.structured_result).toEqual({ city: "Oslo", temp_c: 21 });
    const tools = ((await mockRequests(s.model))[0]?.body.tools ?? []) as Array<{
      name: string;
      input_schema: unknown;
    }>;
    const declared = tools.find((t) => t.name === "structured_output");
    expect(declared?.input_schema).toEqual(SCHEMA);
  });

  it("skips sibling calls when structured_output succeeds, keeping the pairing", async () => {
    const s = await setup({ tools: [echo("lookup")] });
    await script(s.model, [
      {
        reply: {
          tool_calls: [
            { id: "toolu_sib", name: "lookup", input: { q: "x" } },
            { id: "toolu_so2", name: "structured_output", input: { city: "Rome", temp_c: 30 } },
          ],
        },
      },
    ]);
    const body = (await send(s, { content: "go", json_schema: SCHEMA })).body as unknown as Turn;
    expect(body.status).toBe("completed");
    const msgs = await history(s);
    expect(pairingProblems(msgs)).toEqual([]);
    const results = msgs[2]?.parts ?? [];
    expect(results[0]).toMatchObject({ tool_use_id: "toolu_sib", is_error: true });
    expect(String(results[0]?.content)).toContain("skipped");
    expect((await events(s)).some((e) => e.type === "tool_executed")).toBe(false);
  });

  it("returns validation errors for invalid arguments and lets the model retry", async () => {
    const s = await setup();
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_bad1", name: "structured_output", input: { city: "Oslo" } }] } },
      { reply: { tool_calls: [{ id: "toolu_ok1", name: "structured_output", input: { city: "Oslo", temp_c: 3 } }] } },
    ]);
    const body = (await send(s, { content: "go", json_schema: SCHEMA })).body as unknown as Turn;
    expect(body.status).toBe("completed");
    expect(body.structured_result).toEqual({ city: "Oslo", temp_c: 3 });
    const first = (await history(s))[2]?.parts[0];
    expect(first).toMatchObject({ tool_use_id: "toolu_bad1", is_error: true });
    expect(String(first?.content)).toContain("temp_c");
    expect((await events(s)).filter((e) => e.type === "tool_call_invalid")).toHaveLength(1);
  });

  it("refuses an array with a duplicate under uniqueItems, naming the pair, and takes the corrected value", async () => {
    const s = await setup();
    const unique = {
      type: "object",
      properties: { ids_uq: { type: "array", uniqueItems: true, items: { type: "object" } } },
      required: ["ids_uq"],
    };
    await script(s.model, [
      {
        reply: {
          tool_calls: [
            {
              id: "toolu_dup1",
              name: "structured_output",
              input: {
                ids_uq: [
                  { a: 1, b: 2 },
                  { b: 2, a: 1 },
                ],
              },
            },
          ],
        },
      },
      {
        reply: {
          tool_calls: [{ id: "toolu_uq1", name: "structured_output", input: { ids_uq: [{ a: 1 }, { a: 2 }] } }],
        },
      },
    ]);
    const body = (await send(s, { content: "go", json_schema: unique })).body as unknown as Turn;
    expect(body).toMatchObject({ status: "completed", structured_result: { ids_uq: [{ a: 1 }, { a: 2 }] } });
    const first = (await history(s))[2]?.parts[0];
    expect(first).toMatchObject({ tool_use_id: "toolu_dup1", is_error: true });
    expect(String(first?.content)).toContain("must not contain duplicates (items 0 and 1 are equal)");
  });

  // The library's `url` regex backtracked exponentially on this value, and the object was blocked for good.
  it("refuses http:// and 60 letters as a url, and takes the model's next attempt", async () => {
    const s = await setup();
    const linked = {
      type: "object",
      properties: { link_fm: { type: "string", format: "url" } },
      required: ["link_fm"],
    };
    const call = (id: string, link: string) => ({
      reply: { tool_calls: [{ id, name: "structured_output", input: { link_fm: link } }] },
    });
    await script(s.model, [
      call("toolu_url1", `http://${"a".repeat(60)}`),
      call("toolu_url2", "https://example.com/a"),
    ]);
    const body = (await send(s, { content: "a link", json_schema: linked })).body as unknown as Turn;
    expect(body).toMatchObject({ status: "completed", structured_result: { link_fm: "https://example.com/a" } });
    const first = (await history(s))[2]?.parts[0];
    expect(first).toMatchObject({ tool_use_id: "toolu_url1", is_error: true });
    expect(String(first?.content)).toContain("must be a valid url string");
  });

  it("fails with structured_output_missing when the model answers in plain text", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { text: "It is sunny in Oslo, about 21 degrees." } }]);
    const body = (await send(s, { content: "go", json_schema: SCHEMA })).body as unknown as Turn;
    expect(body.status).toBe("failed");
    expect(body.error?.code).toBe("structured_output_missing");
    expect(body.error?.message).toContain("1 step");
    expect(body.error?.message).toContain("It is sunny in Oslo");
  });

  it("says retryable: false when the model answered in plain text, as /retry then refuses", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { text: "Rainy in Bergen." } }]);
    const body = (await send(s, { content: "go", json_schema: SCHEMA })).body as unknown as Turn;
    expect(body.error).toMatchObject({ code: "structured_output_missing", retryable: false });
    const retry = await apiJson<{ error: { code: string } }>(`/v1/sessions/${s.session}/retry`, {
      method: "POST",
      key: s.key,
    });
    expect(retry.status).toBe(409);
    expect(retry.body.error.code).toBe("nothing_to_retry");
  });
});

describe("structured output: /chat", () => {
  const chat = (session: string, text: string, extra: Record<string, unknown>) => ({
    id: session,
    messages: [{ id: "u1", role: "user", parts: [{ type: "text", text }] }],
    ...extra,
  });

  it("a /chat user message with json_schema offers structured_output and delivers its value", async () => {
    const s = await setup();
    await script(s.model, [
      {
        reply: {
          tool_calls: [{ id: "toolu_chat_so", name: "structured_output", input: { city: "Bergen", temp_c: 9 } }],
        },
      },
    ]);
    const res = await api(`/v1/sessions/${s.session}/chat`, {
      method: "POST",
      key: s.key,
      json: chat(s.session, "weather as JSON", { json_schema: SCHEMA }),
    });
    expect(res.status).toBe(200);
    const frames = await sseFrames(res);
    const chunk = frames.find((f) => f.data.includes('"data-structured-result"'));
    expect(JSON.parse(chunk?.data ?? "{}").data).toEqual({ city: "Bergen", temp_c: 9 });
    const tools = ((await mockRequests(s.model))[0]?.body.tools ?? []) as Array<{ name: string }>;
    expect(tools.map((t) => t.name)).toContain("structured_output");
  });

  it("refuses a /chat json_schema that does not compile with 422 and writes nothing", async () => {
    const s = await setup();
    const res = await apiJson<{ error: { code: string } }>(`/v1/sessions/${s.session}/chat`, {
      method: "POST",
      key: s.key,
      json: chat(s.session, "x", { json_schema: { type: "array" } }),
    });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("invalid_schema");
    expect(await history(s)).toEqual([]);
    expect(await mockRequests(s.model)).toEqual([]);
  });
});

describe("structured output: size", () => {
  const A_ONLY = { type: "object", properties: { s: { type: "string", pattern: "^a+$" } }, required: ["s"] };
  /** A value of `{"s": "aaa…"}` whose JSON is exactly `bytes` bytes. */
  const sized = (bytes: number) => ({ s: "a".repeat(bytes - '{"s":""}'.length) });

  it("refuses a valid value over the budget as an invalid call naming the limit, and takes the corrected one", async () => {
    const s = await setup();
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_big_so", name: "structured_output", input: { s: "a".repeat(600_000) } }] } },
      { reply: { tool_calls: [{ id: "toolu_small_so", name: "structured_output", input: { s: "aaa" } }] } },
    ]);
    const body = (await send(s, { content: "go", json_schema: A_ONLY })).body as unknown as Turn;
    expect(body.status).toBe("completed");
    expect(body.structured_result).toEqual({ s: "aaa" });
    const refused = (await history(s))[2]?.parts[0];
    expect(refused).toMatchObject({ tool_use_id: "toolu_big_so", is_error: true });
    expect(String(refused?.content)).toContain(`at most ${STRUCTURED_RESULT_BUDGET_BYTES} bytes`);
  });

  it("delivers a value at the budget whole, in the turn's answer and on the stream", async () => {
    const s = await setup();
    const value = sized(STRUCTURED_RESULT_BUDGET_BYTES);
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_edge_so", name: "structured_output", input: value }] } },
    ]);
    const body = (await send(s, { content: "go", json_schema: A_ONLY })).body as unknown as Turn;
    expect(body.status).toBe("completed");
    expect(body.structured_result).toEqual(value);
    const frames = await sseFrames(await api(`/v1/sessions/${s.session}/stream?after=0`, { key: s.key }));
    const chunk = frames.find((f) => f.data.includes('"data-structured-result"'));
    expect(JSON.parse(chunk?.data ?? "{}").data).toEqual(value);
  });
});

describe("chained arguments and invalid calls", () => {
  it("resolves a $tool/$path reference to an earlier result before executing", async () => {
    const s = await setup({ tools: [echo("first"), echo("second")] });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_r1", name: "first", input: { q: "alpha" } }] } },
      {
        reply: {
          tool_calls: [{ id: "toolu_r2", name: "second", input: { q: { $tool: "toolu_r1", $path: "echo.input.q" } } }],
        },
      },
      { reply: { text: "chained" } },
    ]);
    expect((await send(s, { content: "chain" })).body.status).toBe("completed");
    const second = (await history(s))[4]?.parts[0];
    expect(JSON.parse(String(second?.content))).toMatchObject({ echo: { name: "second", input: { q: "alpha" } } });
    const tools = (await mockRequests(s.model))[0]?.body.tools as Array<{
      input_schema: { properties: { q: unknown }; $defs?: unknown };
    }>;
    // The value position points to the one shared reference schema in the declaration's $defs.
    expect(JSON.stringify(tools[0]?.input_schema.properties.q)).toContain("#/$defs/tool_ref");
    expect(JSON.stringify(tools[0]?.input_schema.$defs)).toContain("$tool");
    expect(JSON.stringify((await mockRequests(s.model))[0]?.body.system)).toContain("$tool");
  });

  it("resolves a reference to the result of a call that loaded its deferred tool (its tool_reference is not the value)", async () => {
    const s = await setup({ tools: [{ ...echo("first"), defer: true }, echo("second")] });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_d1", name: "first", input: { q: "beta" } }] } },
      {
        reply: {
          tool_calls: [{ id: "toolu_d2", name: "second", input: { q: { $tool: "toolu_d1", $path: "echo.input.q" } } }],
        },
      },
      { reply: { text: "chained" } },
    ]);
    expect((await send(s, { content: "chain" })).body.status).toBe("completed");
    const results = (await history(s)).flatMap((m) => m.parts).filter((p) => p.type === "tool_result");
    expect(JSON.stringify(results[0]?.content)).toContain('"tool_reference"');
    expect(results[1]).toMatchObject({ tool_use_id: "toolu_d2", is_error: false });
    expect(JSON.parse(String(results[1]?.content))).toMatchObject({ echo: { name: "second", input: { q: "beta" } } });
  });

  it("refuses a reference in a client tool's arguments (the client would get it unresolved), and does not offer one", async () => {
    const s = await setup({
      tools: [
        echo("first"),
        {
          name: "pick",
          input_schema: { type: "object", properties: { q: { type: "string" } } },
          execution: { type: "client" },
        },
      ],
    });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_c1", name: "first", input: { q: "gamma" } }] } },
      {
        reply: {
          tool_calls: [{ id: "toolu_c2", name: "pick", input: { q: { $tool: "toolu_c1", $path: "echo.input.q" } } }],
        },
      },
      { reply: { text: "passed it on" } },
    ]);
    const turn = await send(s, { content: "pick it" });
    expect(turn.body.status).toBe("completed");
    const result = (await history(s))
      .flatMap((m) => m.parts)
      .find((p) => p.tool_use_id === "toolu_c2" && p.type === "tool_result");
    expect(result).toMatchObject({ is_error: true });
    expect(String(result?.content)).toContain("runs in the client");
    const invalid = (await events(s)).filter((e) => e.type === "tool_call_invalid");
    expect(invalid.map((e) => e.data.tool_use_id)).toEqual(["toolu_c2"]);
    const tools = (await mockRequests(s.model))[0]?.body.tools as Array<{ name: string; input_schema: unknown }>;
    expect(JSON.stringify(tools.find((t) => t.name === "pick")?.input_schema)).not.toContain("$tool");
  });

  it("records bad input to a built-in tool as an invalid call", async () => {
    const s = await setup({ tools: [{ ...echo("hidden"), defer: true }] });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_b1", name: "tool_search", input: { query: "hidden", max_results: 50 } }] } },
      { reply: { text: "ok" } },
    ]);
    await send(s, { content: "search" });
    const result = (await history(s)).flatMap((m) => m.parts).find((p) => p.type === "tool_result");
    expect(result).toMatchObject({ tool_use_id: "toolu_b1", is_error: true });
    expect(String(result?.content)).toContain("max_results");
    const invalid = (await events(s)).filter((e) => e.type === "tool_call_invalid");
    expect(invalid).toHaveLength(1);
    expect(invalid[0]?.data).toMatchObject({ tool: "tool_search", tool_use_id: "toolu_b1" });
  });

  it("answers a reference to an unknown call with an error naming it", async () => {
    const s = await setup({ tools: [echo("second")] });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_r3", name: "second", input: { q: { $tool: "toolu_nope" } } }] } },
      { reply: { text: "ok" } },
    ]);
    await send(s, { content: "chain" });
    const result = (await history(s))[2]?.parts[0];
    expect(result).toMatchObject({ is_error: true });
    expect(String(result?.content)).toContain("toolu_nope");
  });

  it("records an invalid call as an is_error result, an event and keeps it visible in history", async () => {
    const s = await setup({
      tools: [
        {
          ...echo("typed"),
          input_schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
        },
      ],
    });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_inv", name: "typed", input: { n: "three" } }] } },
      { reply: { text: "fixed" } },
    ]);
    await send(s, { content: "go" });
    const result = (await history(s))[2]?.parts[0];
    expect(result).toMatchObject({ tool_use_id: "toolu_inv", is_error: true });
    expect(String(result?.content)).toContain("/n");
    const invalid = (await events(s)).filter((e) => e.type === "tool_call_invalid");
    expect(invalid).toHaveLength(1);
    expect(invalid[0]?.data).toMatchObject({ tool: "typed", tool_use_id: "toolu_inv" });
    expect(String(invalid[0]?.data.arguments)).toContain("three");
  });
});
