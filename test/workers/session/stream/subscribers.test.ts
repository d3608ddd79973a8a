// A session object's open client streams (src/session/stream/subscribers.ts): at most MAX_SUBSCRIBERS of them, over
// the stream log of a session object (opening one more drops the oldest once the others answer its probe; one read
// to its end or cancelled no longer counts), and through the HTTP API during a quiet phase of a turn (a slow http
// tool): a keep-alive comment reaches a client that would otherwise get nothing for the tool's whole run, and
// clients that hung up during it no longer hold places under MAX_SUBSCRIBERS, so they cannot push out the turn's own
// live reader. The Workers config shortens the keep-alive interval (SWITCHBOARD_STREAM_PING_MS); the keep-alive
// timer itself is tested in plain Node (test/unit/session/stream/subscribers.test.ts).
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { SSE_PING } from "../../../../src/session/stream/sse";
import { StreamLog } from "../../../../src/session/stream/stream-log";
import { MAX_SUBSCRIBERS } from "../../../../src/session/stream/subscribers";
import {
  api,
  heldToolUrl,
  readRest,
  releaseTool,
  type Setup,
  script,
  sessionStub,
  setup,
  sseEvent,
  sseFrames,
  uid,
} from "../../helpers";

const PING_MS = Number(env.SWITCHBOARD_STREAM_PING_MS);
const decoder = new TextDecoder();

/** Reads a stream until its text holds `marker` (keep-alives before it included), or to its end. */
async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, marker: string): Promise<string> {
  let text = "";
  while (!text.includes(marker)) {
    const r = await reader.read();
    if (r.done) break;
    text += decoder.decode(r.value, { stream: true });
  }
  return text;
}

/** A session whose model calls `slow_check` (an http tool answering `ms` later), then answers "all done". */
function slowToolTurn(tag: string, ms: number): Promise<Setup> {
  return checkTurn(tag, `${env.MOCK_URL}/_tool?delay_ms=${ms}&tag=${tag}`);
}

/** A session whose model calls `slow_check` (an http tool at `url`), then answers "all done". */
async function checkTurn(tag: string, url: string): Promise<Setup> {
  const slow = {
    name: "slow_check",
    description: "a slow server-side check",
    input_schema: { type: "object", properties: { amount: { type: "number" } } },
    execution: { type: "http", url },
  };
  const s = await setup({ tools: [slow] });
  await script(s.model, [
    { reply: { tool_calls: [{ id: `toolu_${tag}`, name: "slow_check", input: { amount: 1 } }] } },
    { reply: { text: "all done" } },
  ]);
  return s;
}

function post(s: Setup): Promise<Response> {
  return api(`/v1/sessions/${s.session}/messages`, { method: "POST", key: s.key, json: { content: "check it" } });
}

/** A whole SSE answer's blocks as they were sent: event frames and keep-alive comments (SSE_PING). */
async function blocks(res: Response): Promise<string[]> {
  return (await res.text()).split("\n\n").flatMap((block) => (block === "" ? [] : [`${block}\n\n`]));
}

/** The index of the first block that is a frame of a chunk of `type`. */
function indexOf(got: string[], type: string): number {
  return got.findIndex((block) => sseEvent(block)?.data.includes(`"type":"${type}"`));
}

