import { tracing } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { script, send, setup } from "./helpers";

/** A turn seen through Workers' tracing API: the spans the turn path opens and their attributes. */
describe("turn spans", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("a turn with an invalid tool call opens turn, step and invalid-call spans, the last with its errors", async () => {
    const spans: Array<{ name: string; attributes: Record<string, unknown> }> = [];
    const real = tracing.enterSpan.bind(tracing);
    vi.spyOn(tracing, "enterSpan").mockImplementation(((name: string, fn: (span: Span) => unknown) =>
      real(name, (span: Span) => {
        const record = { name, attributes: {} as Record<string, unknown> };
        spans.push(record);
        const setAttributes = span.setAttributes.bind(span);
        span.setAttributes = (a) => {
          Object.assign(record.attributes, a);
          return setAttributes(a);
        };
        return fn(span);
      })) as typeof tracing.enterSpan);
    const s = await setup({
      tools: [
        {
          name: "get_weather",
          description: "Weather",
          input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
          execution: { type: "client" },
        },
      ],
    });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_bad", name: "get_weather", input: { city: 42 } }] } },
      { reply: { text: "Sorry." } },
    ]);
    const res = await send(s, { content: "weather?" });
    expect(res.body.status).toBe("completed");
    const names = spans.map((x) => x.name);
    expect(names.filter((n) => n === "switchboard.turn")).toHaveLength(1);
    expect(names.filter((n) => n === "switchboard.step")).toHaveLength(2);
    const invalid = spans.find((x) => x.name === "switchboard.tool_call_invalid");
    expect(invalid?.attributes["switchboard.tool_use_id"]).toBe("toolu_bad");
    expect(String(invalid?.attributes["switchboard.errors"])).toContain("city");
  });
});
