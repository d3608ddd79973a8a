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

  it("checks a discovery schema the same way", () => {
    const e = refusal(agentWith({ type: "object" }, { type: "object", propertiez: {} }));
    expect(e?.message).toMatch(/^tools\.0\.discovery_schema: /);
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
