// An http tool's answer is read up to a byte cap and no further (the body is cancelled), so a huge or
// endless body cannot take the isolate down; what is stored and what the stream carries obey the same cap.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { RESULT_BUDGET_BYTES } from "../../src/storage/limits";
import { MAX_TOOL_RESPONSE_BYTES } from "../../src/tools/http-tool";
import { api, history, type Setup, script, send, setup, sseFrames, uid } from "./helpers";

const bigTool = (url: string) => ({
  name: "dump",
  description: "dumps a lot of text",
  input_schema: { type: "object", properties: { q: { type: "string" } } },
  execution: { type: "http", url, timeout_ms: 30_000 },
});

async function toolStats(tag: string): Promise<{ written: number; hung_up: boolean }> {
  return (await (await fetch(`${env.MOCK_URL}/_tool/stats?tag=${tag}`)).json()) as {
    written: number;
    hung_up: boolean;
  };
}

async function callDump(s: Setup): Promise<void> {
  await script(s.model, [
    { reply: { tool_calls: [{ id: "toolu_dump", name: "dump", input: { q: "all" } }] } },
    { reply: { text: "That was a lot." } },
  ]);
}

describe("http tool response size", () => {
  it("stops reading a 64 MiB body at the cap and says so in the result", async () => {
    const tag = uid("huge");
    const total = 64 * 1024 * 1024;
    const s = await setup({ tools: [bigTool(`${env.MOCK_URL}/_tool?stream_bytes=${total}&tag=${tag}`)] });
    await callDump(s);
    expect((await send(s, { content: "dump it" })).body.status).toBe("completed");
    const result = (await history(s)).flatMap((m) => m.parts).find((p) => p.type === "tool_result");
    expect(result).toMatchObject({ tool_use_id: "toolu_dump", is_error: false });
    const text = String(result?.content);
    expect(text).toContain(`larger than ${MAX_TOOL_RESPONSE_BYTES} bytes; reading stopped there`);
    expect(text.length).toBeLessThanOrEqual(RESULT_BUDGET_BYTES);
    const stats = await toolStats(tag);
    expect(stats.hung_up).toBe(true);
    // Socket buffers take a few MiB at most; the old code read all 64.
    expect(stats.written).toBeLessThan(total / 4);
  });

  it("sends the stream the same capped output that is stored", async () => {
    const s = await setup({ tools: [bigTool(`${env.MOCK_URL}/_tool?stream_bytes=900000`)] });
    await callDump(s);
    const res = await api(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "dump it" },
    });
    const frames = await sseFrames(res);
    const output = frames
      .flatMap((f) => (f.data.startsWith("{") ? [JSON.parse(f.data) as Record<string, unknown>] : []))
      .find((c) => c.type === "tool-output-available");
    expect(output).toBeDefined();
    const streamed = JSON.stringify(output?.output);
    expect(streamed.length).toBeLessThan(RESULT_BUDGET_BYTES + 1000);
    expect(streamed).toContain("[truncated: original 900000 bytes]");
  });
});
