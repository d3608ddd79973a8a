// Sessions for the compaction suites (README "Long sessions"): an agent and mock model of a small window, long user
// messages and plain turns, long turns of tool steps, sessions of dense tool results counted by a real tokenizer,
// tools of results of a given size, the history and markers GET /messages pages through, and the summary requests
// the mock was sent before each step.
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import {
  ADMIN,
  apiJson,
  COMPACTION_TOOLS,
  mockRequests,
  mockTokenizer,
  mockWindow,
  type Setup,
  send,
  setup,
  uid,
} from "./helpers";

/** The context window of the compaction suites' agents and mock models, in tokens. */
export const WINDOW = 8000;

export const PROTOCOLS = ["anthropic", "openai", "openai-responses"] as const;
export type Protocol = (typeof PROTOCOLS)[number];

/** ~1.2 KB of user text that names the turn. */
export const userText = (i: number, extra = "") => `msg-${i}: ${extra}${"lorem ipsum dolor sit amet ".repeat(45)}`;

/** Every stored message and compaction marker, read a page at a time through GET /messages. */
export async function allMessages(s: Setup) {
  const out: Array<{ seq: number; role: string; parts: Array<Record<string, unknown>> }> = [];
  const markers: Array<{ before_seq: number; summary: string; turn_id: string | null }> = [];
  let after = 0;
  for (;;) {
    const page = await apiJson<{
      messages: typeof out;
      next: number | null;
      compactions: typeof markers;
    }>(`/v1/sessions/${s.session}/messages?after=${after}&limit=50`, { key: s.key });
    out.push(...page.body.messages);
    markers.push(...page.body.compactions);
    if (page.body.next === null) return { messages: out, markers };
    after = page.body.next;
  }
}

/** A session whose agent and mock model both have a `WINDOW`-token context window. */
export async function longSession(provider: Protocol, agent: Record<string, unknown> = {}) {
  const s = await setup({}, provider);
  const put = await apiJson(`/v1/agents/${s.agent}`, {
    method: "PUT",
    key: ADMIN,
    json: { model: { provider, name: s.model, context_window: WINDOW }, tools: COMPACTION_TOOLS, ...agent },
  });
  if (put.status >= 300) throw new Error(`agent: ${put.status} ${JSON.stringify(put.body)}`);
  await mockWindow(s.model, WINDOW);
  return s;
}

/** POST /compact, expected to be refused with nothing stored: its 409 not_compacted message. */
export async function refusedCompaction(s: Setup): Promise<string> {
  const res = await apiJson<{ error: { code: string; message: string } }>(`/v1/sessions/${s.session}/compact`, {
    method: "POST",
    key: s.key,
  });
  expect([res.status, res.body.error.code]).toEqual([409, "not_compacted"]);
  const state = await apiJson<{ context: Record<string, number> }>(`/v1/sessions/${s.session}`, { key: s.key });
  expect(state.body.context.compactions).toBe(0);
  return res.body.error.message;
}

/** Runs `n` plain turns (default brain echoes ~1.2 KB); returns their statuses. */
export async function turns(s: Setup, from: number, n: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = from; i < from + n; i++) out.push((await send(s, { content: userText(i) })).body.status);
  return out;
}
/** ~500 tokens of arguments; the echo tool answers with them again, so a step takes ~1,000 tokens. */
export const city = (i: number, repeat = 70) => `city-${i}: ${"Amsterdam Rotterdam Utrecht ".repeat(repeat)}`;

/** Steps `from..to`, each one echo_core call (`call_echo_<i>`). */
export const echoSteps = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, k) => ({
    reply: { tool_calls: [{ id: `call_echo_${from + k}`, name: "echo_core", input: { city: city(from + k) } }] },
  }));

/** The user's request of `steps` echo_core calls, unique per test: it must reach the model verbatim in every step request. */
export const requestText = (steps: number) =>
  `${uid("req")}: echo ${steps} cities with echo_core, one call per step, then say you are done.`;

