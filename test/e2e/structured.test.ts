// Structured output, chained arguments and invalid calls through real workerd, where code
// generation is refused: every schema here is first seen at request time.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { Api, Mock, startToolServer, type ToolServer, uniqueModel } from "../helpers/index.ts";

const api = new Api(inject("baseUrl"), inject("adminKey"));
const mock = new Mock(inject("mockUrl"));
let tools: ToolServer;
let key: string;

beforeAll(async () => {
  tools = await startToolServer((call) => ({ from: call.name, got: call.input, user: { id: 42, emails: ["a@x.io"] } }));
  key = (await api.createKey(`structured-${Date.now()}`)).key;
});

afterAll(async () => {
  await tools?.close();
});

async function session(model: string, toolDefs: unknown[] = []): Promise<string> {
  const agent = `e2e-${model}`;
  await api.putAgent(agent, {
    model: { provider: "anthropic", name: model },
    system: "test",
    tools: toolDefs,
  } as never);
  return (await api.createSession(key, agent)).id;
}

const tool = (name: string, input_schema: Record<string, unknown>) => ({
  name,
  description: `tool ${name}`,
  input_schema,
  execution: { type: "http", url: `${tools.url}/${name}` },
});

describe("validation without code generation (wrangler dev)", () => {
  it("validates structured output against a schema first seen in this request", async () => {
    const model = uniqueModel("so");
    const id = await session(model);
    // A schema no code could have been generated for at build time: a unique property name.
    const prop = `field_${Date.now().toString(36)}`;
    const schema = {
      type: "object",
      properties: { [prop]: { type: "integer", minimum: 10 } },
      required: [prop],
      additionalProperties: false,
    };
    await mock.script(model, [
      { reply: { tool_calls: [{ id: "toolu_e2e_bad", name: "structured_output", input: { [prop]: 3 } }] } },
      { reply: { tool_calls: [{ id: "toolu_e2e_ok", name: "structured_output", input: { [prop]: 12 } }] } },
    ]);
    const turn = await api.sendJson(key, id, { content: "answer as JSON", json_schema: schema });
    expect(turn.status).toBe("completed");
    expect(turn.structured_result).toEqual({ [prop]: 12 });
    const history = await api.history(key, id);
    const first = history.messages[2]?.parts[0] as { is_error?: boolean; content?: unknown };
    expect(first.is_error).toBe(true);
    expect(String(first.content)).toContain(prop);
  });

  it("refuses a schema with a typo with 422", async () => {
    const model = uniqueModel("so-typo");
    const id = await session(model);
    const res = await api.json<{ error: { code: string } }>("POST", `/v1/sessions/${id}/messages`, {
      key,
      body: { content: "x", json_schema: { type: "object", requird: ["a"] } },
      headers: { accept: "application/json" },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("invalid_schema");
  });
});

describe("schema patterns on the linear-time engine (wrangler dev)", () => {
  it("judges a tool's patterns in workerd: a catastrophic one refuses its value, an ordinary one passes", async () => {
    const model = uniqueModel("pattern");
    const id = await session(model, [
      tool("tag", {
        type: "object",
        // V8's backtracking engine takes hours on `^(a+)+$` against 40 letters and a "!"; RE2 answers at once.
        properties: {
          word: { type: "string", pattern: "^(a+)+$" },
          code: { type: "string", pattern: "^[A-Z]{3}\\d$" },
        },
        required: ["word", "code"],
      }),
    ]);
    await mock.script(model, [
      {
        reply: {
          tool_calls: [{ id: "toolu_pat_bad", name: "tag", input: { word: `${"a".repeat(40)}!`, code: "ABC1" } }],
        },
      },
      { reply: { tool_calls: [{ id: "toolu_pat_ok", name: "tag", input: { word: "aaaa", code: "XYZ9" } }] } },
      { reply: { text: "tagged" } },
    ]);
    const turn = await api.sendJson(key, id, { content: "tag it" });
    expect(turn.status).toBe("completed");
    // Only the valid call reached the tool.
    expect(tools.calls.filter((c) => c.name === "tag").map((c) => c.input)).toEqual([{ word: "aaaa", code: "XYZ9" }]);
    const events = (await api.events(key, id)).events as Array<{ type: string; data: Record<string, unknown> }>;
    const invalid = events.filter((e) => e.type === "tool_call_invalid");
    expect(invalid.map((e) => e.data.tool_use_id)).toEqual(["toolu_pat_bad"]);
  });

  it("refuses an agent whose tool pattern has a lookahead with 422", async () => {
    const res = await api.json<{ error: { code: string; message: string } }>(
      "PUT",
      `/v1/agents/e2e-lookahead-${Date.now()}`,
      {
        body: {
          model: { provider: "anthropic", name: uniqueModel("lookahead") },
          system: "test",
          tools: [tool("look", { type: "object", properties: { s: { type: "string", pattern: "^(?=.*\\d).+$" } } })],
        },
        key: api.admin,
      },
    );
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("invalid_schema");
  });
});

describe("chained arguments and invalid calls (wrangler dev)", () => {
  it("chains two tools via a $tool/$path reference", async () => {
    const model = uniqueModel("refs");
    const id = await session(model, [
      tool("find_user", { type: "object", properties: { name: { type: "string" } }, required: ["name"] }),
      tool("send_mail", {
        type: "object",
        properties: { to: { type: "string", format: "email" }, user_id: { type: "integer" } },
        required: ["to", "user_id"],
      }),
    ]);
    await mock.script(model, [
      { reply: { tool_calls: [{ id: "toolu_find", name: "find_user", input: { name: "ada" } }] } },
      {
        reply: {
          tool_calls: [
            {
              id: "toolu_mail",
              name: "send_mail",
              input: {
                to: { $tool: "toolu_find", $path: "user.emails[0]" },
                user_id: { $tool: "toolu_find", $path: "user.id" },
              },
            },
          ],
        },
      },
      { reply: { text: "sent" } },
    ]);
    const turn = await api.sendJson(key, id, { content: "mail ada" });
    expect(turn.status).toBe("completed");
    const mail = tools.calls.find((c) => c.name === "send_mail");
    expect(mail?.input).toEqual({ to: "a@x.io", user_id: 42 });
    expect((await mock.requests(model)).filter((r) => r.rejected)).toEqual([]);
  });

  it("turns an invalid call into an is_error result, a tool_call_invalid event and a visible history entry", async () => {
    const model = uniqueModel("invalid");
    const id = await session(model, [
      tool("set_level", { type: "object", properties: { level: { enum: ["low", "high"] } }, required: ["level"] }),
    ]);
    await mock.script(model, [
      { reply: { tool_calls: [{ id: "toolu_lvl", name: "set_level", input: { level: "max" } }] } },
      { reply: { text: "corrected" } },
    ]);
    const turn = await api.sendJson(key, id, { content: "set it" });
    expect(turn.status).toBe("completed");
    expect(tools.calls.some((c) => c.name === "set_level")).toBe(false);
    const history = await api.history(key, id);
    const result = history.messages[2]?.parts[0] as { tool_use_id?: string; is_error?: boolean; content?: unknown };
    expect(result.tool_use_id).toBe("toolu_lvl");
    expect(result.is_error).toBe(true);
    expect(String(result.content)).toContain("/level");
    const events = (await api.events(key, id)).events as Array<{ type: string; data: Record<string, unknown> }>;
    const invalid = events.filter((e) => e.type === "tool_call_invalid");
    expect(invalid).toHaveLength(1);
    expect(invalid[0]?.data.tool_use_id).toBe("toolu_lvl");
  });
});
