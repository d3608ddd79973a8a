// The Anthropic request body (src/providers/anthropic-body.ts): how history, tools, cache breakpoints, thinking and
// tool results are projected onto the Messages API.
import { describe, expect, it } from "vitest";
import type { Part, ToolDeclaration } from "../../../src/model/message";
import { anthropic, anthropicBetas } from "../../../src/providers/anthropic";
import { ERROR_WITHOUT_MESSAGE } from "../../../src/providers/anthropic-body";
import { checkInvariant } from "../../../src/providers/check-invariant";
import { capabilities, msg, request } from "./helpers";

const TOOLS: ToolDeclaration[] = [
  { name: "a", description: "tool a", input_schema: { type: "object" } },
  { name: "b", description: "tool b", input_schema: { type: "object", properties: { x: { type: "string" } } } },
];

const toolUse = (id: string) => ({ type: "tool_use" as const, id, name: "a", input: { q: id } });
const result = (id: string, is_error = false) => ({
  type: "tool_result" as const,
  tool_use_id: id,
  content: `r-${id}`,
  is_error,
});

describe("anthropic buildBody", () => {
  it("projects the request with defaults", () => {
    const body = anthropic.buildBody(request("anthropic", { system: "be brief", tools: TOOLS }));
    expect(body).toEqual({
      model: "claude-test",
      max_tokens: 8192,
      system: "be brief",
      messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
      tools: [
        { name: "a", description: "tool a", input_schema: { type: "object" } },
        { name: "b", description: "tool b", input_schema: { type: "object", properties: { x: { type: "string" } } } },
      ],
      stream: true,
    });
  });

  it("sends another provider's tool call ids in characters Anthropic accepts, each call still paired with its result", () => {
    const ids = ["functions.get_weather:0", "functions_get_weather_0", "functions:get_weather.0", "toolu_ok"];
    const body = anthropic.buildBody(
      request("anthropic", {
        tools: TOOLS,
        messages: [
          msg("user", [{ type: "text", text: "weather?" }]),
          msg("assistant", ids.map(toolUse)),
          msg(
            "user",
            ids.map((id) => result(id)),
          ),
        ],
      }),
    );
    const messages = body.messages as Array<{ content: Array<{ type: string; id?: string; tool_use_id?: string }> }>;
    const uses = (messages[1]?.content ?? []).map((b) => b.id as string);
    const answered = (messages[2]?.content ?? []).map((b) => b.tool_use_id as string);
    for (const id of uses) expect(id).toMatch(/^[a-zA-Z0-9_-]+$/);
    expect(answered).toEqual(uses);
    expect(new Set(uses).size).toBe(ids.length);
    expect(uses[1]).toBe("functions_get_weather_0");
    expect(uses[3]).toBe("toolu_ok");
    expect(checkInvariant("anthropic", body)).toEqual([]);
  });

  it("without native_tool_search sends each tool_reference as text, so no request needs the tool-search beta", () => {
    const req = request("anthropic", {
      tools: TOOLS,
      model: { provider: "anthropic", name: "claude-test", capabilities: capabilities({ native_tool_search: false }) },
      messages: [
        msg("user", [{ type: "text", text: "load a" }]),
        msg("assistant", [toolUse("toolu_sel")]),
        msg("user", [
          {
            type: "tool_result",
            tool_use_id: "toolu_sel",
            content: [
              { type: "text", text: '{"a":"loaded"}' },
              { type: "tool_reference", tool_name: "a" },
            ],
            is_error: false,
          },
        ]),
      ],
    });
    const body = anthropic.buildBody(req);
    expect(JSON.stringify(body)).not.toContain("tool_reference");
    expect(JSON.stringify(body)).toContain("[tool a was loaded here]");
    expect(anthropicBetas(req, body)).toEqual([]);
  });

  it("drops empty and whitespace-only text blocks from tool results (the API refuses them)", () => {
    const body = anthropic.buildBody(
      request("anthropic", {
        tools: TOOLS,
        messages: [
          msg("user", [{ type: "text", text: "go" }]),
          msg("assistant", [toolUse("toolu_e1"), toolUse("toolu_e2")]),
          msg("user", [
            {
              type: "tool_result",
              tool_use_id: "toolu_e1",
              content: [
                { type: "text", text: "" },
                { type: "tool_reference", tool_name: "a" },
              ],
              is_error: false,
            },
            { type: "tool_result", tool_use_id: "toolu_e2", content: [{ type: "text", text: " \n" }], is_error: false },
          ]),
        ],
      }),
    );
    const results = (body.messages as Array<{ content: Array<{ content?: unknown }> }>)[2]?.content ?? [];
    expect(results.map((r) => r.content)).toEqual([[{ type: "tool_reference", tool_name: "a" }], ""]);
    expect(checkInvariant("anthropic", body)).toEqual([]);
  });

  it("gives an error result that projects to empty a placeholder message (the API refuses it empty)", () => {
    const body = anthropic.buildBody(
      request("anthropic", {
        tools: TOOLS,
        messages: [
          msg("user", [{ type: "text", text: "go" }]),
          msg("assistant", [toolUse("toolu_ee1"), toolUse("toolu_ee2"), toolUse("toolu_ee3")]),
          msg("user", [
            { type: "tool_result", tool_use_id: "toolu_ee1", content: "", is_error: true },
            { type: "tool_result", tool_use_id: "toolu_ee2", content: [{ type: "text", text: " " }], is_error: true },
            { type: "tool_result", tool_use_id: "toolu_ee3", content: "", is_error: false },
          ]),
        ],
      }),
    );
    const results = (body.messages as Array<{ content: Array<{ content?: unknown }> }>)[2]?.content ?? [];
    expect(results.map((r) => r.content)).toEqual([ERROR_WITHOUT_MESSAGE, ERROR_WITHOUT_MESSAGE, ""]);
  });

  it("omits an empty system prompt and an empty tool list", () => {
    const body = anthropic.buildBody(request("anthropic"));
    expect(body).not.toHaveProperty("system");
    expect(body).not.toHaveProperty("tools");
  });

  it("puts cache_control on the system block and on the last tool only", () => {
    const req = request("anthropic", { system: "sys", tools: TOOLS });
    req.model = { ...req.model, capabilities: capabilities({ prompt_cache: true }) };
    const body = anthropic.buildBody(req);
    expect(body.system).toEqual([{ type: "text", text: "sys", cache_control: { type: "ephemeral" } }]);
    const tools = body.tools as Array<Record<string, unknown>>;
    expect(tools[0]).not.toHaveProperty("cache_control");
    expect(tools[1]?.cache_control).toEqual({ type: "ephemeral" });
  });

  it("puts the compaction breakpoint on the block holding the summary only, never on failed compactions", () => {
    const ok: Part = { type: "compaction", provider: "anthropic", content: "summary-cc1", encrypted: "state-cc1" };
    const failed: Part = { type: "compaction", provider: "anthropic", content: null };
    const req = request("anthropic", {
      model: {
        provider: "anthropic",
        name: "claude-cc1",
        capabilities: capabilities({ native_compaction: true, prompt_cache: true }),
      },
      system: "sys",
      tools: [TOOLS[0] as ToolDeclaration],
      messages: [
        msg("user", [{ type: "text", text: "(compacted)" }]),
        msg("assistant", [ok, { type: "text", text: "one" }]),
        msg("user", [{ type: "text", text: "q2" }]),
        msg("assistant", [failed, { type: "text", text: "two" }]),
        msg("user", [{ type: "text", text: "q3" }]),
        msg("assistant", [failed, { type: "text", text: "three" }]),
        msg("user", [{ type: "text", text: "q4" }]),
      ],
    });
    const messages = anthropic.buildBody(req).messages as Array<{ content: Array<Record<string, unknown>> }>;
    const compactions = messages.flatMap((m) => m.content).filter((b) => b.type === "compaction");
    expect(compactions).toEqual([
      {
        type: "compaction",
        content: "summary-cc1",
        encrypted_content: "state-cc1",
        cache_control: { type: "ephemeral" },
      },
      { type: "compaction", content: null },
      { type: "compaction", content: null },
    ]);
  });

  it("never carries more than the API's 4 cache_control breakpoints, whatever the history's compactions", () => {
    const ok = (k: number): Part => ({
      type: "compaction",
      provider: "anthropic",
      content: `s${k}`,
      encrypted: `e${k}`,
    });
    const failed: Part = { type: "compaction", provider: "anthropic", content: null };
    const deferred: ToolDeclaration = { ...(TOOLS[1] as ToolDeclaration), defer_loading: true };
    for (const system of ["", "sys"]) {
      for (const tools of [[], TOOLS, [TOOLS[0] as ToolDeclaration, deferred]]) {
        for (const oks of [0, 1, 2]) {
          for (const fails of [0, 1, 3]) {
            const blocks = [...Array.from({ length: oks }, (_, k) => ok(k)), ...Array(fails).fill(failed)];
            const messages = blocks.flatMap((b, k) => [
              msg("user", [{ type: "text", text: `q${k}` }]),
              msg("assistant", [b, { type: "text", text: `a${k}` }]),
            ]);
            messages.push(msg("user", [{ type: "text", text: "last" }]));
            const body = anthropic.buildBody(
              request("anthropic", {
                model: {
                  provider: "anthropic",
                  name: "claude-cc2",
                  capabilities: capabilities({ native_compaction: true, prompt_cache: true }),
                },
                system,
                tools,
                messages,
              }),
            );
            const breakpoints = JSON.stringify(body).split('"cache_control"').length - 1;
            expect(
              breakpoints,
              `system=${system !== ""} tools=${tools.length} oks=${oks} fails=${fails}`,
            ).toBeLessThanOrEqual(4);
          }
        }
      }
    }
  });

  it("puts one breakpoint in the conversation, on the last block of a tool loop's history, so later steps read it from the cache", () => {
    const big = "x".repeat(100_000);
    const req = request("anthropic", {
      model: { provider: "anthropic", name: "claude-mb1", capabilities: capabilities({ prompt_cache: true }) },
      system: "sys",
      tools: TOOLS,
      messages: [
        msg("user", [{ type: "text", text: "research this" }]),
        msg("assistant", [{ type: "thinking", thinking: "plan", signature: "sig-mb1" }, toolUse("toolu_mb1")]),
        msg("user", [{ ...result("toolu_mb1"), content: big }]),
        msg("assistant", [toolUse("toolu_mb2"), toolUse("toolu_mb3")]),
        msg("user", [result("toolu_mb2"), { ...result("toolu_mb3"), content: big }]),
        msg("assistant", [{ type: "text", text: "one more" }, toolUse("toolu_mb4")]),
        msg("user", [{ ...result("toolu_mb4"), content: big }]),
      ],
    });
    const messages = anthropic.buildBody(req).messages as Array<{ content: Array<Record<string, unknown>> }>;
    const marked = messages.flatMap((m, n) =>
      m.content.flatMap((b, k) => (b.cache_control === undefined ? [] : [[n, k]])),
    );
    const last = messages.length - 1;
    expect(marked).toEqual([[last, (messages[last]?.content.length ?? 0) - 1]]);
    expect(messages[last]?.content.at(-1)).toEqual({
      type: "tool_result",
      tool_use_id: "toolu_mb4",
      content: big,
      cache_control: { type: "ephemeral" },
    });
  });

  it("puts the conversation's breakpoint on the last block that takes one, passing over an empty tool result", () => {
    const req = request("anthropic", {
      model: { provider: "anthropic", name: "claude-mb2", capabilities: capabilities({ prompt_cache: true }) },
      tools: TOOLS,
      messages: [
        msg("user", [{ type: "text", text: "go" }]),
        msg("assistant", [toolUse("toolu_mb5"), toolUse("toolu_mb6")]),
        msg("user", [result("toolu_mb5"), { ...result("toolu_mb6"), content: "" }]),
      ],
    });
    const messages = anthropic.buildBody(req).messages as Array<{ content: Array<Record<string, unknown>> }>;
    expect(messages[2]?.content).toEqual([
      { type: "tool_result", tool_use_id: "toolu_mb5", content: "r-toolu_mb5", cache_control: { type: "ephemeral" } },
      { type: "tool_result", tool_use_id: "toolu_mb6", content: "" },
    ]);
  });

  it("leaves the messages of a request sent once (a summary request) out of the cache", () => {
    const req = request("anthropic", {
      model: { provider: "anthropic", name: "claude-mb3", capabilities: capabilities({ prompt_cache: true }) },
      system: "sys",
      messages: [msg("user", [{ type: "text", text: "summarise this transcript" }])],
      cacheMessages: false,
    });
    const body = anthropic.buildBody(req);
    expect(body.messages).toEqual([{ role: "user", content: [{ type: "text", text: "summarise this transcript" }] }]);
    expect(body.system).toEqual([{ type: "text", text: "sys", cache_control: { type: "ephemeral" } }]);
  });

  it("carries 4 breakpoints at most: system, tools, the summarised compaction and the conversation's last block", () => {
    const req = request("anthropic", {
      model: {
        provider: "anthropic",
        name: "claude-mb4",
        capabilities: capabilities({ native_compaction: true, prompt_cache: true }),
      },
      system: "sys",
      tools: TOOLS,
      messages: [
        msg("user", [{ type: "text", text: "(compacted)" }]),
        msg("assistant", [
          { type: "compaction", provider: "anthropic", content: "summary-mb4", encrypted: "e-mb4" },
          toolUse("toolu_mb7"),
        ]),
        msg("user", [result("toolu_mb7"), { type: "text", text: "and then?" }]),
      ],
    });
    const body = anthropic.buildBody(req);
    const messages = body.messages as Array<{ content: Array<Record<string, unknown>> }>;
    const where = [
      ...(body.system as Array<Record<string, unknown>>).map((b) => (b.cache_control ? "system" : null)),
      ...(body.tools as Array<Record<string, unknown>>).map((t) => (t.cache_control ? `tool ${t.name}` : null)),
      ...messages.flatMap((m) => m.content.map((b) => (b.cache_control ? `${b.type} ${b.text ?? ""}` : null))),
    ].filter((w) => w !== null);
    expect(where).toEqual(["system", "tool b", "compaction ", "text and then?"]);
  });

  it("enables thinking with a budget below max_tokens", () => {
    const req = request("anthropic");
    req.model = { ...req.model, capabilities: capabilities({ thinking: true }) };
    expect(anthropic.buildBody(req).thinking).toEqual({ type: "enabled", budget_tokens: 4096 });
    expect(anthropic.buildBody({ ...req, model: { ...req.model, max_tokens: 2000 } }).thinking).toEqual({
      type: "enabled",
      budget_tokens: 1999,
    });
    expect(anthropic.buildBody({ ...req, model: { ...req.model, max_tokens: 1000 } })).not.toHaveProperty("thinking");
  });

  it("merges consecutive user messages with tool_results first, in the order given", () => {
    const req = request("anthropic", {
      messages: [
        msg("user", [{ type: "text", text: "weather?" }]),
        msg("assistant", [{ type: "text", text: "checking" }, toolUse("toolu_1"), toolUse("toolu_2")]),
        msg("user", [{ type: "text", text: "typed while the tools ran" }]),
        msg("user", [result("toolu_1"), result("toolu_2", true)]),
      ],
    });
    const body = anthropic.buildBody(req);
    expect(body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "weather?" }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "checking" },
          { type: "tool_use", id: "toolu_1", name: "a", input: { q: "toolu_1" } },
          { type: "tool_use", id: "toolu_2", name: "a", input: { q: "toolu_2" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_1", content: "r-toolu_1" },
          { type: "tool_result", tool_use_id: "toolu_2", content: "r-toolu_2", is_error: true },
          { type: "text", text: "typed while the tools ran" },
        ],
      },
    ]);
    expect(checkInvariant("anthropic", body)).toEqual([]);
  });

  it("keeps signed thinking, drops unsigned thinking, maps redacted thinking", () => {
    const req = request("anthropic", {
      messages: [
        msg("user", [{ type: "text", text: "q" }]),
        msg("assistant", [
          { type: "thinking", thinking: "from an openai model" },
          { type: "thinking", thinking: "signed", signature: "sig==" },
          { type: "thinking", thinking: "", redacted: "blob" },
          { type: "text", text: "answer" },
        ]),
      ],
    });
    const messages = anthropic.buildBody(req).messages as Array<{ content: unknown[] }>;
    expect(messages[1]?.content).toEqual([
      { type: "thinking", thinking: "signed", signature: "sig==" },
      { type: "redacted_thinking", data: "blob" },
      { type: "text", text: "answer" },
    ]);
  });

  it("skips empty text and tool declarations, maps notices to text, drops empty messages", () => {
    const req = request("anthropic", {
      messages: [
        msg("user", [{ type: "text", text: "one" }]),
        msg("assistant", [
          { type: "text", text: "" },
          { type: "thinking", thinking: "unsigned" },
        ]),
        msg("user", [
          { type: "tool_declarations", tools: TOOLS },
          { type: "notice", text: "tools changed" },
          { type: "text", text: "  " },
        ]),
      ],
    });
    expect(anthropic.buildBody(req).messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "one" },
          { type: "text", text: "tools changed" },
        ],
      },
    ]);
  });

  it("passes block-list tool result content through", () => {
    const req = request("anthropic", {
      messages: [
        msg("user", [{ type: "text", text: "q" }]),
        msg("assistant", [toolUse("toolu_1")]),
        msg("user", [
          { type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "line" }], is_error: false },
        ]),
      ],
    });
    const messages = anthropic.buildBody(req).messages as Array<{ content: unknown[] }>;
    expect(messages[2]?.content).toEqual([
      { type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "line" }] },
    ]);
  });
});