/** The agent of a session: `WINDOW` tokens on the agent and the mock model, room for every step; `model` adds to its model. */
export function agentBody(
  provider: Protocol,
  model: string,
  tools: unknown[] = COMPACTION_TOOLS,
  more: Record<string, unknown> = {},
) {
  return { model: { provider, name: model, context_window: WINDOW, ...more }, tools, max_steps: 40 };
}

/** A session of `agentBody`'s agent (`tools`, `model` added to its model), its mock model of the same window. */
export async function longTurnSession(provider: Protocol, tools?: unknown[], model: Record<string, unknown> = {}) {
  const s = await setup({}, provider);
  const put = await apiJson(`/v1/agents/${s.agent}`, {
    method: "PUT",
    key: ADMIN,
    json: agentBody(provider, s.model, tools, model),
  });
  if (put.status >= 300) throw new Error(`agent: ${put.status} ${JSON.stringify(put.body)}`);
  await mockWindow(s.model, WINDOW);
  return s;
}

/** An `http` tool answering `n` UUIDs a call (the mock's dense data): ~2.5 o200k tokens per estimated token. */
export const uuidTool = (name: string, n: number) => ({
  name,
  description: `Fetch a page of ids (${name})`,
  input_schema: { type: "object", properties: { page: { type: "number" } }, required: ["page"] },
  execution: { type: "http", url: `${env.MOCK_URL}/_tool?dense=${n}&kind=uuids` },
});

/** One step calling `name` (id `id`) for page 1. */
export const fetchStep = (id: string, name: string) => ({
  reply: { tool_calls: [{ id, name, input: { page: 1 } }] },
});

/**
 * A session whose agent and mock model have a `window`-token window, the mock counting input as o200k does (ids
 * far denser than the estimate) and, on Anthropic, the request's max_tokens with it (as the API does).
 */
export async function denseSession(provider: Protocol, window: number, tools: unknown[]): Promise<Setup> {
  const s = await setup({}, provider);
  await putDenseAgent(s, provider, window, tools);
  await mockTokenizer(s.model);
  await mockWindow(s.model, window, provider === "anthropic");
  return s;
}

/** ~14,000 estimated tokens of prose system prompt (~13,400 as o200k counts it): 44 % of a 32,000-token window. */
export const PROSE_SYSTEM = "You are a careful agent. ".repeat(2240);

/** PUTs `denseSession`'s agent (`window`, `tools`, 60 steps), with `more` (a system prompt) added to it. */
export async function putDenseAgent(
  s: Setup,
  provider: Protocol,
  window: number,
  tools: unknown[],
  more: Record<string, unknown> = {},
): Promise<void> {
  const put = await apiJson(`/v1/agents/${s.agent}`, {
    method: "PUT",
    key: ADMIN,
    json: { model: { provider, name: s.model, context_window: window }, tools, max_steps: 60, ...more },
  });
  if (put.status >= 300) throw new Error(`agent: ${put.status} ${JSON.stringify(put.body)}`);
}

/**
 * How many summary requests `model` was sent before each of its other requests, in the mock's request log: one
 * entry per request of a step (a refused one and its retry each count), the summary requests since the one before.
 */
export async function summariesBeforeEachStep(model: string): Promise<number[]> {
  const out: number[] = [];
  let run = 0;
  for (const r of await mockRequests(model)) {
    if (r.served === "summary") run++;
    else {
      out.push(run);
      run = 0;
    }
  }
  return out;
}

/** An `http` tool whose every result is `bytes` bytes of ASCII (`bytes / 4` tokens as the mock counts them). */
export const pageTool = (name: string, bytes: number) => ({
  name,
  description: `Fetch a page of text (${name})`,
  input_schema: { type: "object", properties: { page: { type: "number" } }, required: ["page"] },
  execution: { type: "http", url: `${env.MOCK_URL}/_tool?bytes=${bytes}` },
});
