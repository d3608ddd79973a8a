// normalizeAgent (src/agents/normalize.ts) refusing bad agent configs: MCP server names and headers, tool schemas,
// the cap on tools sent with every request, webhook secrets, model.max_tokens and model.max_tokens_field.
import { describe, expect, it } from "vitest";
import { normalizeAgent } from "../../../src/agents/normalize";

describe("normalizeAgent: MCP server names", () => {
  it('refuses "__" in a server name (it separates the parts of a tool name)', () => {
    expect(() =>
      normalizeAgent("a", {
        model: { provider: "anthropic", name: "m" },
        mcp_servers: [{ name: "gh__issues", url: "https://mcp.example.com/mcp" }],
      }),
    ).toThrow(/must not contain "__"/);
  });
});

describe("normalizeAgent: MCP server headers", () => {
  const withHeaders = (headers: Record<string, string>) => ({
    model: { provider: "anthropic", name: "m" },
    mcp_servers: [{ name: "kit", url: "https://mcp.example.com/mcp", headers }],
  });
  const refusal = (headers: Record<string, string>) => {
    try {
      normalizeAgent("a", withHeaders(headers));
    } catch (e) {
      const { status, code, message } = e as { status: number; code: string; message: string };
      return { status, code, message };
    }
    throw new Error("the agent was accepted");
  };

  it.each([
    [{ "bad name": "x" }],
    [{ "x-a:b": "x" }],
    [{ "": "x" }],
    [{ "x-ok": "a\r\nx-injected: 1" }],
    [{ "x-ok": "a\nb" }],
    [{ "x-ok": "a\u0000b" }],
    [{ "x-ok": "10 €" }],
  ])("refuses %j, which no request can carry, with 400 naming the field", (headers) => {
    const { status, code, message } = refusal(headers);
    expect([status, code]).toEqual([400, "invalid_request"]);
    expect(message).toMatch(/^mcp_servers\.0\.headers/);
  });

  it("names the header of a bad value without echoing the value (usually a credential)", () => {
    const { message } = refusal({ authorization: "Bearer s3cret\n" });
    expect(message).toContain("mcp_servers.0.headers.authorization");
    expect(message).not.toContain("s3cret");
  });

  it("keeps headers a request can carry", () => {
    const headers = { Authorization: "Bearer t0k=n", "x-api-key": "a b\tc", "x-name": "José" };
    expect(normalizeAgent("a", withHeaders(headers)).mcp_servers[0]?.headers).toEqual(headers);
  });
});

describe("normalizeAgent: tool schemas", () => {
  const agentWith = (input_schema: unknown, discovery_schema?: unknown) => ({
    model: { provider: "anthropic", name: "m" },
    tools: [
      {
        name: "lookup",
        input_schema,
        ...(discovery_schema ? { discovery_schema } : {}),
        execution: { type: "client" },
      },
    ],
  });
  const refusal = (body: unknown) => {
    try {
      normalizeAgent("a", body);
    } catch (e) {
      return e as { status: number; code: string; message: string };
    }
    return null;
  };

  it("refuses a misspelt keyword with 422, naming the tool and where (it would otherwise require nothing)", () => {
    const e = refusal(agentWith({ type: "object", properties: { q: { type: "string" } }, requird: ["q"] }));
    expect(e).toMatchObject({ status: 422, code: "invalid_schema" });
    expect(e?.message).toMatch(/^tools\.0\.input_schema: .*requird/);
  });

  it("refuses an unknown type and a $ref that does not resolve", () => {
    expect(refusal(agentWith({ type: "object", properties: { q: { type: "strnig" } } }))?.code).toBe("invalid_schema");
    expect(refusal(agentWith({ type: "object", properties: { q: { $ref: "#/$defs/nope" } } }))?.code).toBe(
      "invalid_schema",
    );
  });

  it("refuses a draft-07 tuple (an items array) with 422, naming the tool and the keyword (providers refuse it)", () => {
    const pair = { type: "array", items: [{ type: "number" }, { type: "number" }], additionalItems: false };
    const e = refusal(agentWith({ type: "object", properties: { pair } }));
    expect(e).toMatchObject({ status: 422, code: "invalid_schema" });
    expect(e?.message).toMatch(
      /^tools\.0\.input_schema: "items" at \/properties\/pair is a draft-07 tuple.*"prefixItems"/,
    );
  });

  it("checks a discovery schema the same way", () => {
    const e = refusal(agentWith({ type: "object" }, { type: "object", propertiez: {} }));
    expect(e?.message).toMatch(/^tools\.0\.discovery_schema: /);
  });

  it("accepts an input schema whose root is a union of object $refs with no type (a Pydantic union)", () => {
    const defs = { Cat_na: { type: "object", properties: { meow: { type: "string" } } } };
    const union = { anyOf: [{ $ref: "#/$defs/Cat_na" }, { type: "object" }], $defs: defs };
    expect(normalizeAgent("a", agentWith(union)).tools[0]?.input_schema).toEqual(union);
  });

  it("accepts a valid schema with annotations, $defs and refs", () => {
    const schema = {
      type: "object",
      title: "Lookup",
      description: "what to look up",
      properties: { q: { $ref: "#/$defs/query", examples: ["paris"] } },
      required: ["q"],
      $defs: { query: { type: "string", minLength: 1 } },
    };
    expect(normalizeAgent("a", agentWith(schema)).tools[0]?.input_schema).toEqual(schema);
  });
});

