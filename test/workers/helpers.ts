/**
 * Helpers for workers-pool tests: drive the public HTTP API in-process and script the mock model. Every answer the
 * API gives them is checked against its OpenAPI document, as the e2e client checks it (test/helpers/checked-answer.ts).
 */
import { runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { expect } from "vitest";
import { OPENAPI } from "../../src/http/openapi";
import { McpConnection } from "../../src/mcp/connection";
import { ApprovalStore } from "../../src/session/approval-store";
import { SEED_TURNS_MAX } from "../../src/session/debug-seed";
import { HistoryStore } from "../../src/session/history/history-store";
import type { Session } from "../../src/session/session";
import { SessionTools } from "../../src/session/session-tools";
import { sessionTx } from "../../src/session/session-tx";
import { MAX_SUBSCRIBERS } from "../../src/session/stream/subscribers";
import { TurnStore } from "../../src/session/turn/turn-store";
import { jsonBytes } from "../../src/storage/fit";
import { checkedAnswer } from "../helpers/checked-answer.ts";
import { type Document, dereferenced } from "../helpers/conformance.ts";

export const ADMIN = "test-admin-key";

let counter = 0;
export function uid(prefix: string): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${counter}-${Math.random().toString(36).slice(2, 8)}`;
}

/** The OpenAPI document as /openapi.json serves it, its $refs resolved: read once per worker. */
let contract: Document | undefined;

export interface ApiInit extends RequestInit {
  /** Bearer token. */
  key?: string;
  /** JSON-serialised into the body (with content-type: application/json). */
  json?: unknown;
  /**
   * Why this request deliberately gets an answer the OpenAPI document does not give (an undocumented path, say):
   * its answer is not checked. Every other answer is, and a test fails on one the document does not give.
   */
  undocumented?: string;
  /**
   * Checks a JSON answer strictly too: a key the document does not declare fails the test (the document leaves
   * its objects open, so the ordinary check takes any extra field).
   */
  strict?: boolean;
}

/**
 * A request to the worker, in-process. Its answer is checked against the OpenAPI document (a path outside /v1/ the
 * document does not list, the web client's, is not): status, media type and headers, a JSON body at once, and a UI
 * message stream frame by frame as the test reads it (the stream errors at a frame that does not match, and the
 * test fails even if it swallows that error).
 */
export async function api(path: string, init: ApiInit = {}): Promise<Response> {
  const { key, json, undocumented, strict, ...rest } = init;
  const headers = new Headers(init.headers);
  if (key) headers.set("authorization", `Bearer ${key}`);
  let body = init.body;
  if (json !== undefined) {
    headers.set("content-type", "application/json");
    body = JSON.stringify(json);
  }
  const request = new Request(`http://sb.test${path}`, { ...rest, headers, body });
  const res = await (exports as unknown as { default: Fetcher }).default.fetch(request);
  return conforming(request, res, undocumented, strict);
}

/**
 * `res`, the worker's answer to `request`, checked against the OpenAPI document (see `api`; `strict`: a JSON answer
 * may carry no key the document does not declare), unless `undocumented` says why this request deliberately gets an
 * answer the document does not give.
 */
export async function conforming(
  request: Request,
  res: Response,
  undocumented?: string,
  strict = false,
): Promise<Response> {
  if (undocumented) return res;
  contract ??= dereferenced(JSON.parse(JSON.stringify(OPENAPI)));
  const report = (violation: Error) => {
    expect.soft(violation, "a stream frame the OpenAPI document does not give").toBeUndefined();
  };
  return checkedAnswer(contract, request.method, request.url, res, report, strict);
}

export async function apiJson<T = Record<string, unknown>>(
  path: string,
  init: ApiInit = {},
): Promise<{ status: number; body: T }> {
  const headers = new Headers(init.headers);
  headers.set("accept", "application/json");
  const res = await api(path, { ...init, headers });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
}

