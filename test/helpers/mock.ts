// Client for the mock model server's control API (/_mock/*), plus a way to start one in-process.
import { randomUUID } from "node:crypto";
import type { RequestRecord } from "../../mock/control.ts";
import type { Step } from "../../mock/types.ts";
import { expectJson } from "./api.ts";

export type { MockServer } from "../../mock/server.ts";
export { startMock } from "../../mock/server.ts";
export type { RequestRecord, Step };

export interface MockCounters {
  requests: number;
  rejected: number;
  /** Requests rejected for breaking the tool_use/tool_result pairing invariant P. */
  rejected_p: number;
  /** Requests answered with the provider's context-length 400 (see `contextWindow`). */
  overflow: number;
  /** Compaction summary requests answered. */
  summaries: number;
  /** Answers that opened with a server-side compaction block (Anthropic `compact_20260112`). */
  compactions: number;
}

export interface MockStats extends MockCounters {
  /** Present when stats were asked for one model. */
  model?: MockCounters & { name: string; queued: number };
}

/** A model name no other test uses, so scripted steps never collide. */
export function uniqueModel(prefix = "e2e"): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

export class Mock {
  readonly url: string;

  constructor(url: string) {
    this.url = url.replace(/\/+$/, "");
  }

  /** Base URL for ANTHROPIC_BASE_URL. */
  get anthropicBaseUrl(): string {
    return this.url;
  }

  /** Base URL for OPENAI_BASE_URL. */
  get openaiBaseUrl(): string {
    return `${this.url}/v1`;
  }

  /** Queues steps for `model`; each provider request for that model takes the next one. */
  async script(model: string, steps: Step[]): Promise<{ queued: number }> {
    const res = await fetch(`${this.url}/_mock/script`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model, steps }),
    });
    return expectJson<{ ok: true; queued: number }>("POST /_mock/script", res);
  }

  /** Provider requests the mock received (for one model, or all), oldest first. */
  async requests(model?: string): Promise<RequestRecord[]> {
    const res = await fetch(`${this.url}/_mock/requests${query(model)}`);
    return (await expectJson<{ requests: RequestRecord[] }>("GET /_mock/requests", res)).requests;
  }

  async stats(model?: string): Promise<MockStats> {
    const res = await fetch(`${this.url}/_mock/stats${query(model)}`);
    return expectJson<MockStats>("GET /_mock/stats", res);
  }

  /** Emulates a context window for `model`: longer requests get the provider's real context-length 400. */
  async contextWindow(model: string, tokens: number | null): Promise<void> {
    const res = await fetch(`${this.url}/_mock/context_window`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model, tokens }),
    });
    await expectJson("POST /_mock/context_window", res);
  }

  /** Forgets queued steps, records and counters (of one model, or all). */
  async reset(model?: string): Promise<void> {
    const res = await fetch(`${this.url}/_mock/reset`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(model === undefined ? {} : { model }),
    });
    await expectJson("POST /_mock/reset", res);
  }
}

function query(model: string | undefined): string {
  return model === undefined ? "" : `?model=${encodeURIComponent(model)}`;
}