describe("normalizeAgent: tools sent with every request", () => {
  const many = (n: number, defer: boolean) =>
    Array.from({ length: n }, (_, i) => ({
      name: `tool_${i}`,
      input_schema: { type: "object" },
      execution: { type: "client" },
      ...(defer ? { defer: true } : {}),
    }));
  const agent = (provider: string, tools: unknown[]) => ({ model: { provider, name: "m" }, tools });

  it("refuses more than 127 core tools where tools[] holds them all (OpenAI's cap, one slot for structured_output)", () => {
    expect(() => normalizeAgent("a", agent("openai", many(128, false)))).toThrow(/at most 127/);
    expect(normalizeAgent("a", agent("openai", many(127, false))).tools).toHaveLength(127);
  });

  it("counts the built-ins beside the core tools, and lets deferred tools (which load within the cap) through", () => {
    expect(() =>
      normalizeAgent(
        "a",
        agent("openai", [...many(125, false), ...many(1, true).map((t) => ({ ...t, name: "deferred_one" }))]),
      ),
    ).toThrow(/128 tools/);
    expect(normalizeAgent("a", agent("openai-responses", many(500, true))).tools).toHaveLength(500);
  });

  it("keeps 16 slots to load a deferred tool into beside the core tools, the built-ins and structured_output", () => {
    const withDeferred = (core: number) =>
      agent("openai", [...many(core, false), { ...many(1, true)[0], name: "deferred_one" }]);
    const put = () => normalizeAgent("a", withDeferred(109));
    expect(put).toThrow(/112 tools would be sent .* at most 111 \(one is kept for structured_output and 16 to load/);
    expect(put).toThrow(expect.objectContaining({ status: 400, code: "invalid_request" }));
    expect(normalizeAgent("a", withDeferred(108)).tools).toHaveLength(109);
  });

  it("keeps room for the built-ins and for loading when the agent has MCP servers (their tools are deferred by default)", () => {
    const body = {
      ...agent("openai", many(109, false)),
      mcp_servers: [{ name: "kit", url: "https://mcp.example.com/mcp" }],
    };
    expect(() => normalizeAgent("a", body)).toThrow(/at most 111/);
    expect(normalizeAgent("a", { ...body, tools: many(108, false) }).tools).toHaveLength(108);
  });

  it("asks no room for loading where nothing can defer (tool_search off): MCP tools past the cap are left out", () => {
    const body = {
      ...agent("openai", many(127, false)),
      mcp_servers: [{ name: "kit", url: "https://mcp.example.com/mcp" }],
      disclosure: { tool_search: false },
    };
    expect(normalizeAgent("a", body).tools).toHaveLength(127);
  });

  it("leaves Anthropic with tool search alone (deferred tools are sent with defer_loading)", () => {
    expect(normalizeAgent("a", agent("anthropic", many(300, false))).tools).toHaveLength(300);
  });
});

describe("normalizeAgent: webhook secrets", () => {
  const strong = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  const refusal = (webhook_secrets: string[]) => {
    try {
      normalizeAgent("a", { model: { provider: "anthropic", name: "m" }, webhook_secrets });
    } catch (e) {
      return e as { status: number; code: string; message: string };
    }
    throw new Error("the agent was accepted");
  };
  it("refuses a secret the Standard Webhooks library cannot decode, naming its index", () => {
    const put = () =>
      normalizeAgent("a", {
        model: { provider: "anthropic", name: "m" },
        webhook_secrets: [strong, "my-secret-value!"],
      });
    expect(put).toThrow(/^webhook_secrets\.1: not a Standard Webhooks secret/);
    expect(put).toThrow(expect.objectContaining({ status: 400, code: "invalid_request" }));
  });

  it("refuses a secret decoding to fewer than 24 bytes, naming its index without echoing it", () => {
    // 1, 3, 6 and 23 bytes: a forger would need at most 256 tries for the first.
    for (const short of ["whsec_AA==", "whsec_AAAA", "whsec_abcdefgh", `whsec_${btoa("k".repeat(23))}`]) {
      const error = refusal([strong, short]);
      expect(error).toMatchObject({ status: 400, code: "invalid_request" });
      expect(error.message).toMatch(/^webhook_secrets\.1: must decode to at least 24 bytes/);
      expect(error.message).not.toContain(short.slice("whsec_".length));
    }
  });

  it("takes a secret of exactly 24 bytes", () => {
    const secret = `whsec_${btoa("k".repeat(24))}`;
    const config = normalizeAgent("a", { model: { provider: "anthropic", name: "m" }, webhook_secrets: [secret] });
    expect(config.webhook_secrets).toEqual([secret]);
  });
});

describe("normalizeAgent: model.max_tokens", () => {
  const refusal = (body: unknown) => {
    try {
      normalizeAgent("a", body);
    } catch (e) {
      return e as { status: number; code: string; message: string };
    }
    return null;
  };

  it("refuses below 16 for openai-responses (the Responses API refuses a smaller max_output_tokens)", () => {
    const e = refusal({ model: { provider: "openai-responses", name: "m", max_tokens: 15 } });
    expect(e).toMatchObject({ status: 400, code: "invalid_request" });
    expect(e?.message).toMatch(/^model\.max_tokens: must be at least 16 for openai-responses/);
  });

  it("accepts 16 for openai-responses, and below 16 for the other providers", () => {
    expect(
      normalizeAgent("a", { model: { provider: "openai-responses", name: "m", max_tokens: 16 } }).model.max_tokens,
    ).toBe(16);
    expect(normalizeAgent("a", { model: { provider: "openai", name: "m", max_tokens: 8 } }).model.max_tokens).toBe(8);
  });
});

describe("normalizeAgent: model.max_tokens_field", () => {
  it("keeps it for openai (Chat Completions)", () => {
    const config = normalizeAgent("a", {
      model: { provider: "openai", name: "m", max_tokens_field: "max_completion_tokens" },
    });
    expect(config.model.max_tokens_field).toBe("max_completion_tokens");
  });

  it.each(["anthropic", "openai-responses"])(
    "refuses it for %s, which has one name for the output limit",
    (provider) => {
      let error: { status: number; code: string; message: string } | null = null;
      try {
        normalizeAgent("a", { model: { provider, name: "m", max_tokens_field: "max_tokens" } });
      } catch (e) {
        error = e as { status: number; code: string; message: string };
      }
      expect(error).toMatchObject({ status: 400, code: "invalid_request" });
      expect(error?.message).toMatch(/^model\.max_tokens_field: only for provider openai/);
    },
  );
});

describe("normalizeAgent: model.capabilities.thinking and model.effort", () => {
  const refusal = (model: Record<string, unknown>) => {
    try {
      normalizeAgent("a", { model });
    } catch (e) {
      return e as { status: number; code: string; message: string };
    }
    return null;
  };

  it('stores "adaptive" with an effort on Anthropic, and true as given (its mode is chosen per request)', () => {
    const adaptive = normalizeAgent("a", {
      model: {
        provider: "anthropic",
        name: "claude-sonnet-4-6",
        effort: "medium",
        capabilities: { thinking: "adaptive" },
      },
    });
    expect([adaptive.model.capabilities.thinking, adaptive.model.effort]).toEqual(["adaptive", "medium"]);
    const auto = normalizeAgent("a", {
      model: { provider: "anthropic", name: "claude-opus-4-7", effort: "high", capabilities: { thinking: true } },
    });
    expect([auto.model.capabilities.thinking, auto.model.effort]).toEqual([true, "high"]);
  });

  it('refuses "enabled" (a budget) on a model that takes only adaptive thinking', () => {
    const e = refusal({ provider: "anthropic", name: "claude-opus-4-7", capabilities: { thinking: "enabled" } });
    expect(e).toMatchObject({ status: 400, code: "invalid_request" });
    expect(e?.message).toMatch(/^model\.capabilities\.thinking: claude-opus-4-7 takes only adaptive thinking/);
  });

  it("refuses an effort where the thinking is a budget or none (it is sent with adaptive thinking only)", () => {
    const budget = refusal({
      provider: "anthropic",
      name: "claude-sonnet-4-5",
      effort: "low",
      capabilities: { thinking: true },
    });
    expect(budget?.message).toMatch(/^model\.effort: sent only with adaptive thinking/);
    expect(refusal({ provider: "anthropic", name: "claude-opus-4-7", effort: "low" })?.message).toMatch(
      /^model\.effort:/,
    );
  });

  it("refuses a thinking mode or an effort on the OpenAI protocols, and an unknown mode or effort", () => {
    expect(refusal({ provider: "openai", name: "m", capabilities: { thinking: "adaptive" } })?.message).toMatch(
      /^model\.capabilities\.thinking: "adaptive" is an Anthropic thinking mode/,
    );
    expect(refusal({ provider: "openai-responses", name: "m", effort: "low" })?.message).toMatch(/^model\.effort:/);
    expect(refusal({ provider: "anthropic", name: "m", capabilities: { thinking: "on" } })?.status).toBe(400);
    expect(refusal({ provider: "anthropic", name: "m", effort: "extreme" })?.status).toBe(400);
  });
});