export async function tenantKey(tenant = uid("t")): Promise<string> {
  const res = await apiJson<{ key: string }>("/v1/keys", { method: "POST", key: ADMIN, json: { tenant } });
  if (res.status !== 201) throw new Error(`key: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.key;
}

/** A key of a new tenant that lists `origins` as its CORS origins, limited to `rateLimitPerMin` requests a minute. */
export async function originsKey(origins: string[], rateLimitPerMin: number): Promise<string> {
  const tenant = uid("t-origins");
  const cors = await apiJson(`/v1/tenants/${tenant}/cors`, {
    method: "PUT",
    key: ADMIN,
    json: { allowed_origins: origins },
  });
  if (cors.status !== 200) throw new Error(`cors: ${cors.status} ${JSON.stringify(cors.body)}`);
  const res = await apiJson<{ key: string }>("/v1/keys", {
    method: "POST",
    key: ADMIN,
    json: { tenant, rate_limit_per_min: rateLimitPerMin },
  });
  if (res.status !== 201) throw new Error(`key: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.key;
}

export interface Setup {
  key: string;
  agent: string;
  model: string;
  session: string;
}

/** A fresh tenant key, agent (with a unique mock model name) and session. */
export async function setup(
  agentBody: Record<string, unknown> = {},
  provider: "anthropic" | "openai" | "openai-responses" = "anthropic",
): Promise<Setup> {
  const key = await tenantKey();
  const agent = uid("agent");
  const model = uid(`mock-${provider}`);
  const put = await apiJson(`/v1/agents/${agent}`, {
    method: "PUT",
    key: ADMIN,
    json: { model: { provider, name: model }, system: "You are a test agent.", ...agentBody },
  });
  if (put.status !== 201) throw new Error(`agent: ${put.status} ${JSON.stringify(put.body)}`);
  const ses = await apiJson<{ id: string }>("/v1/sessions", { method: "POST", key, json: { agent } });
  if (ses.status !== 201) throw new Error(`session: ${ses.status} ${JSON.stringify(ses.body)}`);
  return { key, agent, model, session: ses.body.id };
}

/** Deletes the session and creates it again under the same id (same tenant and agent): its object is reused. */
export async function recreate(s: Setup): Promise<void> {
  const deleted = await apiJson(`/v1/sessions/${s.session}`, { method: "DELETE", key: s.key });
  if (deleted.status !== 200) throw new Error(`delete: ${deleted.status} ${JSON.stringify(deleted.body)}`);
  const again = await apiJson("/v1/sessions", { method: "POST", key: s.key, json: { agent: s.agent, id: s.session } });
  if (again.status !== 201) throw new Error(`create again: ${again.status} ${JSON.stringify(again.body)}`);
}

/** The session's Durable Object stub (named `tenant:id`), for tests that look at or change its storage. */
export async function sessionStub(s: Setup): Promise<DurableObjectStub> {
  const row = await env.DB.prepare("SELECT tenant FROM sessions WHERE id = ?")
    .bind(s.session)
    .first<{ tenant: string }>();
  if (!row) throw new Error("session row missing");
  return env.SESSION.getByName(`${row.tenant}:${s.session}`);
}

/** Queues the mock's answers to `model`'s summary requests (compactions), apart from its turn script; `replace` drops what is still queued. */
export async function summaryScript(model: string, steps: unknown[], replace = false): Promise<void> {
  const res = await fetch(`${env.MOCK_URL}/_mock/script`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model, steps, summary: true, replace }),
  });
  if (!res.ok) throw new Error(`mock summary script: ${res.status}`);
}

/**
 * Has the provider of an `openai` session name a `tokens`-token window in its overflow error (Chat Completions'
 * wording, which the context budget learns the window from): three turns, then a fourth refused with it, compacted and
 * sent again.
 */
