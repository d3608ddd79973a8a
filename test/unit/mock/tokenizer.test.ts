// How a mock model counts input tokens (mock/tokenizer.ts, POST /_mock/tokenizer): given o200k, a request of dense
// content (a tool result of UUIDs from the tool endpoint, mock/dense-data.ts) counts far more than ~4 characters a
// token, in its usage report and against its window; without, the estimate.
import { describe, expect, it } from "vitest";
import { estimateTokens } from "../../../mock/chunks.ts";
import { mockPerFile, openaiRequest, postAnthropic, postOpenAI } from "./helpers.ts";

const mock = mockPerFile();

async function tokenizer(model: string, value: "o200k" | null): Promise<Response> {
  return fetch(`${mock.url}/_mock/tokenizer`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model, tokenizer: value }),
  });
}

/** 300 UUIDs, as the tool endpoint's dense data answers them. */
async function uuids(): Promise<string> {
  const res = await fetch(`${mock.url}/_tool?dense=300&kind=uuids`, { method: "POST", body: '{"page":1}' });
  return res.text();
}

/** The prompt tokens a non-streaming Chat Completions answer reports for a request carrying `text`. */
async function promptTokens(model: string, text: string): Promise<number> {
  const res = await postOpenAI(
    mock.url,
    openaiRequest(model, { stream: false, messages: [{ role: "user", content: text }] }),
  );
  return ((await res.json()) as { usage: { prompt_tokens: number } }).usage.prompt_tokens;
}

describe("the mock's tokenizer knob", () => {
  it("counts a UUID list at more than twice the estimate once the model is given o200k", async () => {
    const text = await uuids();
    expect(text.split("\n")).toHaveLength(300);
    expect(await promptTokens("tok-estimate", text)).toBeLessThan(estimateTokens(text) * 1.1);
    expect((await tokenizer("tok-o200k", "o200k")).status).toBe(200);
    expect(await promptTokens("tok-o200k", text)).toBeGreaterThan(estimateTokens(text) * 2);
  });

  it("holds the window to that count: a request the estimate fits is refused as too long", async () => {
    const text = await uuids();
    await tokenizer("tok-window", "o200k");
    const window = estimateTokens(text) + 500;
    await fetch(`${mock.url}/_mock/context_window`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "tok-window", tokens: window }),
    });
    const res = await postAnthropic(mock.url, {
      model: "tok-window",
      max_tokens: 100,
      messages: [{ role: "user", content: text }],
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/prompt is too long/);
  });

  it("refuses a tokenizer it does not have, changing nothing", async () => {
    const res = await tokenizer("tok-bad", "cl100k" as "o200k");
    expect(res.status).toBe(400);
    expect(await promptTokens("tok-bad", "hello there")).toBe(
      estimateTokens(
        JSON.stringify(
          openaiRequest("tok-bad", { stream: false, messages: [{ role: "user", content: "hello there" }] }),
        ),
      ),
    );
  });
});