describe("the open streams of a session object, at most MAX_SUBSCRIBERS", () => {
  it("opening one stream more than MAX_SUBSCRIBERS drops the oldest once the others answer its probe; the others follow live", async () => {
    const turn = "turn_stream_log_cap";
    const { oldest, others } = await runInDurableObject(await sessionStub(await setup()), async (_i, state) => {
      const log = new StreamLog(state.storage.sql);
      const readers = Array.from({ length: MAX_SUBSCRIBERS + 1 }, () => log.open(turn, log.head(), true).getReader());
      log.append(turn, [{ type: "text-delta", id: "t1", delta: "live" }]);
      const [first, ...rest] = readers;
      const others = Promise.all(rest.map((r) => readUntil(r, '"delta":"live"')));
      return { oldest: first ? await readRest(first) : "none", others: await others };
    });
    expect(oldest).toBe("dropped");
    expect(others).toHaveLength(MAX_SUBSCRIBERS);
    for (const text of others) expect(text).toContain('"delta":"live"');
  });

  it("a stream read to its end no longer counts against MAX_SUBSCRIBERS", async () => {
    const turn = "turn_stream_log_cap_read";
    const oldest = await runInDurableObject(await sessionStub(await setup()), async (_i, state) => {
      const log = new StreamLog(state.storage.sql);
      const start = log.head();
      log.append(turn, [{ type: "text-delta", id: "t1", delta: "early" }]);
      const first = log.open(turn, log.head(), true).getReader();
      const done = log.open(turn, start, false).getReader();
      while (!(await done.read()).done) {}
      // The writing side learns of the end a few promise reactions after the reader: let them run.
      await new Promise((resolve) => setTimeout(resolve, 0));
      // With the finished one counted, the last of these would drop `first`, the oldest.
      for (let i = 0; i < MAX_SUBSCRIBERS - 1; i++) log.open(turn, log.head(), true);
      log.append(turn, [{ type: "text-delta", id: "t1", delta: "live" }]);
      return new TextDecoder().decode((await first.read()).value);
    });
    expect(oldest).toContain('"delta":"live"');
  });

  it("a stream its client cancelled no longer counts against MAX_SUBSCRIBERS", async () => {
    const turn = "turn_stream_log_cap_cancel";
    const oldest = await runInDurableObject(await sessionStub(await setup()), async (_i, state) => {
      const log = new StreamLog(state.storage.sql);
      const first = log.open(turn, log.head(), true).getReader();
      await log.open(turn, log.head(), true).cancel();
      await new Promise((resolve) => setTimeout(resolve, 0));
      // With the cancelled one counted, the last of these would drop `first`, the oldest.
      for (let i = 0; i < MAX_SUBSCRIBERS - 1; i++) log.open(turn, log.head(), true);
      log.append(turn, [{ type: "text-delta", id: "t1", delta: "live" }]);
      return new TextDecoder().decode((await first.read()).value);
    });
    expect(oldest).toContain('"delta":"live"');
  });
});

describe("a client stream during a long tool call", () => {
  it("gets a keep-alive comment for each interval the tool runs quiet", async () => {
    const quietMs = 3500;
    const s = await slowToolTurn("ping_count", quietMs);
    const got = await blocks(await post(s));
    const started = indexOf(got, "tool-input-available");
    const answered = indexOf(got, "tool-output-available");
    expect(started).toBeGreaterThanOrEqual(0);
    expect(answered).toBeGreaterThan(started);
    // Without keep-alives the stream is silent for the tool's whole 3.5 s: none. Every full interval of it is one
    // (3 at 1 s); a keep-alive timer late on a loaded host may push the last past the tool's answer.
    const pings = got.slice(started, answered).filter((block) => block === SSE_PING).length;
    expect(pings).toBeGreaterThanOrEqual(Math.floor(quietMs / PING_MS) - 1);
  });

  it("with keep-alives in it, has the events and ids the log replays (keep-alives are not in the log)", async () => {
    const s = await slowToolTurn("ping_replay", 2500);
    const got = await blocks(await post(s));
    expect(got).toContain(SSE_PING);
    const replay = await api(`/v1/sessions/${s.session}/stream?after=0`, { key: s.key });
    expect(got.flatMap((block) => sseEvent(block) ?? [])).toEqual(await sseFrames(replay));
  });

  it("with keep-alives in it, ends with [DONE], no keep-alive after it", async () => {
    const s = await slowToolTurn("ping_done", 2500);
    const got = await blocks(await post(s));
    expect(got).toContain(SSE_PING);
    expect(sseEvent(got.at(-1) ?? "")?.data).toBe("[DONE]");
  });
});

describe("clients that hang up while a turn is quiet", () => {
  it("do not push the turn's own reader out of the object's stream places", async () => {
    // The tool's call is held until the clients below have come and gone: the turn is quiet all that time.
    const hold = uid("ping_cap");
    const s = await checkTurn("ping_cap", heldToolUrl(hold));
    const reader = ((await post(s)).body as ReadableStream<Uint8Array>).getReader();
    let head = "";
    while (!head.includes('"type":"tool-input-available"')) {
      const r = await reader.read();
      if (r.done) throw new Error(`the turn's stream ended before its tool call: ${head}`);
      head += decoder.decode(r.value, { stream: true });
    }
    const rest = readRest(reader);
    // The tool runs: MAX_SUBSCRIBERS clients each open the turn's stream, read its replay and hang up.
    for (let i = 0; i < MAX_SUBSCRIBERS; i++) {
      const other = (
        (await api(`/v1/sessions/${s.session}/stream`, { key: s.key })).body as ReadableStream<Uint8Array>
      ).getReader();
      await other.read();
      await other.cancel();
    }
    await releaseTool(hold);
    const text = await rest;
    expect(text).not.toBe("dropped");
    const said = text
      .split("\n\n")
      .flatMap((block) => sseEvent(block) ?? [])
      .filter((e) => e.data.includes('"type":"text-delta"'))
      .map((e) => (JSON.parse(e.data) as { delta: string }).delta);
    expect(said.join("")).toBe("all done");
    expect(text).toMatch(/data: \[DONE\]\n\n$/);
  });
});
