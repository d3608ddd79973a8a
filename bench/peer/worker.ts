/**
 * The peer of bench/peer.mjs: `@cloudflare/ai-chat`'s AIChatAgent as its README sets it up (AI SDK
 * `streamText` → `toUIMessageStreamResponse()`), on the Anthropic provider pointed at the same mock model
 * Switchboard's benches use. Not part of Switchboard; only the bench starts it.
 *
 * For the storage figures, the object counts its own SQLite statements and rows written (every
 * `sql.exec` cursor, plus the key-value `storage.put/delete` calls, which write rows of their own table)
 * and answers them at `GET /counters/{name}`.
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { AIChatAgent } from "@cloudflare/ai-chat";
import { routeAgentRequest } from "agents";
import { convertToModelMessages, streamText } from "ai";

interface PeerEnv {
  PeerChat: DurableObjectNamespace<PeerChat>;
  ANTHROPIC_BASE_URL: string;
  ANTHROPIC_API_KEY: string;
  PEER_MODEL: string;
}

interface Counters {
  statements: number;
  rows_written: number;
  kv_writes: number;
}

export class PeerChat extends AIChatAgent<PeerEnv> {
  #cursors: SqlStorageCursor<Record<string, SqlStorageValue>>[] = [];
  #counted = { statements: 0, rows_written: 0, kv_writes: 0 };

  constructor(ctx: DurableObjectState, env: PeerEnv) {
    PeerChat.#instrument(
      ctx,
      (cursor) => {
        // Rows written are known once a cursor is consumed: read them when the counters are asked for.
        this.#cursors.push(cursor);
        this.#counted.statements++;
      },
      (n) => {
        this.#counted.kv_writes += n;
      },
    );
    super(ctx, env);
  }

  static #instrument(
    ctx: DurableObjectState,
    onExec: (cursor: SqlStorageCursor<Record<string, SqlStorageValue>>) => void,
    onKv: (keys: number) => void,
  ): void {
    const sql = ctx.storage.sql;
    const exec = sql.exec.bind(sql);
    (sql as { exec: unknown }).exec = (query: string, ...bindings: unknown[]) => {
      const cursor = exec(query, ...bindings);
      onExec(cursor);
      return cursor;
    };
    const storage = ctx.storage as unknown as Record<string, (...a: unknown[]) => unknown>;
    for (const name of ["put", "delete"]) {
      const original = storage[name]?.bind(ctx.storage);
      if (!original) continue;
      storage[name] = (first: unknown, ...rest: unknown[]) => {
        onKv(typeof first === "string" ? 1 : Array.isArray(first) ? first.length : Object.keys(first ?? {}).length);
        return original(first, ...rest);
      };
    }
  }

  /** Statements, rows written and key-value writes since the object started (RPC, for the bench). */
  counters(): Counters {
    let rows = 0;
    for (const c of this.#cursors) rows += c.rowsWritten;
    this.#cursors = [];
    this.#counted.rows_written += rows;
    return { ...this.#counted };
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
    return result.toUIMessageStreamResponse();
  }
}

export default {
  async fetch(request: Request, env: PeerEnv): Promise<Response> {
    const url = new URL(request.url);
    const counters = /^\/counters\/([\w-]+)$/.exec(url.pathname);
    if (counters?.[1]) return Response.json(await env.PeerChat.getByName(counters[1]).counters());
    return (await routeAgentRequest(request, env)) ?? new Response("not found", { status: 404 });
  },
} satisfies ExportedHandler<PeerEnv>;