export async function overflowNaming(s: Setup, tokens: number): Promise<void> {
  for (let i = 1; i <= 3; i++) {
    const turn = await send(s, { content: `turn ${i}: ${"lorem ipsum dolor sit amet ".repeat(45)}` });
    expect(turn.body.status).toBe("completed");
  }
  const message = `This model's maximum context length is ${tokens} tokens. However, you requested ${tokens + 1000} tokens.`;
  await script(s.model, [{ error: { status: 400, message } }]);
  expect((await send(s, { content: "turn 4: refused once as too long" })).body.status).toBe("completed");
}

/** Queues `model`'s next answers (its turn script); `replace` drops what is still queued first. */
export async function script(model: string, steps: unknown[], replace = false): Promise<void> {
  const res = await fetch(`${env.MOCK_URL}/_mock/script`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model, steps, replace }),
  });
  if (!res.ok) throw new Error(`mock script: ${res.status} ${await res.text()}`);
}

/**
 * Gives the mock's `model` a context window of `tokens` (null: none): a longer request is answered with its overflow
 * 400; `output`: requests must fit their output limit (max_tokens) in it too.
 */
export async function mockWindow(model: string, tokens: number | null, output = false): Promise<void> {
  const res = await fetch(`${env.MOCK_URL}/_mock/context_window`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model, tokens, output }),
  });
  if (!res.ok) throw new Error(`mock window: ${res.status}`);
}

/** Has the mock count `model`'s input tokens as o200k reads them (mock/tokenizer.ts): ids and numbers far denser. */
export async function mockTokenizer(model: string): Promise<void> {
  const res = await fetch(`${env.MOCK_URL}/_mock/tokenizer`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model, tokenizer: "o200k" }),
  });
  if (!res.ok) throw new Error(`mock tokenizer: ${res.status}`);
}

export interface MockRecord {
  /** Order of arrival across all models. */
  seq: number;
  /** What answered it: a scripted step's kind, "default" (the brain), or null while still unanswered. */
  served: string | null;
  protocol: string;
  body: Record<string, unknown>;
  rejected: null | { status: number; message: string };
}

export async function mockRequests(model: string): Promise<MockRecord[]> {
  const res = await fetch(`${env.MOCK_URL}/_mock/requests?model=${encodeURIComponent(model)}`);
  return ((await res.json()) as { requests: MockRecord[] }).requests;
}

/** The mock's counters for `model` (requests, rejections, compactions, summaries, overflows, …). */
export async function mockStats(model: string): Promise<Record<string, number>> {
  const res = await fetch(`${env.MOCK_URL}/_mock/stats?model=${encodeURIComponent(model)}`);
  return ((await res.json()) as { model: Record<string, number> }).model;
}

/**
 * What a native compaction leaves on either protocol, with COMPACTION_TOOLS loaded: the streamed
 * `data-compaction` part marked native, the provider compacting with no summary request of ours and no
 * rejection, a `context_compacted` event that kept the loaded tool, and the stored assistant message at its
 * boundary opening with the provider's block. Returns the history, the boundary seq and that block.
 */
export async function expectNativeCompacted(
  s: Setup,
  streamed: string,
  provider: "anthropic" | "openai",
): Promise<{ stored: Msg[]; boundary: number; block: { content?: string; encrypted: string } }> {
  expect(streamed).toMatch(/"type":"data-compaction","data":\{[^}]*"native":true/);
  const stats = await mockStats(s.model);
  expect(stats.compactions).toBeGreaterThan(0);
  expect(stats.rejected).toBe(0);
  expect(stats.overflow).toBe(0);
  expect(stats.summaries).toBe(0);
  const compacted = (await events(s)).filter((e) => e.type === "context_compacted");
  expect(compacted.length).toBeGreaterThan(0);
  expect(compacted[0]?.data).toMatchObject({ native: true, summary_requests: 0, tools_kept: ["lookup_order"] });
  const boundary = Number(compacted[compacted.length - 1]?.data.boundary_seq);
  const stored = await history(s);
  const at = stored.find((m) => m.seq === boundary);
  expect(at?.role).toBe("assistant");
  expect(at?.parts[0]).toMatchObject({ type: "compaction", provider });
  const block = at?.parts[0] as unknown as { content?: string; encrypted: string };
  expect(block.encrypted).toMatch(/^mockcmp_/);
  expect(pairingProblems(stored)).toEqual([]);
  return { stored, boundary, block };
}

