// Shared helpers for the mock model server tests.
/** The tests' one event-stream parser (test/helpers/sse.ts): complete events only, as the spec dispatches them. */
export { parseSse } from "../../helpers/sse.ts";

import { afterAll, beforeAll } from "vitest";
import { type MockServer, startMock } from "../../../mock/server.ts";

/** A mock model server for this test file: started before its tests, closed after; `url` once started. */
export function mockPerFile(): { readonly url: string } {
  let mock: MockServer | undefined;
  beforeAll(async () => {
    mock = await startMock({ port: 0 });
  });
  afterAll(async () => {
    await mock?.close();
  });
  return {
    get url() {
      if (!mock) throw new Error("the mock starts in beforeAll");
      return mock.url;
    },
  };
}

/** A reply of thinking, text and two tool calls, which the wire-format tests stream byte for byte. */
export const TWO_CALL_REPLY = {
  thinking: "Let me check.",
  text: "Checking both.",
  tool_calls: [
    { id: "toolu_01AAAAAAAAAAAAAAAAAAAAAA", name: "get_weather", input: { city: "Paris", days: 3 } },
    { id: "toolu_01BBBBBBBBBBBBBBBBBBBBBB", name: "get_time", input: { zone: "Europe/Paris", nested: { a: [1, 2] } } },
  ],
  usage: { input_tokens: 42, output_tokens: 17 },
};

export const anthropicHeaders = {
  "content-type": "application/json",
  "x-api-key": "test-key",
  "anthropic-version": "2023-06-01",
};
export const openaiHeaders = { "content-type": "application/json", authorization: "Bearer test-key" };

export function postAnthropic(url: string, body: unknown, init: RequestInit = {}): Promise<Response> {
  return fetch(`${url}/v1/messages`, {
    method: "POST",
    headers: anthropicHeaders,
    body: typeof body === "string" ? body : JSON.stringify(body),
    ...init,
  });
}

export function postOpenAI(url: string, body: unknown, init: RequestInit = {}): Promise<Response> {
  return fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: openaiHeaders,
    body: typeof body === "string" ? body : JSON.stringify(body),
    ...init,
  });
}

export async function script(url: string, model: string, steps: unknown[]): Promise<void> {
  const res = await fetch(`${url}/_mock/script`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model, steps }),
  });
  if (res.status !== 200) throw new Error(`script failed: ${res.status} ${await res.text()}`);
}

/** Reads a body to the end; returns the bytes received and the read error (if the stream did not end cleanly). */
export async function readAll(res: Response): Promise<{ bytes: Uint8Array; error: unknown }> {
  const reader = res.body!.getReader();
  const parts: Uint8Array[] = [];
  let error: unknown = null;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
    }
  } catch (e) {
    error = e;
  }
  const total = parts.reduce((n, p) => n + p.length, 0);
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const p of parts) {
    bytes.set(p, offset);
    offset += p.length;
  }
  return { bytes, error };
}

export const anthropicRequest = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  max_tokens: 1024,
  stream: true,
  messages: [{ role: "user", content: "Hello" }],
  ...extra,
});

export const openaiRequest = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  stream: true,
  messages: [{ role: "user", content: "Hello" }],
  ...extra,
});
