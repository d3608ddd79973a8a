// The mock server's Anthropic Messages endpoint (mock/anthropic.ts): byte-exact streams, non-streaming answers, the
// auth headers it requires, the real error body for a pairing violation, and the input tokens it counts.
import { describe, expect, it } from "vitest";
import { estimateTokens } from "../../../mock/chunks.ts";
import { CATALOG_SCHEMA } from "../../helpers/fixtures.ts";
import { anthropicRequest, mockPerFile, parseSse, postAnthropic, script, TWO_CALL_REPLY } from "./helpers.ts";

const mock = mockPerFile();

const reply = TWO_CALL_REPLY;

describe("Anthropic streaming", () => {
  it("streams thinking + text + two tool calls byte-exactly", async () => {
    await script(mock.url, "a-bytes", [{ reply }]);
    const res = await postAnthropic(mock.url, anthropicRequest("a-bytes"));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    expect(res.headers.get("request-id")).toMatch(/^req_/);
    const text = await res.text();
    const msgId = /"id":"(msg_01[0-9A-Za-z]{22})"/.exec(text)?.[1];
    const signature = /"signature":"(Eq[A-Za-z0-9+/=]+)"/.exec(text)?.[1];
    expect(msgId).toBeDefined();
    expect(signature).toBeDefined();
    const ev = (type: string, data: string) => `event: ${type}\ndata: ${data}\n\n`;
    const delta = (index: number, d: string) =>
      ev("content_block_delta", `{"type":"content_block_delta","index":${index},"delta":${d}}`);
    const json = (index: number, partial: string) =>
      delta(index, `{"type":"input_json_delta","partial_json":${JSON.stringify(partial)}}`);
    const expected = [
      ev(
        "message_start",
        `{"type":"message_start","message":{"id":"${msgId}","type":"message","role":"assistant","model":"a-bytes","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":42,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1,"service_tier":"standard"}}}`,
      ),
      ev(
        "content_block_start",
        '{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}',
      ),
      'event: ping\ndata: {"type": "ping"}\n\n',
      delta(0, '{"type":"thinking_delta","thinking":"Let"}'),
      delta(0, '{"type":"thinking_delta","thinking":" me"}'),
      delta(0, '{"type":"thinking_delta","thinking":" check."}'),
      delta(0, `{"type":"signature_delta","signature":"${signature}"}`),
      ev("content_block_stop", '{"type":"content_block_stop","index":0}'),
      ev("content_block_start", '{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}'),
      delta(1, '{"type":"text_delta","text":"Checking"}'),
      delta(1, '{"type":"text_delta","text":" both."}'),
      ev("content_block_stop", '{"type":"content_block_stop","index":1}'),
      ev(
        "content_block_start",
        '{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_01AAAAAAAAAAAAAAAAAAAAAA","name":"get_weather","input":{}}}',
      ),
      json(2, ""),
      json(2, '{"city":"P'),
      json(2, 'aris","day'),
      json(2, 's":3}'),
      ev("content_block_stop", '{"type":"content_block_stop","index":2}'),
      ev(
        "content_block_start",
        '{"type":"content_block_start","index":3,"content_block":{"type":"tool_use","id":"toolu_01BBBBBBBBBBBBBBBBBBBBBB","name":"get_time","input":{}}}',
      ),
      json(3, ""),
      json(3, '{"zone":"E'),
      json(3, "urope/Pari"),
      json(3, 's","nested'),
      json(3, '":{"a":[1,'),
      json(3, "2]}}"),
      ev("content_block_stop", '{"type":"content_block_stop","index":3}'),
      ev(
        "message_delta",
        '{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":17}}',
      ),
      ev("message_stop", '{"type":"message_stop"}'),
    ].join("");
    expect(text).toBe(expected);
  });

  it("parses into the expected event sequence and tool inputs", async () => {
    await script(mock.url, "a-parse", [
      { reply: { ...reply, tool_calls: reply.tool_calls.map(({ id: _, ...c }) => c) } },
    ]);
    const text = await (await postAnthropic(mock.url, anthropicRequest("a-parse"))).text();
    const events = parseSse(text);
    for (const e of events) expect(JSON.parse(e.data).type).toBe(e.event);
    const kinds = events.map((e) => {
      const data = JSON.parse(e.data);
      return e.event === "content_block_delta" ? data.delta.type : e.event;
    });
    const collapsed = kinds.filter((k, i) => k !== kinds[i - 1]);
    expect(collapsed).toEqual([
      "message_start",
      "content_block_start",
      "ping",
      "thinking_delta",
      "signature_delta",
      "content_block_stop",
      "content_block_start",
      "text_delta",
      "content_block_stop",
      "content_block_start",
      "input_json_delta",
      "content_block_stop",
      "content_block_start",
      "input_json_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    const inputs = new Map<number, string>();
    const ids: string[] = [];
    for (const e of events) {
      const data = JSON.parse(e.data);
      if (e.event === "content_block_start" && data.content_block.type === "tool_use") ids.push(data.content_block.id);
      if (data.delta?.type === "input_json_delta")
        inputs.set(data.index, (inputs.get(data.index) ?? "") + data.delta.partial_json);
    }
    expect([...inputs.values()].map((s) => JSON.parse(s))).toEqual(reply.tool_calls.map((c) => c.input));
    for (const id of ids) expect(id).toMatch(/^toolu_[0-9A-Za-z]{24}$/);
    expect(new Set(ids).size).toBe(2);
  });

  it("answers non-streaming requests with a message object", async () => {
    await script(mock.url, "a-json", [{ reply: { text: "Hi", text_after: "Bye", stop_reason: "max_tokens" } }]);
    const res = await postAnthropic(mock.url, anthropicRequest("a-json", { stream: false }));
    const body = await res.json();
    expect(body).toMatchObject({
      type: "message",
      role: "assistant",
      model: "a-json",
      content: [
        { type: "text", text: "Hi" },
        { type: "text", text: "Bye" },
      ],
      stop_reason: "max_tokens",
      stop_sequence: null,
    });
    expect(body.id).toMatch(/^msg_/);
  });

  it("requires x-api-key (401) and anthropic-version", async () => {
    const noKey = await fetch(`${mock.url}/v1/messages`, {
      method: "POST",
      headers: { "anthropic-version": "2023-06-01" },
      body: JSON.stringify(anthropicRequest("a-auth")),
    });
    expect(noKey.status).toBe(401);
    const body = await noKey.json();
    expect(body).toMatchObject({ type: "error", error: { type: "authentication_error" } });
    expect(body.request_id).toMatch(/^req_/);
    const noVersion = await fetch(`${mock.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": "k" },
      body: JSON.stringify(anthropicRequest("a-auth")),
    });
    expect(noVersion.status).toBe(400);
  });

  it("answers a P violation with the real error body", async () => {
    const res = await postAnthropic(
      mock.url,
      anthropicRequest("a-p", {
        messages: [
          { role: "user", content: "hi" },
          { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "x", input: {} }] },
          { role: "user", content: "no result" },
        ],
      }),
    );
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(Object.keys(body)).toEqual(["type", "error", "request_id"]);
    expect(body.error).toEqual({
      type: "invalid_request_error",
      message:
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
    });
  });
});

describe("Anthropic input tokens", () => {
  /** The input tokens reported for a history whose tool_search result loads `catalog` (a tool_reference) or not. */
  async function reported(model: string, reference: boolean): Promise<number> {
    await script(mock.url, model, [{ reply: { text: "ok" } }]);
    const content = [
      { type: "text", text: "found" },
      ...(reference ? [{ type: "tool_reference", tool_name: "catalog" }] : []),
    ];
    const res = await postAnthropic(
      mock.url,
      anthropicRequest(model, {
        stream: false,
        tools: [
          { name: "tool_search", description: "Search the tools", input_schema: { type: "object" } },
          { name: "catalog", description: "Catalog records", input_schema: CATALOG_SCHEMA, defer_loading: true },
        ],
        messages: [
          { role: "user", content: "find the catalog tool" },
          { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "tool_search", input: {} }] },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content }] },
        ],
      }),
    );
    expect(res.status).toBe(200);
    return ((await res.json()) as { usage: { input_tokens: number } }).usage.input_tokens;
  }

  it("counts a deferred tool a tool_reference loaded, whole: at least its schema more than before it loaded", async () => {
    const schema = estimateTokens(JSON.stringify(CATALOG_SCHEMA));
    expect(schema).toBeGreaterThan(5000);
    expect((await reported("a-tokens-loaded", true)) - (await reported("a-tokens-deferred", false))).toBeGreaterThan(
      schema,
    );
  });
});
