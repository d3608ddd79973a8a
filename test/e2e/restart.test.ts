// Eviction mid-turn, for real: a wrangler dev of its own is killed while the model is stalled right after
// a completed tool_use, and a new one is started on the same persist dir. The session must come back
// with the turn marked interrupted, the call repaired (§3), and a retry that the provider accepts.
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { resultText } from "../../src/model/message.ts";
import { LOOKUP_TOOL, lookupAgent } from "../helpers/fixtures.ts";
import {
  Api,
  type HistoryMessage,
  HttpError,
  killGroup,
  Mock,
  type SseFrame,
  SseParser,
  startWrangler,
  type TurnResult,
  uniqueModel,
  type WranglerServer,
  workerVars,
} from "../helpers/index.ts";

const adminKey = inject("adminKey");
const mockUrl = inject("mockUrl");
const mock = new Mock(mockUrl);

/**
 * The global setup's variables, with one change: the provider idle watchdog is long. The model stalls on
 * purpose until the worker is killed; with the suite's 3 s watchdog the step could fail first (a slow kill
 * or a busy machine), and the test would then see a failed turn instead of an interrupted one.
 */
const vars = workerVars(mockUrl, adminKey, { SWITCHBOARD_IDLE_TIMEOUT_MS: "600000" });

let persistDir: string;
let worker: WranglerServer | undefined;

beforeAll(async () => {
  persistDir = await mkdtemp(path.join(tmpdir(), "switchboard-e2e-restart-"));
  // startWrangler never deletes a persist dir it was given (only its own temp dirs), so a second
  // wrangler on this dir sees the first one's D1 and Durable Object state.
  worker = await startWrangler({ vars, persistDir });
});

afterAll(async () => {
  await worker?.stop();
  if (persistDir !== undefined) await rm(persistDir, { recursive: true, force: true });
});

/** Splits an SSE body into frames exactly as the mock does for a `raw` step (so indexes line up). */
function mockFrames(raw: string): string[] {
  return raw.split(/(?<=\r?\n\r?\n)/).filter((f) => f.length > 0);
}

/**
 * Records a real Anthropic stream from the mock: a probe model is scripted with the reply, then asked
 * directly. Returns the body and the number of frames up to and including the tool_use's content_block_stop.
 */
async function recordToolUseStream(toolUseId: string): Promise<{ raw: string; throughToolStop: number }> {
  const probe = uniqueModel("restart-probe");
  await mock.script(probe, [
    {
      reply: {
        text: "Let me look that up.",
        tool_calls: [{ id: toolUseId, name: "lookup", input: { key: "ada lovelace" } }],
      },
    },
  ]);
  const res = await fetch(`${mock.anthropicBaseUrl}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": "probe-key", "anthropic-version": "2023-06-01" },
    body: JSON.stringify({
      model: probe,
      max_tokens: 1024,
      stream: true,
      messages: [{ role: "user", content: "Where does Ada live?" }],
      tools: [LOOKUP_TOOL],
    }),
  });
  const raw = await res.text();
  if (res.status !== 200) throw new HttpError("mock POST /v1/messages (probe)", res.status, raw);

  const frames = mockFrames(raw);
  const dataOf = (frame: string): unknown => {
    const line = frame.split(/\r?\n/).find((l) => l.startsWith("data:"));
    return line === undefined ? undefined : JSON.parse(line.slice(5));
  };
  const startAt = frames.findIndex((f) => {
    const data = dataOf(f);
    return (
      typeof data === "object" &&
      data !== null &&
      "type" in data &&
      data.type === "content_block_start" &&
      "content_block" in data &&
      typeof data.content_block === "object" &&
      data.content_block !== null &&
      "id" in data.content_block &&
      data.content_block.id === toolUseId
    );
  });
  expect(startAt, "the probe stream has no tool_use block").toBeGreaterThanOrEqual(0);
  const startData = dataOf(frames[startAt] ?? "");
  const index = typeof startData === "object" && startData !== null && "index" in startData ? startData.index : -1;
  const stopAt = frames.findIndex((f, i) => {
    const data = dataOf(f);
    return (
      i > startAt &&
      typeof data === "object" &&
      data !== null &&
      "type" in data &&
      data.type === "content_block_stop" &&
      "index" in data &&
      data.index === index
    );
  });
  expect(stopAt, "the probe stream never closes the tool_use block").toBeGreaterThan(startAt);
  // There must be something left to withhold (message_delta / message_stop), or the stall proves nothing.
  expect(stopAt + 1).toBeLessThan(frames.length);
  return { raw, throughToolStop: stopAt + 1 };
}

/** Reads SSE frames from a live response until one matches; returns them and the still-open reader. */
async function readUntil(
  res: Response,
  match: (frame: SseFrame) => boolean,
): Promise<{ frames: SseFrame[]; reader: ReadableStreamDefaultReader<Uint8Array> }> {
  const body = res.body;
  if (body === null) throw new Error("the SSE response has no body");
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  const frames: SseFrame[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the stream ended before the awaited frame; got: ${frames.map((f) => f.data)}`);
    for (const frame of parser.feed(decoder.decode(value, { stream: true }))) {
      frames.push(frame);
      if (match(frame)) return { frames, reader };
    }
  }
}