export const clientTool = (name: string) => ({
  name,
  description: `client tool ${name}`,
  input_schema: { type: "object", properties: { q: { type: "string" } } },
  execution: { type: "client" },
});

/**
 * The URL of an http tool whose every call the mock holds unanswered until `releaseTool(hold)` (mock/tool-endpoint.ts):
 * a call that runs exactly as long as the test needs, with no wall-clock wait. `hold` names it: unique per test.
 */
export const heldToolUrl = (hold: string) => `${env.MOCK_URL}/_tool?hold=${encodeURIComponent(hold)}`;

/** Has the mock answer the calls held on `hold` (see heldToolUrl), now and from now on. */
export async function releaseTool(hold: string): Promise<void> {
  const res = await fetch(`${env.MOCK_URL}/_tool/release?hold=${encodeURIComponent(hold)}`, { method: "POST" });
  if (!res.ok) throw new Error(`mock tool release: ${res.status}`);
}

/**
 * One SSE event (the text of a block between blank lines) as its id and data; null for a block with no data: a
 * comment such as the keep-alive `: ping`, which SSE parsers skip.
 */
export function sseEvent(block: string): { id: number | null; data: string } | null {
  let id: number | null = null;
  const data: string[] = [];
  for (const line of block.split("\n")) {
    if (line.startsWith("id: ")) id = Number(line.slice(4));
    else if (line.startsWith("data: ")) data.push(line.slice(6));
  }
  return data.length > 0 ? { id, data: data.join("\n") } : null;
}

/** A whole SSE answer's events (keep-alive comments left out). */
export async function sseFrames(res: Response): Promise<Array<{ id: number | null; data: string }>> {
  const text = await res.text();
  return text.split("\n\n").flatMap((block) => sseEvent(block) ?? []);
}

/** Reads SSE frames from a live response until `count` frames arrived, then hangs up. */
export async function readFrames(res: Response, count: number): Promise<Array<{ id: number | null; data: string }>> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  const frames: Array<{ id: number | null; data: string }> = [];
  while (frames.length < count) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    let cut = text.indexOf("\n\n");
    while (cut >= 0 && frames.length < count) {
      const event = sseEvent(text.slice(0, cut));
      text = text.slice(cut + 2);
      if (event) frames.push(event);
      cut = text.indexOf("\n\n");
    }
  }
  await reader.cancel();
  return frames;
}

/** A UI message stream answer's chunks (the frames' JSON, `[DONE]` left out). */
export async function uiChunks<T extends { type: string } = { type: string } & Record<string, unknown>>(
  res: Response,
): Promise<T[]> {
  return (await sseFrames(res)).filter((f) => f.data !== "[DONE]").map((f) => JSON.parse(f.data) as T);
}

/** Fetches a complete stream for `reply` straight from the mock, so tests can replay it with cuts. */
export async function recordStream(
  protocol: "anthropic" | "openai" | "openai-responses",
  reply: Record<string, unknown>,
): Promise<string> {
  const model = uid("probe");
  await script(model, [{ reply }]);
  const anthropic = protocol === "anthropic";
  const path = anthropic ? "/v1/messages" : protocol === "openai" ? "/v1/chat/completions" : "/v1/responses";
  const res = await fetch(`${env.MOCK_URL}${path}`, {
    method: "POST",
    headers: anthropic
      ? { "content-type": "application/json", "x-api-key": "k", "anthropic-version": "2023-06-01" }
      : { "content-type": "application/json", authorization: "Bearer k" },
    body: JSON.stringify(
      anthropic
        ? { model, max_tokens: 100, stream: true, messages: [{ role: "user", content: "x" }] }
        : protocol === "openai"
          ? { model, stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "x" }] }
          : { model, stream: true, store: false, input: [{ type: "message", role: "user", content: "x" }] },
    ),
  });
  if (!res.ok) throw new Error(`probe: ${res.status} ${await res.text()}`);
  return res.text();
}

