// validateAnthropicRequest (mock/validate-anthropic.ts): the tool pairing and request shape the Messages API
// enforces, refused by the mock as the API refuses them.
import { describe, expect, it } from "vitest";
import { validateAnthropicRequest } from "../../../mock/validate-anthropic.ts";

const tool = { name: "get_weather", input_schema: { type: "object" } };
const use = (id: string, name = "get_weather") => ({ type: "tool_use", id, name, input: {} });
const result = (id: string) => ({ type: "tool_result", tool_use_id: id, content: "ok" });
const req = (messages: unknown[], extra: Record<string, unknown> = {}) => ({
  model: "m",
  max_tokens: 100,
  tools: [tool],
  messages,
  ...extra,
});

describe("validateAnthropicRequest", () => {
  it("accepts a well paired conversation", () => {
    const body = req([
      { role: "user", content: "hi" },
      { role: "assistant", content: [{ type: "text", text: "checking" }, use("toolu_a"), use("toolu_b")] },
      { role: "user", content: [result("toolu_b"), result("toolu_a"), { type: "text", text: "thanks" }] },
      { role: "assistant", content: "done" },
    ]);
    expect(validateAnthropicRequest(body)).toBeNull();
  });

  it("refuses an error tool_result with empty content", () => {
    const body = req([
      { role: "user", content: "hi" },
      { role: "assistant", content: [use("toolu_empty_err")] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_empty_err", content: "", is_error: true }] },
    ]);
    expect(validateAnthropicRequest(body)).toEqual({
      status: 400,
      message: "messages.2.content.0.tool_result: content cannot be empty if `is_error` is true",
    });
  });

  it("reports tool_use ids without results at the assistant index, comma-separated", () => {
    const body = req([
      { role: "user", content: "hi" },
      { role: "assistant", content: [use("toolu_a"), use("toolu_b"), use("toolu_c")] },
      { role: "user", content: [result("toolu_b")] },
    ]);
    expect(validateAnthropicRequest(body)).toEqual({
      status: 400,
      pairing: true,
      message:
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_a, toolu_c. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
    });
  });

  it("reports a trailing assistant tool_use with no next message", () => {
    const body = req([
      { role: "user", content: "hi" },
      { role: "assistant", content: "a" },
      { role: "user", content: "again" },
      { role: "assistant", content: [use("toolu_x")] },
    ]);
    expect(validateAnthropicRequest(body)?.message).toBe(
      "messages.3: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_x. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
    );
  });

  it("reports an unexpected tool_use_id with message and block index", () => {
    const body = req([
      { role: "user", content: "hi" },
      { role: "assistant", content: [use("toolu_a")] },
      { role: "user", content: [result("toolu_a"), result("toolu_zzz")] },
    ]);
    expect(validateAnthropicRequest(body)).toEqual({
      status: 400,
      pairing: true,
      message:
        "messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_zzz. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.",
    });
  });

  it("rejects a tool_result answering a tool_use two messages back", () => {
    const body = req([
      { role: "user", content: "hi" },
      { role: "assistant", content: [use("toolu_a")] },
      { role: "user", content: [result("toolu_a")] },
      { role: "assistant", content: "ok" },
      { role: "user", content: [result("toolu_a")] },
    ]);
    expect(validateAnthropicRequest(body)?.message).toMatch(/^messages\.4\.content\.0: unexpected `tool_use_id`/);
  });

  it("rejects text before a tool_result", () => {
    const body = req([
      { role: "user", content: "hi" },
      { role: "assistant", content: [use("toolu_a")] },
      { role: "user", content: [{ type: "text", text: "here" }, result("toolu_a")] },
    ]);
    expect(validateAnthropicRequest(body)).toEqual({
      status: 400,
      pairing: true,
      message: "messages.2: `tool_result` blocks must come first in the user message content, before any other blocks.",
    });
  });

  it("rejects duplicate tool_use ids across the conversation", () => {
    const body = req([
      { role: "user", content: "hi" },
      { role: "assistant", content: [use("toolu_a")] },
      { role: "user", content: [result("toolu_a")] },
      { role: "assistant", content: [{ type: "text", text: "again" }, use("toolu_a")] },
      { role: "user", content: [result("toolu_a")] },
    ]);
    expect(validateAnthropicRequest(body)).toEqual({
      status: 400,
      pairing: true,
      message: "messages.3.content.1: `tool_use` ids must be unique",
    });
  });

  it("rejects two results for one tool_use", () => {
    const body = req([
      { role: "user", content: "hi" },
      { role: "assistant", content: [use("toolu_a")] },
      { role: "user", content: [result("toolu_a"), result("toolu_a")] },
    ]);
    expect(validateAnthropicRequest(body)?.pairing).toBe(true);
    expect(validateAnthropicRequest(body)?.message).toMatch(
      /^messages\.2\.content\.1: each tool_use must have a single/,
    );
  });

  it("allows history calls to tools that are not declared", () => {
    const body = req([
      { role: "user", content: "hi" },
      { role: "assistant", content: [use("toolu_a", "removed_tool")] },
      { role: "user", content: [result("toolu_a")] },
    ]);
    expect(validateAnthropicRequest(body)).toBeNull();
  });

  it("requires a signature on thinking blocks", () => {
    const body = req([
      { role: "user", content: "hi" },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "hmm" },
          { type: "text", text: "x" },
        ],
      },
    ]);
    expect(validateAnthropicRequest(body)).toEqual({
      status: 400,
      message: "messages.1.content.0.thinking.signature: Field required",
    });
  });

  it("checks the basic shape", () => {
    expect(validateAnthropicRequest({ max_tokens: 1, messages: [] })?.message).toBe("model: Field required");
    expect(validateAnthropicRequest({ model: "m", messages: [] })?.message).toBe("max_tokens: Field required");
    expect(validateAnthropicRequest({ model: "m", max_tokens: 1 })?.message).toBe("messages: Field required");
    expect(validateAnthropicRequest(req([{ role: "system", content: "x" }]))?.message).toBe(
      "messages.0.role: Input should be 'user' or 'assistant'",
    );
    expect(validateAnthropicRequest(req([{ role: "assistant", content: "x" }]))?.message).toBe(
      'messages: first message must use the "user" role',
    );
    expect(validateAnthropicRequest(req([{ role: "user", content: 5 }]))?.message).toBe(
      "messages.0.content: Input should be a valid list",
    );
    expect(validateAnthropicRequest(req([{ role: "user", content: [] }]))?.message).toBe(
      "messages.0: all messages must have non-empty content except for the optional final assistant message",
    );
    expect(validateAnthropicRequest(req([{ role: "user", content: [{ type: "text", text: "" }] }]))?.message).toBe(
      "messages: text content blocks must be non-empty",
    );
  });

  it("rejects tool_reference to an undeclared tool and invalid defer_loading use", () => {
    const ref = (name: string) => ({
      type: "tool_result",
      tool_use_id: "toolu_a",
      content: [{ type: "tool_reference", tool_name: name }],
    });
    const messages = (name: string) => [
      { role: "user", content: "hi" },
      { role: "assistant", content: [use("toolu_a", "tool_search")] },
      { role: "user", content: [ref(name)] },
    ];
    const deferred = { name: "mcp__gh__issues", input_schema: { type: "object" }, defer_loading: true };
    const tools = [{ name: "tool_search", input_schema: { type: "object" } }, deferred];
    expect(validateAnthropicRequest(req(messages("mcp__gh__issues"), { tools }))).toBeNull();
    expect(validateAnthropicRequest(req(messages("nope"), { tools }))?.message).toBe(
      "messages.2.content.0.content.0: `tool_reference` names unknown tool 'nope'. Each referenced tool must be defined in `tools`.",
    );
    expect(validateAnthropicRequest(req([{ role: "user", content: "hi" }], { tools: [deferred] }))?.message).toBe(
      "tools: At least one tool must have defer_loading=false. All tools cannot be deferred",
    );
    const cached = { ...deferred, cache_control: { type: "ephemeral" } };
    expect(validateAnthropicRequest(req([{ role: "user", content: "hi" }], { tools: [tool, cached] }))?.message).toBe(
      "tools.1: `defer_loading` and `cache_control` cannot be used together on the same tool",
    );
  });

  it("refuses more than 4 cache_control blocks across system, tools and messages", () => {
    const cc = { type: "ephemeral" };
    const system = [{ type: "text", text: "sys", cache_control: cc }];
    const tools = [{ ...tool, cache_control: cc }];
    const compaction = (content: string | null) => ({ type: "compaction", content, cache_control: cc });
    const messages = (blocks: number) => [
      { role: "user", content: "hi" },
      ...Array.from({ length: blocks }, (_, k) => [
        { role: "assistant", content: [compaction(null), { type: "text", text: `a${k}` }] },
        { role: "user", content: `q${k}` },
      ]).flat(),
    ];
    expect(validateAnthropicRequest(req(messages(2), { system, tools }))).toBeNull();
    expect(validateAnthropicRequest(req(messages(3), { system, tools }))?.message).toBe(
      "A maximum of 4 blocks with cache_control may be provided. Found 5.",
    );
  });

  it("refuses a tool whose input_schema root type is not exactly object, as the API does", () => {
    const hi = [{ role: "user", content: "hi" }];
    const withSchema = (input_schema: unknown) => req(hi, { tools: [{ name: "nullable_va", input_schema }] });
    expect(validateAnthropicRequest(withSchema({ type: ["object", "null"] }))?.message).toBe(
      "tools.0.custom.input_schema.type: Input should be 'object'",
    );
    expect(validateAnthropicRequest(withSchema({ anyOf: [{ type: "object" }] }))?.message).toBe(
      "tools.0.custom.input_schema.type: Field required",
    );
  });

  it("refuses a tool whose input_schema does not match JSON Schema 2020-12, as the API does", () => {
    const hi = [{ role: "user", content: "hi" }];
    const withSchema = (input_schema: unknown) => req(hi, { tools: [{ name: "legacy_bounds", input_schema }] });
    const draft04 = { type: "object", properties: { n: { type: "number", minimum: 0, exclusiveMinimum: true } } };
    expect(validateAnthropicRequest(withSchema(draft04))?.message).toMatch(
      /^tools\.0\.custom\.input_schema: JSON schema is invalid\. It must match JSON Schema draft 2020-12 /,
    );
  });

  it("refuses a tool_use of history whose name does not match the API's pattern", () => {
    const body = req([
      { role: "user", content: "hi" },
      { role: "assistant", content: [use("toolu_dot", "multi_tool_use.parallel")] },
      { role: "user", content: [result("toolu_dot")] },
    ]);
    expect(validateAnthropicRequest(body)).toEqual({
      status: 400,
      message: "messages.1.content.0.tool_use.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'",
    });
  });
});

