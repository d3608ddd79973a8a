// Body size caps hold for bodies without a Content-Length (chunked transfer encoding): the worker counts the
// bytes as they stream in and answers 413 as soon as the count passes the cap, without reading the rest.
import { exports } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { conforming, history, script, setup, uid } from "./helpers";
import { d1Runs, ended, runSetup, waitRun } from "./runs-helpers";

type ErrorBody = { error: { code: string; message: string } };

const MiB = 1024 * 1024;
const CHUNK = 64 * 1024;

/** A lazy stream of `prefix` then `size` bytes of filler, counting how many bytes the reader actually pulled. */
function lazyStream(prefix: string, size: number) {
  const head = new TextEncoder().encode(prefix);
  const filler = new Uint8Array(CHUNK).fill(0x78); // "x"
  const state = { pulled: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (state.pulled === 0) {
        state.pulled += head.byteLength;
        controller.enqueue(head);
        return;
      }
      if (state.pulled >= size) {
        controller.close();
        return;
      }
      const n = Math.min(CHUNK, size - state.pulled);
      state.pulled += n;
      controller.enqueue(filler.slice(0, n));
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { stream, state };
}

/** A stream of these exact chunks. */
function chunked(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks[i++];
      if (next) controller.enqueue(next);
      else controller.close();
    },
  });
}

/** The bytes of `text` cut into pieces of `size` bytes (so multi-byte characters are split across chunks). */
function pieces(text: string, size: number): Uint8Array[] {
  const bytes = new TextEncoder().encode(text);
  const out: Uint8Array[] = [];
  for (let at = 0; at < bytes.byteLength; at += size) out.push(bytes.slice(at, at + size));
  return out;
}

/** A POST whose body is a stream: no Content-Length, chunked on the wire. */
async function streamPost(path: string, body: ReadableStream<Uint8Array>, headers: Record<string, string>) {
  const req = new Request(`http://sb.test${path}`, {
    method: "POST",
    body,
    headers: { "content-type": "application/json", accept: "application/json", ...headers },
    duplex: "half",
  } as RequestInit);
  expect(req.headers.get("content-length")).toBeNull();
  return conforming(req, await (exports as unknown as { default: Fetcher }).default.fetch(req));
}

function signed(secret: string, payload: string): Record<string, string> {
  const id = uid("msg");
  const ts = Math.floor(Date.now() / 1000);
  return {
    "webhook-id": id,
    "webhook-timestamp": String(ts),
    "webhook-signature": new Webhook(secret).sign(id, new Date(ts * 1000), payload),
  };
}

describe("chunked bodies over the cap", () => {
  it("POST /v1/sessions/{id}/messages: 413 before the whole body is read, history unchanged", async () => {
    const s = await setup();
    const size = 64 * MiB; // the route's cap is 3 MiB
    const { stream, state } = lazyStream('{"content":"', size);
    const res = await streamPost(`/v1/sessions/${s.session}/messages`, stream, { authorization: `Bearer ${s.key}` });
    expect(res.status).toBe(413);
    const body = (await res.json()) as ErrorBody;
    expect(body.error.code).toBe("payload_too_large");
    expect(body.error.message).toBe(`request body exceeds ${3 * MiB} bytes`);
    expect(state.pulled).toBeLessThan(3 * MiB + 2 * MiB);
    expect(state.cancelled).toBe(true);
    expect(await history(s)).toEqual([]);
  });

  it("POST /v1/agents/{agent}/runs (signed webhook): 413 before the whole body is read, no run", async () => {
    const s = await runSetup();
    const size = 64 * MiB; // the route's cap is 1 MiB
    const { stream, state } = lazyStream('{"input":"', size);
    // The size cap comes before the signature check, so the signature over a body never sent does not matter.
    const res = await streamPost(`/v1/agents/${s.agent}/runs`, stream, signed(s.secrets[0] as string, "{}"));
    expect(res.status).toBe(413);
    const body = (await res.json()) as ErrorBody;
    expect(body.error.code).toBe("payload_too_large");
    expect(body.error.message).toBe(`request body exceeds ${MiB} bytes`);
    expect(state.pulled).toBeLessThan(MiB + 2 * MiB);
    expect(state.cancelled).toBe(true);
    expect(await d1Runs(s.agent)).toBe(0);
  });

  it("a correctly signed chunked run body just over the cap is 413 too", async () => {
    const s = await runSetup();
    const payload = JSON.stringify({ input: "x".repeat(MiB) });
    const res = await streamPost(
      `/v1/agents/${s.agent}/runs`,
      chunked(pieces(payload, CHUNK)),
      signed(s.secrets[0] as string, payload),
    );
    expect(res.status).toBe(413);
    expect(((await res.json()) as ErrorBody).error.code).toBe("payload_too_large");
    expect(await d1Runs(s.agent)).toBe(0);
  });
});

describe("chunked bodies under the cap", () => {
  // Multi-byte characters cut across chunk boundaries must decode exactly as sent.
  const text = `héllo ✓ 😀 ${"ü".repeat(300)} end`;

  it("POST /v1/sessions/{id}/messages works", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { text: "ok" } }]);
    const res = await streamPost(
      `/v1/sessions/${s.session}/messages`,
      chunked(pieces(JSON.stringify({ content: text }), 7)),
      { authorization: `Bearer ${s.key}` },
    );
    const turn = await res.text();
    expect(res.status, turn).toBe(201);
    expect((JSON.parse(turn) as { status: string }).status).toBe("completed");
    const stored = await history(s);
    expect(stored.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(stored[0]?.parts[0]).toMatchObject({ type: "text", text });
  });

  it("a signed webhook run verifies over the exact bytes sent", async () => {
    const s = await runSetup();
    await script(s.model, [{ reply: { text: "run ok" } }]);
    const payload = JSON.stringify({ input: text });
    const res = await streamPost(
      `/v1/agents/${s.agent}/runs`,
      chunked(pieces(payload, 5)),
      signed(s.secrets[0] as string, payload),
    );
    const accepted = await res.text();
    expect(res.status, accepted).toBe(202);
    const run = await waitRun(s, (JSON.parse(accepted) as { run_id: string }).run_id, ended);
    expect(run.status).toBe("completed");
    expect(run.result?.output).toBe("run ok");
    expect(await d1Runs(s.agent)).toBe(1);
  });
});