export interface Msg {
  seq: number;
  role: string;
  origin: string;
  parts: Array<Record<string, unknown> & { type: string }>;
}

/**
 * Writes `turns` finished text turns into the session through the debug seeding route (src/session/debug-seed.ts),
 * in as many calls as its limits need (SEED_TURNS_MAX turns, a 1 MiB body); turn i asks and answers `text(i)`.
 */
export async function seed(s: Setup, turns: number, text: (i: number) => string = (i) => `seeded ${i}`): Promise<void> {
  let batch: Array<{ user: string; assistant: string }> = [];
  let bytes = 0;
  const flush = async () => {
    const res = await api(`/v1/sessions/${s.session}/debug/seed`, {
      method: "POST",
      key: s.key,
      json: { turns: batch },
      undocumented: "the debug seeding route (SWITCHBOARD_DEBUG_SEED) is for tests, not in the contract",
    });
    if (res.status !== 200) throw new Error(`seed: ${res.status} ${await res.text()}`);
    batch = [];
    bytes = 0;
  };
  for (let i = 0; i < turns; i++) {
    const t = text(i);
    const size = 2 * jsonBytes(t) + 32;
    if (batch.length === SEED_TURNS_MAX || (batch.length > 0 && bytes + size > 1_000_000)) await flush();
    batch.push({ user: t, assistant: t });
    bytes += size;
  }
  if (batch.length > 0) await flush();
}

export async function history(s: Setup): Promise<Msg[]> {
  const res = await apiJson<{ messages: Msg[] }>(`/v1/sessions/${s.session}/messages?limit=1000`, { key: s.key });
  return res.body.messages;
}

export async function events(s: Setup): Promise<Array<{ type: string; data: Record<string, unknown> }>> {
  const res = await apiJson<{ events: Array<{ type: string; data: Record<string, unknown> }> }>(
    `/v1/sessions/${s.session}/events?limit=1000`,
    { key: s.key },
  );
  return res.body.events;
}

/**
 * The status of the session's last turn once it no longer runs (a resumed turn goes on after the request or alarm
 * that resumed it): polled, at most 400 times.
 */
