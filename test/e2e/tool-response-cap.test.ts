// The byte cap on an http tool's answer in real workerd (`wrangler dev`), where an unbounded read is what
// would exhaust the isolate: a 256 MiB body is read up to the cap, the body is cancelled (the endpoint sees
// the client hang up long before the end) and the result says reading stopped.
import { describe, expect, inject, it } from "vitest";
import { MAX_TOOL_RESPONSE_BYTES } from "../../src/tools/http-tool.ts";
import { Api, Mock, uniqueModel } from "../helpers/index.ts";

const api = new Api(inject("baseUrl"), inject("adminKey"));
const mockUrl = inject("mockUrl");
const mock = new Mock(mockUrl);

describe("http tool response size under wrangler dev", () => {
  it("stops reading a 256 MiB body at the cap", async () => {
    const total = 256 * 1024 * 1024;
    const tag = uniqueModel("huge");
    const key = (await api.createKey(`cap-${uniqueModel("t")}`)).key;
    const model = uniqueModel("cap");
    const agent = `agent-${model}`;
    await api.putAgent(agent, {
      model: { provider: "anthropic", name: model },
      tools: [
        {
          name: "dump",
          description: "Dumps a lot of text.",
          input_schema: { type: "object" },
          execution: { type: "http", url: `${mockUrl}/_tool?stream_bytes=${total}&tag=${tag}`, timeout_ms: 30_000 },
        },
      ],
    });
    const session = (await api.createSession(key, agent)).id;
    await mock.script(model, [
      { reply: { tool_calls: [{ id: "toolu_dump", name: "dump", input: {} }] } },
      { reply: { text: "done" } },
    ]);
    const turn = await api.sendJson(key, session, { content: "dump it" });
    expect(turn.status).toBe("completed");
    const result = turn.messages.flatMap((m) => m.parts).find((p) => p.type === "tool_result");
    expect(result).toMatchObject({ tool_use_id: "toolu_dump", is_error: false });
    expect(String((result as { content: unknown }).content)).toContain(
      `larger than ${MAX_TOOL_RESPONSE_BYTES} bytes; reading stopped there`,
    );
    const stats = (await (await fetch(`${mockUrl}/_tool/stats?tag=${tag}`)).json()) as {
      written: number;
      hung_up: boolean;
    };
    expect(stats.hung_up).toBe(true);
    expect(stats.written).toBeLessThan(total / 8);
  });
});
