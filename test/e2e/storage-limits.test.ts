// Storage under the 2 MB row limit through real workerd (`wrangler dev`, debug checks on, so any
// value or row over 2,000,000 bytes is refused as in production): large parallel tool results.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { Api, Mock, startToolServer, type ToolServer, uniqueModel } from "../helpers/index.ts";

const api = new Api(inject("baseUrl"), inject("adminKey"));
const mock = new Mock(inject("mockUrl"));

let tools: ToolServer;
let tenantKey: string;

beforeAll(async () => {
  // Every call answers 300,000 bytes of plain text.
  tools = await startToolServer(
    () => new Response("0123456789".repeat(30_000), { headers: { "content-type": "text/plain" } }),
  );
  tenantKey = (await api.createKey(`storage-${Date.now()}`)).key;
});

afterAll(async () => {
  await tools?.close();
});

describe("16 parallel tool calls of 300 KB each under wrangler dev", () => {
  it.each(["anthropic", "openai"] as const)(
    "complete, and the model sees every result cut with its original size (%s)",
    async (provider) => {
      const model = uniqueModel(`storage-${provider}`);
      const agent = `agent-${model}`;
      await api.putAgent(agent, {
        model: { provider, name: model },
        system: "You read large documents.",
        tools: [
          {
            name: "fetch_doc",
            description: "Fetches a document.",
            input_schema: { type: "object", properties: { n: { type: "integer" } } },
            execution: { type: "http", url: `${tools.url}/doc` },
          },
        ],
      });
      const session = (await api.createSession(tenantKey, agent)).id;
      const calls = Array.from({ length: 16 }, (_, n) => ({ name: "fetch_doc", input: { n } }));
      await mock.script(model, [{ reply: { tool_calls: calls } }, { reply: { text: "All read." } }]);
      const turn = await api.sendJson(tenantKey, session, { content: "read all sixteen" });
      expect(turn.status).toBe("completed");
      const requests = await mock.requests(model);
      expect(requests.filter((r) => r.rejected)).toEqual([]);
      const markers = requests[1]?.raw.match(/\[truncated: original 300000 bytes\]/g) ?? [];
      expect(markers.length).toBe(16);
    },
  );
});