export async function lastTurnAtRest(s: Setup): Promise<string | undefined> {
  for (let i = 0; ; i++) {
    const state = await apiJson<{ last_turn: { status: string } | null }>(`/v1/sessions/${s.session}`, { key: s.key });
    const status = state.body.last_turn?.status;
    if (status !== "running" || i >= 400) return status;
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Every page of a session's route paged by seq (`messages`, `events`) at `limit`, from after=0 following each page's
 * `next` until it is null; a page that is not a 200 is the last one read.
 */
export async function seqPages<T extends { next: number | null }>(
  s: Setup,
  route: "messages" | "events",
  limit: number,
): Promise<Array<{ status: number; body: T }>> {
  const pages: Array<{ status: number; body: T }> = [];
  let after = 0;
  for (;;) {
    const page = await apiJson<T>(`/v1/sessions/${s.session}/${route}?after=${after}&limit=${limit}`, { key: s.key });
    pages.push(page);
    if (page.status !== 200 || page.body.next === null) return pages;
    after = page.body.next;
  }
}

/** A message to the session by its key, the answer read to its end (its headers carry the debug counts). */
export async function sendMessage(s: Setup, content: string): Promise<Response> {
  const res = await api(`/v1/sessions/${s.session}/messages`, { method: "POST", key: s.key, json: { content } });
  await res.text();
  return res;
}

/** PUTs agent `name`, as the admin, with the setup's mock model and this system prompt. */
export function putAgentOf(s: Setup, name: string, system: string) {
  return apiJson(`/v1/agents/${name}`, {
    method: "PUT",
    key: ADMIN,
    json: { model: { provider: "anthropic", name: s.model }, system },
  });
}

export function send(s: Setup, body: Record<string, unknown>) {
  return apiJson<TurnJson>(`/v1/sessions/${s.session}/messages`, { method: "POST", key: s.key, json: body });
}

export interface TurnJson {
  turn_id: string;
  status: string;
  finish_reason: string | null;
  messages: Msg[];
  error?: { code: string; message: string };
  pending_tool_calls?: Array<{ id: string; name: string }>;
}

/** Checks invariant P on canonical history: each tool_use answered once, first, in order, in the next message. */
export function pairingProblems(msgs: Msg[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  msgs.forEach((m, i) => {
    const uses = m.parts.filter((p) => p.type === "tool_use").map((p) => p.id as string);
    for (const id of uses) {
      if (seen.has(id)) problems.push(`duplicate tool_use ${id}`);
      seen.add(id);
    }
    if (m.role !== "assistant" || uses.length === 0) return;
    const next = msgs[i + 1];
    if (!next) return; // the newest message may still wait for results
    const results = next.parts.slice(0, uses.length);
    const ids = results.filter((p) => p.type === "tool_result").map((p) => p.tool_use_id as string);
    if (JSON.stringify(ids) !== JSON.stringify(uses)) problems.push(`message ${m.seq}: results ${ids} != uses ${uses}`);
    const extra = next.parts.slice(uses.length).filter((p) => p.type === "tool_result");
    if (extra.length) problems.push(`message ${next.seq}: extra tool_results`);
  });
  return problems;
}

/**
 * Once nothing runs and nothing is being delivered, the alarm waits only for
 * the retention sweep (src/session/sweeper.ts), which is far away: no heartbeat,
 * no run or callback job.
 */
export async function expectOnlySweepLeft(object: DurableObjectStub): Promise<void> {
  const { jobs, alarm } = await runInDurableObject(object, async (_i, state) => ({
    jobs: state.storage.sql.exec<{ kind: string; due_at: number }>("SELECT kind, due_at FROM jobs").toArray(),
    alarm: await state.storage.getAlarm(),
  }));
  expect(jobs.map((j) => j.kind)).toEqual(["sweep"]);
  expect(alarm).toBe(jobs[0]?.due_at);
  expect(alarm).toBeGreaterThan(Date.now() + 86_400_000);
}

/** An http tool taking a city, answered by the mock's `/_tool` echo. */
function cityTool(name: string, description: string, defer: boolean) {
  return {
    name,
    description,
    input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    defer,
    execution: { type: "http", url: `${env.MOCK_URL}/_tool` },
  };
}

/**
 * An http tool whose endpoint records every call it receives (GET /_callback/<recorder> lists them), needing a
 * person's approval unless `requiresApproval` is false.
 */
export function recordedTool(name: string, recorder: string, requiresApproval = true) {
  return {
    name,
    description: `http tool ${name}`,
    input_schema: { type: "object", properties: { amount: { type: "number" } } },
    execution: { type: "http", url: `${env.MOCK_URL}/_callback/${recorder}` },
    ...(requiresApproval ? { requires_approval: true } : {}),
  };
}

/** useChat's part for a charge_card call (recordedTool) after addToolApprovalResponse({approved: true}). */
export function approvedPart(open: { approval_id: string; tool_call_id: string; input: unknown; signature: string }) {
  return {
    type: "dynamic-tool",
    toolName: "charge_card",
    toolCallId: open.tool_call_id,
    state: "approval-responded",
    input: open.input,
    approval: { id: open.approval_id, approved: true, signature: open.signature },
  };
}

/** The compaction suites' tools: one always loaded, one deferred (loaded early, called again late). */
export const COMPACTION_TOOLS = [
  cityTool("echo_core", "Echo a city back", false),
  cityTool("lookup_order", "Look up an order", true),
];

/** The session's stores over an object's storage, as the engine builds them (for tests of their in-memory rows). */
export function sessionStores(storage: DurableObjectStorage) {
  const history = new HistoryStore(storage.sql);
  return {
    storage,
    history,
    tools: new SessionTools(storage.sql, history),
    turns: new TurnStore(storage.sql),
    approvals: new ApprovalStore(storage.sql, () => "test-session"),
  };
}

/** Runs `fn` in a session transaction that then fails, and checks that it rolled back with that failure. */
export function rollsBack(stores: ReturnType<typeof sessionStores>, fn: () => void): void {
  expect(() =>
    sessionTx(stores, () => {
      fn();
      throw new Error("the write after this one failed");
    }),
  ).toThrow("the write after this one failed");
}

const restores: Array<() => void> = [];

/**
 * Replaces `proto[key]` (a prototype the session object shares with the test: same isolate) to inject a fault;
 * `restorePatches`, called from the test file's afterEach, puts every original back.
 */
export function patch<T extends object, K extends keyof T>(proto: T, key: K, replacement: T[K]): void {
  const original = proto[key];
  proto[key] = replacement;
  restores.push(() => {
    proto[key] = original;
  });
}

export function restorePatches(): void {
  for (const r of restores.splice(0)) r();
}

/** A promise the test opens when it chooses: a patched call awaits it to be held at a point the test picks. */
export function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/** The ids `GET /v1/sessions` lists for the tenant of API key `key` (its first 200). */
export async function listedIds({ key }: { key: string }): Promise<string[]> {
  const listed = await apiJson<{ sessions: Array<{ id: string }> }>("/v1/sessions?limit=200", { key });
  return listed.body.sessions.map((session) => session.id);
}

/**
 * An MCP server answered in the isolate (no network): every connection of the session object (same isolate) lists
 * the tools `names` (each taking any object) and answers their tools/call with `answer`. `up` false fails both as an
 * unreachable server would. Patched, so the test file calls `restorePatches` afterEach.
 */
export function fakeMcpServer(names: string[], answer: CallToolResult = { content: [] }): { up: boolean } {
  const server = { up: true };
  const tools = names.map((name) => ({ name, description: `does ${name}`, inputSchema: { type: "object" } }));
  patch(McpConnection.prototype, "list", async () => {
    if (!server.up) throw new TypeError("fetch failed");
    return { tools, truncated: false };
  });
  patch(McpConnection.prototype, "call", async () => {
    if (!server.up) throw new TypeError("fetch failed");
    return { result: answer, schemaError: null };
  });
  return server;
}

/** `n` deferred http tools `prefix_i`, each with 300 string properties: ~20 KB per declaration once widened for `$tool`. */
export const wideTools = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({
    name: `${prefix}_${i}`,
    description: `Wide tool ${i}`,
    input_schema: {
      type: "object",
      properties: Object.fromEntries(Array.from({ length: 300 }, (_, j) => [`field_${j}`, { type: "string" }])),
    },
    defer: true,
    execution: { type: "http", url: `${env.MOCK_URL}/_tool` },
  }));

/** One step's parallel `select_tools` calls (`id_0`, `id_1`, …), 20 names each, loading `names`. */
export const selectCalls = (id: string, names: string[]) =>
  Array.from({ length: Math.ceil(names.length / 20) }, (_, k) => ({
    id: `${id}_${k}`,
    name: "select_tools",
    input: { names: names.slice(k * 20, k * 20 + 20) },
  }));

/** Reads a stream to its end as text; "dropped" when it errors (the stream log dropped it). */
export async function readRest(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  try {
    for (let r = await reader.read(); !r.done; r = await reader.read())
      text += decoder.decode(r.value, { stream: true });
  } catch {
    return "dropped";
  }
  return text;
}

/** Inside the object: a client's streams in every place MAX_SUBSCRIBERS allows (replays of its newest turn, unread). */
export async function fillStreamPlaces(instance: Session): Promise<ReadableStreamDefaultReader<Uint8Array>[]> {
  const readers: ReadableStreamDefaultReader<Uint8Array>[] = [];
  for (let i = 0; i < MAX_SUBSCRIBERS; i++) {
    const open = await instance.openStream(0);
    if (!open.ok || !open.stream) throw new Error("no stream to open");
    readers.push(open.stream.getReader());
  }
  return readers;
}

/**
 * Inside the object: a queued webhook run of `agent` asking `text`, its job due now (the next alarm starts it);
 * `row` gives its stored json_schema (JSON text) and callback_url (its callback then pending, as RunStore writes it).
 */
export function queueRun(
  sql: SqlStorage,
  run: string,
  agent: string,
  text: string,
  row: { json_schema?: string; callback_url?: string } = {},
): void {
  const now = new Date().toISOString();
  sql.exec(
    `INSERT INTO runs (id, agent, status, input, json_schema, callback_url, callback_status, created_at)
     VALUES (?, ?, 'queued', ?, ?, ?, ?, ?)`,
    run,
    agent,
    JSON.stringify([{ type: "text", text }]),
    row.json_schema ?? null,
    row.callback_url ?? null,
    row.callback_url ? "pending" : null,
    now,
  );
  sql.exec("INSERT INTO jobs (id, kind, ref, due_at, created_at) VALUES (?, 'run', ?, 0, ?)", `run:${run}`, run, now);
}

/**
 * `{"items": [...], "meta": {"count": count}}` as JSON text (~65 bytes an item; its JSON encoding, which storage
 * budgets count, escapes every quote). With `size`, a `pad` string makes that encoding exactly `size` bytes.
 */
export function itemsText(count: number, size?: number): string {
  const items = Array.from({ length: count }, (_, i) => ({
    id: i,
    name: `item ${i}`,
    tags: ["alpha", "beta"],
    note: "n",
  }));
  const value = { items, meta: { count }, ...(size === undefined ? {} : { pad: "" }) };
  if (size !== undefined) value.pad = "p".repeat(size - jsonBytes(JSON.stringify(value)));
  return JSON.stringify(value);
}

/** An http tool `take` (a number `count`, any `data`) whose endpoint records every call (GET /_callback/<recorder>). */
export const takeTool = (recorder: string) => ({
  name: "take",
  description: "takes a count or any data",
  input_schema: { type: "object", properties: { count: { type: "number" }, data: { description: "any value" } } },
  execution: { type: "http", url: `${env.MOCK_URL}/_callback/${recorder}` },
});

/**
 * A turn in which the client tool `c_big` answers call `id` with `text`, then the model makes the calls `next` in one
 * step (none: no step) and ends with text. Returns the turn as the client's `/tool-results` answer has it.
 */
export async function takeAfterClientResult(
  s: Setup,
  id: string,
  text: string,
  next: Array<{ id: string; name: string; input: Record<string, unknown> }>,
): Promise<TurnJson> {
  await script(s.model, [
    { reply: { tool_calls: [{ id, name: "c_big", input: { q: "everything" } }] } },
    ...(next.length > 0 ? [{ reply: { tool_calls: next } }] : []),
    { reply: { text: "done" } },
  ]);
  const paused = await send(s, { content: "fetch it all, then pass it on" });
  if (paused.body.status !== "awaiting_tool_results") throw new Error(`turn: ${JSON.stringify(paused.body)}`);
  const res = await apiJson<TurnJson>(`/v1/sessions/${s.session}/tool-results`, {
    method: "POST",
    key: s.key,
    json: { results: [{ tool_use_id: id, content: text }] },
  });
  if (res.status !== 200) throw new Error(`tool-results: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}
