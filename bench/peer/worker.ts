/**
 * The peer of bench/peer.mjs: `@cloudflare/ai-chat`'s AIChatAgent as its README sets it up (AI SDK
 * `streamText` → `toUIMessageStreamResponse()`), on the Anthropic provider pointed at the same mock model
 * Switchboard's benches use. Not part of Switchboard; only the bench starts it.
 *
 * For the storage figures, the object counts its own SQLite statements and rows written (every
 * `sql.exec` cursor, plus the key-value `storage.put/delete` calls, which write rows of their own table)
 * and answers them at `GET /counters/{name}`.
 *
 * Beside it, the platform floor (`POST /floor/{name}` → `Floor`): the least a turn's shape costs under
 * `wrangler dev` — worker → Durable Object by name → `fetch` of the mock model's streaming endpoint → the
 * body streamed back unchanged. No application code, so what it adds over the mock called directly is the
 * platform's own share (local proxy, worker → object hop, the object's outbound fetch). `?via=rpc` calls the
 * object over RPC instead of `fetch`, `?via=rpc-write` also writes one SQLite row in a transaction first.
 * `?via=admit` is the shape of Switchboard's turn with no application code: over `fetch`, one SQLite row
 * written, the model's request started, and the answer returned at once (at admission, before the model has
 * responded), its body piped from the model's once that arrives.
 */

import { DurableObject } from "cloudflare:workers";
import { createAnthropic } from "@ai-sdk/anthropic";
import { AIChatAgent } from "@cloudflare/ai-chat";
import { routeAgentRequest } from "agents";
import { convertToModelMessages, streamText } from "ai";

interface PeerEnv {
  PeerChat: DurableObjectNamespace<PeerChat>;
  Floor: DurableObjectNamespace<Floor>;
  ANTHROPIC_BASE_URL: string;
  ANTHROPIC_API_KEY: string;
  PEER_MODEL: string;
}

interface Counters {
  statements: number;
  rows_written: number;
  kv_writes: number;
}

/** What the object counts: cursors whose rows written are read when asked (a cursor knows them once consumed). */
interface Tally {
  counted: Counters;
  cursors: SqlStorageCursor<Record<string, SqlStorageValue>>[];
}

/** Wraps the object's `sql.exec` and key-value writes before AIChatAgent's constructor uses them. */
function instrument(ctx: DurableObjectState, tally: Tally): void {
  const sql = ctx.storage.sql;
  const exec = sql.exec.bind(sql);
  (sql as { exec: unknown }).exec = (query: string, ...bindings: unknown[]) => {
    const cursor = exec(query, ...bindings);
    tally.cursors.push(cursor);
    tally.counted.statements++;
    return cursor;
  };
  const storage = ctx.storage as unknown as Record<string, (...a: unknown[]) => unknown>;
  for (const name of ["put", "delete"]) {
    const original = storage[name]?.bind(ctx.storage);
    if (!original) continue;
    storage[name] = (first: unknown, ...rest: unknown[]) => {
      tally.counted.kv_writes +=
        typeof first === "string" ? 1 : Array.isArray(first) ? first.length : Object.keys(first ?? {}).length;
      return original(first, ...rest);
    };
  }
}

export class PeerChat extends AIChatAgent<PeerEnv> {
  readonly #tally: Tally;

  constructor(ctx: DurableObjectState, env: PeerEnv) {
    const tally: Tally = { counted: { statements: 0, rows_written: 0, kv_writes: 0 }, cursors: [] };
    instrument(ctx, tally);
    super(ctx, env);
    this.#tally = tally;
  }

  /** Statements, rows written and key-value writes since the object started (RPC, for the bench). */
  counters(): Counters {
    const { counted, cursors } = this.#tally;
    for (const c of cursors.splice(0)) counted.rows_written += c.rowsWritten;
    return { ...counted };
  }

  override async onChatMessage() {
    const anthropic = createAnthropic({
      baseURL: `${this.env.ANTHROPIC_BASE_URL}/v1`,
      apiKey: this.env.ANTHROPIC_API_KEY,
    });
    const result = streamText({
      model: anthropic(this.env.PEER_MODEL),
      system: "You are a benchmark agent.",
      messages: await convertToModelMessages(this.messages),
    });
    // The error's own text instead of the SDK's masked "An error occurred." (the bench reports it).
    return result.toUIMessageStreamResponse({ onError: (error) => String(error) });
  }
}

/**
 * The platform floor: forwards the request body to the mock model and streams its answer back untouched.
 * `fetch` is the floor itself; `relay` is the same over Durable Object RPC (a stream returned from the call, as
 * Switchboard's `sendMessage` did), optionally after one durable SQLite write (the shape of an admission).
 */
export class Floor extends DurableObject<PeerEnv> {
  override async fetch(request: Request): Promise<Response> {
    const body = await request.text();
    if (new URL(request.url).searchParams.get("via") === "admit") return this.#admit(body);
    const upstream = await this.#model(body);
    return new Response(upstream.body, { status: upstream.status, headers: upstream.headers });
  }

  /** Answers at admission: the row written and the model's request started, the body following the model's. */
  #admit(body: string): Response {
    this.#write();
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    this.#model(body).then(
      (upstream) => (upstream.body ? upstream.body.pipeTo(writable) : writable.close()),
      (error: unknown) => writable.abort(error),
    );
    return new Response(readable, { headers: { "content-type": "text/event-stream" } });
  }

  async relay(body: string, write: boolean): Promise<ReadableStream<Uint8Array> | null> {
    if (write) this.#write();
    return (await this.#model(body)).body;
  }

  /** One row committed in a transaction: the shape of an admission that is durable before the model's request. */
  #write(): void {
    const sql = this.ctx.storage.sql;
    this.ctx.storage.transactionSync(() => {
      sql.exec("CREATE TABLE IF NOT EXISTS admitted (id INTEGER PRIMARY KEY, at INTEGER NOT NULL)");
      sql.exec("INSERT INTO admitted (at) VALUES (?)", Date.now());
    });
  }

  #model(body: string): Promise<Response> {
    return fetch(`${this.env.ANTHROPIC_BASE_URL}/v1/messages`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-api-key": this.env.ANTHROPIC_API_KEY,
        "anthropic-version": "2023-06-01",
      },
      body,
    });
  }
}

export default {
  async fetch(request: Request, env: PeerEnv): Promise<Response> {
    const url = new URL(request.url);
    // What the repo's process helper (startWrangler) polls before it hands the server over.
    if (url.pathname === "/healthz") return new Response("ok");
    const floor = /^\/floor\/([\w-]+)$/.exec(url.pathname);
    if (floor?.[1] && request.method === "POST") {
      const stub = env.Floor.getByName(floor[1]);
      const via = url.searchParams.get("via");
      if (via === null || via === "admit") return stub.fetch(request);
      const body = await stub.relay(await request.text(), via === "rpc-write");
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    }
    const counters = /^\/counters\/([\w-]+)$/.exec(url.pathname);
    if (counters?.[1]) return Response.json(await env.PeerChat.getByName(counters[1]).counters());
    return (await routeAgentRequest(request, env)) ?? new Response("not found", { status: 404 });
  },
} satisfies ExportedHandler<PeerEnv>;