function chunkType(frame: SseFrame): string | undefined {
  const json = frame.json;
  return typeof json === "object" && json !== null && "type" in json && typeof json.type === "string"
    ? json.type
    : undefined;
}

interface SessionView {
  status: string;
  last_turn: { id: string; status: string } | null;
  pending_tool_calls: unknown[];
}

describe("a worker restart in the middle of a turn", () => {
  it("marks the turn interrupted, repairs the open call, and a retry completes", {
    timeout: 180_000,
  }, async () => {
    const first = worker;
    if (first === undefined) throw new Error("no worker");
    let api = new Api(first.url, adminKey);
    const tenantKey = (await api.createKey(`restart-${Date.now()}`)).key;
    const model = uniqueModel("restart");
    const agent = `agent-${model}`;
    // An http tool: a call's input is on the stream the moment its block ends (a client tool's waits for the
    // step's tool phase, which the stalled model never reaches). The call never runs.
    const lookup = { ...LOOKUP_TOOL, input_schema: { ...LOOKUP_TOOL.input_schema } };
    await api.putAgent(agent, {
      ...lookupAgent(model),
      tools: [{ ...lookup, execution: { type: "http", url: `${mockUrl}/_tool` } }],
    });
    const session = (await api.createSession(tenantKey, agent)).id;

    const toolUseId = `toolu_restart_${randomUUID().replaceAll("-", "").slice(0, 20)}`;
    const recorded = await recordToolUseStream(toolUseId);
    await mock.script(model, [{ raw: recorded.raw, faults: { stall_after_events: recorded.throughToolStop } }]);

    // The turn streams until the tool call is announced complete; the model then stalls forever.
    const res = await api.send(tenantKey, session, { content: "Where does Ada live?" });
    if (!res.ok) throw new HttpError("POST /messages", res.status, await res.text());
    const { frames, reader } = await readUntil(res, (f) => chunkType(f) === "tool-input-available");
    expect(frames.at(-1)?.json).toMatchObject({ toolCallId: toolUseId, toolName: "lookup" });

    // Crash: kill the whole process group (wrangler and workerd) without a graceful shutdown.
    killGroup(first.pid, "SIGKILL");
    await first.stop();
    await reader.cancel().catch(() => undefined);
    worker = await startWrangler({ vars, persistDir });
    api = new Api(worker.url, adminKey);

    // The session woke up knowing the turn was cut off.
    const view = await api.getSession(tenantKey, session);
    expect(view.status).toBe(200);
    const state = view.body as SessionView;
    expect(state.last_turn?.status).toBe("interrupted");
    expect(state.pending_tool_calls).toEqual([]);

    // History: the tool_use, then (first in the next user message) a synthetic is_error result for it.
    const history = await api.history(tenantKey, session);
    const useAt = history.messages.findIndex((m) => m.parts.some((p) => p.type === "tool_use" && p.id === toolUseId));
    expect(useAt).toBeGreaterThanOrEqual(0);
    const useMessage = history.messages[useAt] as HistoryMessage;
    expect(useMessage.role).toBe("assistant");
    const next = history.messages[useAt + 1];
    expect(next?.role).toBe("user");
    const repair = next?.parts[0];
    if (repair?.type !== "tool_result") throw new Error(`expected a tool_result first, got ${JSON.stringify(next)}`);
    expect(repair.tool_use_id).toBe(toolUseId);
    expect(repair.is_error).toBe(true);
    expect(resultText(repair.content)).toMatch(/^tool result unavailable: /);
    const results = history.messages.flatMap((m) =>
      m.parts.filter((p) => p.type === "tool_result" && p.tool_use_id === toolUseId),
    );
    expect(results).toHaveLength(1);

    // A retry runs the turn again; the provider accepts the repaired history.
    await mock.script(model, [{ reply: { text: "Ada lives in London." } }]);
    const retried = await api.retry(tenantKey, session, { json: true });
    const retryText = await retried.text();
    if (!retried.ok) throw new HttpError("POST /retry", retried.status, retryText);
    const turn = JSON.parse(retryText) as TurnResult;
    expect(turn.status).toBe("completed");
    const texts = turn.messages.flatMap((m) => m.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])));
    expect(texts).toContain("Ada lives in London.");

    const requests = await mock.requests(model);
    expect(requests).toHaveLength(2);
    expect(requests.map((r) => r.rejected)).toEqual([null, null]);
    const stats = await mock.stats(model);
    expect(stats.model).toMatchObject({ requests: 2, rejected: 0, rejected_p: 0 });
  });
});