describe("validateAnthropicRequest: thinking", () => {
  const thought = { type: "thinking", thinking: "plan", signature: "sig" };
  const budget = { thinking: { type: "enabled", budget_tokens: 1024 }, max_tokens: 2000 };
  /** A tool loop of two steps after the user's text, its first step opening with `first`. */
  const loop = (first: unknown[]) => [
    { role: "user", content: "go" },
    { role: "assistant", content: [...first, use("toolu_1")] },
    { role: "user", content: [result("toolu_1")] },
    { role: "assistant", content: [use("toolu_2")] },
    { role: "user", content: [result("toolu_2")] },
  ];

  it("takes a loop whose first step opens with thinking, later steps without", () => {
    expect(validateAnthropicRequest(req(loop([thought]), budget))).toBeNull();
  });

  it("refuses a budget when the loop's first step opens without thinking, as the API does", () => {
    expect(validateAnthropicRequest(req(loop([]), budget))?.message).toMatch(
      /^messages\.1\.content\.0\.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`\. When `thinking` is enabled, a final `assistant` message must start with a thinking block/,
    );
  });

  it("takes that loop without thinking, and with adaptive thinking (where the model may skip it)", () => {
    expect(validateAnthropicRequest(req(loop([])))).toBeNull();
    expect(validateAnthropicRequest(req(loop([]), { thinking: { type: "adaptive" } }))).toBeNull();
  });

  it("takes a budget on a new request after a loop without thinking", () => {
    const messages = [...loop([]), { role: "assistant", content: "done" }, { role: "user", content: "next" }];
    expect(validateAnthropicRequest(req(messages, budget))).toBeNull();
  });

  it('refuses "enabled" on a model that takes only adaptive thinking', () => {
    expect(
      validateAnthropicRequest(req([{ role: "user", content: "hi" }], { ...budget, model: "claude-opus-4-7" })),
    ).toEqual({
      status: 400,
      message:
        '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.',
    });
    expect(
      validateAnthropicRequest(
        req([{ role: "user", content: "hi" }], { thinking: { type: "adaptive" }, model: "claude-opus-4-7" }),
      ),
    ).toBeNull();
  });

  it("refuses a budget below 1,024 or not below max_tokens, a budget with adaptive thinking and an unknown effort", () => {
    const hi = [{ role: "user", content: "hi" }];
    const message = (extra: Record<string, unknown>) => validateAnthropicRequest(req(hi, extra))?.message;
    expect(message({ thinking: { type: "enabled", budget_tokens: 1000 }, max_tokens: 2000 })).toBe(
      "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024",
    );
    expect(message({ thinking: { type: "enabled", budget_tokens: 2000 }, max_tokens: 2000 })).toBe(
      "`max_tokens` must be greater than `thinking.budget_tokens`",
    );
    expect(message({ thinking: { type: "adaptive", budget_tokens: 2000 } })).toBe(
      "thinking.adaptive.budget_tokens: Extra inputs are not permitted",
    );
    expect(message({ thinking: { type: "adaptive" }, output_config: { effort: "extreme" } })).toMatch(
      /^output_config\.effort: Input should be 'low'/,
    );
  });
});
