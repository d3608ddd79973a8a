// Storage under the platform's 2 MB limit for strings and rows (src/storage/limits.ts), the debug
// check that makes local runs refuse what production refuses, and recovery that never bricks the object.
import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { EventLog } from "../../src/observability/event-log";
import { EVENT_BUDGET_BYTES, MAX_CELL_BYTES, RESULT_BUDGET_BYTES } from "../../src/storage/limits";
import { write } from "../../src/storage/sql";
import {
  ADMIN,
  api,
  apiJson,
  events,
  history,
  mockRequests,
  pairingProblems,
  type Setup,
  script,
  selectCalls,
  send,
  sessionStub,
  setup,
  sseFrames,
  wideTools,
} from "./helpers";

const sizedTool = (name: string, bytes: number) => ({
  name,
  description: `returns ${bytes} bytes`,
  input_schema: { type: "object", properties: { q: { type: "string" } } },
  execution: { type: "http", url: `${env.MOCK_URL}/_tool?bytes=${bytes}` },
});

/** The largest value (bytes) of every column that can grow. */
async function largestCells(s: Setup): Promise<Record<string, number>> {
  const cells: Array<[string, string]> = [
    ["messages", "parts"],
    ["tool_calls", "result"],
    ["stream_log", "chunk"],
    ["events", "data"],
    ["turns", "error"],
    ["runs", "result"],
  ];
  return runInDurableObject(await sessionStub(s), (_i, state) =>
    Object.fromEntries(
      cells.map(([table, column]) => [
        `${table}.${column}`,
        state.storage.sql
          .exec<{ n: number | null }>(`SELECT max(length(CAST(${column} AS BLOB))) AS n FROM ${table}`)
          .one().n ?? 0,
      ]),
    ),
  );
}

function overLimit(cells: Record<string, number>): string[] {
  return Object.entries(cells)
    .filter(([, n]) => n > MAX_CELL_BYTES)
    .map(([k, n]) => `${k}: ${n}`);
}

describe("tool results under the row limit", () => {
  it.each(["anthropic", "openai"] as const)(
    "16 parallel calls of 300 KB each complete; the model sees every result cut with its original size (%s)",
    async (provider) => {
      const s = await setup({ tools: [sizedTool("big", 300_000)] }, provider);
      const calls = Array.from({ length: 16 }, (_, i) => ({ id: `call_big_${i}`, name: "big", input: { q: `${i}` } }));
      await script(s.model, [{ reply: { tool_calls: calls } }, { reply: { text: "Read them all." } }]);
      const res = await send(s, { content: "fetch everything" });
      expect(res.body.status).toBe("completed");
      expect(overLimit(await largestCells(s))).toEqual([]);
      const msgs = await history(s);
      expect(pairingProblems(msgs)).toEqual([]);
      const requests = await mockRequests(s.model);
      expect(requests.filter((r) => r.rejected)).toEqual([]);
      const second = JSON.stringify(requests[1]?.body);
      expect(second.match(/\[truncated: original 300000 bytes\]/g)?.length).toBe(16);
    },
  );

  // An http tool stops reading past 1 MiB (src/tools/http-tool.ts), so a 3 MB answer is cut there, with a marker
  // that says reading stopped; what is stored and streamed stays within the per-result budget.
  it("a single 3 MB result is stored and streamed cut, with a marker that says so", async () => {
    const s = await setup({ tools: [sizedTool("huge", 3_000_000)] });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_huge", name: "huge", input: {} }] } },
      { reply: { text: "Too much." } },
    ]);
    expect((await send(s, { content: "go" })).body.status).toBe("completed");
    expect(overLimit(await largestCells(s))).toEqual([]);
    const result = (await history(s))[2]?.parts[0];
    expect(result).toMatchObject({ type: "tool_result", tool_use_id: "toolu_huge", is_error: false });
    const content = String(result?.content);
    expect(content).toMatch(/\n\[truncated: the response was larger than 1048576 bytes; reading stopped there\]$/);
    expect(new TextEncoder().encode(JSON.stringify(content)).byteLength).toBeLessThanOrEqual(RESULT_BUDGET_BYTES);
    const frames = await sseFrames(await api(`/v1/sessions/${s.session}/stream?after=0`, { key: s.key }));
    const output = frames.find((f) => f.data.includes('"tool-output-available"'));
    expect(output?.data).toContain("reading stopped there]");
  });
});

describe("tool declarations under the row limit", () => {
  it("one step loading more schemas than a message row holds (message-level): those that do not fit are unloaded, and the session goes on", async () => {
    const s = await setup({}, "openai");
    // Message-level: history's declarations are where this model reads a loaded tool's schema.
    const put = await apiJson(`/v1/agents/${s.agent}`, {
      method: "PUT",
      key: ADMIN,
      json: {
        model: { provider: "openai", name: s.model, capabilities: { message_level_tools: true } },
        tools: wideTools("wide", 120),
      },
    });
    expect(put.status).toBe(200);
    // Six parallel select_tools calls of 20 names: 120 declarations, ~2.4 MB.
    const calls = selectCalls(
      "toolu_sel",
      Array.from({ length: 120 }, (_, i) => `wide_${i}`),
    );
    await script(s.model, [{ reply: { tool_calls: calls } }, { reply: { text: "Loaded." } }]);
    expect((await send(s, { content: "load everything" })).body.status).toBe("completed");
    // Every tool still loaded is declared in history; the rest were unloaded, with an event naming them.
    const declared = (await history(s)).flatMap((m) =>
      m.parts.flatMap((p) => (p.type === "tool_declarations" ? (p.tools as Array<{ name: string }>) : [])),
    );
    const state = await apiJson<{ loaded_tools: string[] }>(`/v1/sessions/${s.session}`, { key: s.key });
    expect(state.body.loaded_tools.length).toBeGreaterThan(0);
    expect([...state.body.loaded_tools].sort()).toEqual(declared.map((d) => d.name).sort());
    const unloaded = (await events(s)).filter((e) => e.type === "tools_unloaded");
    expect(unloaded.map((e) => e.data.reason)).toEqual(["row_limit"]);
    const names = (unloaded[0]?.data.names ?? []) as string[];
    expect([...names, ...state.body.loaded_tools].sort()).toEqual(
      wideTools("wide", 120)
        .map((t) => t.name)
        .sort(),
    );
    // The next turn runs (it compacts first: the declarations kept are ~450k tokens).
    await script(s.model, [{ reply: { text: "Still here." } }]);
    expect((await send(s, { content: "and now?" })).body.status).toBe("completed");
    expect(overLimit(await largestCells(s))).toEqual([]);
  });

  // Anthropic shows a loaded tool by its tool_reference, plain by tools[] (room for 120 here): neither sends
  // history's declarations, so a declaration the row could not hold takes nothing back from what select_tools loaded.
  it.each(["anthropic", "openai"] as const)(
    "one step loading more schemas than a message row holds keeps them all loaded outside the message-level projection (%s)",
    async (provider) => {
      const s = await setup({ tools: wideTools("kept", 120) }, provider);
      const names = Array.from({ length: 120 }, (_, i) => `kept_${i}`);
      await script(s.model, [
        { reply: { tool_calls: selectCalls("call_keep", names) } },
        { reply: { text: "Loaded." } },
      ]);
      expect((await send(s, { content: "load everything" })).body.status).toBe("completed");
      const state = await apiJson<{ loaded_tools: string[] }>(`/v1/sessions/${s.session}`, { key: s.key });
      expect([...state.body.loaded_tools].sort()).toEqual([...names].sort());
      expect((await events(s)).filter((e) => e.type === "tools_unloaded")).toEqual([]);
    },
  );
});

describe("tool-set notices under the row limit", () => {
  // 64-character names, the longest a tool can have; deferred, so the session keeps a tool-set baseline.
  const named = (prefix: string) =>
    Array.from({ length: 5000 }, (_, i) => ({
      name: `${prefix}_${i}_`.padEnd(64, "x"),
      input_schema: { type: "object" },
      defer: true,
      execution: { type: "client" },
    }));

  it("a message of 700 KB after every tool was renamed completes, its notice listing the first names", async () => {
    const s = await setup({ tools: named("before") });
    await script(s.model, [{ reply: { text: "Hello." } }, { reply: { text: "Read it." } }]);
    expect((await send(s, { content: "hi" })).body.status).toBe("completed");
    const put = await apiJson(`/v1/agents/${s.agent}`, {
      method: "PUT",
      key: ADMIN,
      json: { model: { provider: "anthropic", name: s.model }, tools: named("after") },
    });
    expect(put.status).toBe(200);
    const content = Array.from({ length: 4 }, () => ({ type: "text", text: "w".repeat(175_000) }));
    const res = await send(s, { content });
    expect(res.body.status).toBe("completed");
    const notice = (await history(s)).flatMap((m) => m.parts).find((p) => p.kind === "tools_changed");
    expect(notice?.text).toMatch(/\.\.\.and \d+ more \(tool_search finds them\)<\/tools_added>/);
    expect(overLimit(await largestCells(s))).toEqual([]);
  });
});

describe("what a row could not hold is refused before anything changes", () => {
  it("a message whose own parts exceed the budget is refused with 413 message_too_large", async () => {
    const s = await setup();
    const content = Array.from({ length: 6 }, () => ({ type: "text", text: "w".repeat(200_000) }));
    const res = await apiJson<{ error: { code: string } }>(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content },
    });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe("message_too_large");
    expect(await history(s)).toEqual([]);
    expect(await mockRequests(s.model)).toEqual([]);
  });

  it("a json_schema over the budget is refused with 413 schema_too_large", async () => {
    const s = await setup();
    const json_schema = { type: "object", description: "d".repeat(1_100_000), properties: {} };
    const res = await apiJson<{ error: { code: string } }>(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "answer in JSON", json_schema },
    });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe("schema_too_large");
    expect(await history(s)).toEqual([]);
  });

  it("a json_schema over the budget is refused with 413 before it is compiled, so one that would not compile too", async () => {
    const s = await setup();
    // An unknown keyword fails strict compilation (422): the size decides first.
    const json_schema = { type: "object", properties: {}, x_unknown: "d".repeat(1_100_000) };
    const res = await apiJson<{ error: { code: string } }>(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "answer in JSON", json_schema },
    });
    expect([res.status, res.body.error.code]).toEqual([413, "schema_too_large"]);
    expect(await history(s)).toEqual([]);
  });
});

describe("stream log and events under the row limit", () => {
  it("a 3 MB model text streams whole over several rows; history keeps it cut with its original size", async () => {
    const s = await setup();
    const text = "x".repeat(3_000_000);
    await script(s.model, [{ reply: { text } }]);
    expect((await send(s, { content: "say a lot" })).body.status).toBe("completed");
    expect(overLimit(await largestCells(s))).toEqual([]);
    const frames = await sseFrames(await api(`/v1/sessions/${s.session}/stream?after=0`, { key: s.key }));
    const streamed = frames
      .filter((f) => f.data.startsWith("{"))
      .map((f) => JSON.parse(f.data) as { type: string; delta?: string })
      .filter((c) => c.type === "text-delta")
      .map((c) => c.delta)
      .join("");
    expect(streamed).toBe(text);
    const reply = (await history(s))[1]?.parts[0];
    expect(String(reply?.text)).toMatch(/\n\[truncated: original 3000000 bytes\]$/);
  });

  it("an event with a 3 MB string is stored with the string cut", async () => {
    const s = await setup();
    await runInDurableObject(await sessionStub(s), (_i, state) => {
      new EventLog(state.storage.sql, () => s.session, false).record("stream_error", null, {
        code: "provider_error",
        message: "y".repeat(3_000_000),
      });
    });
    expect(overLimit(await largestCells(s))).toEqual([]);
    const ev = (await events(s)).find((e) => e.type === "stream_error");
    expect(ev?.data.code).toBe("provider_error");
    expect(String(ev?.data.message)).toMatch(/\n\[truncated: original 3000000 bytes\]$/);
  });

  it("an event listing 5,000 tool names keeps its fields and the first names, saying how many were left out", async () => {
    const s = await setup();
    const names = Array.from({ length: 5000 }, (_, i) => `tool_${i}_`.padEnd(64, "x"));
    await runInDurableObject(await sessionStub(s), (_i, state) => {
      new EventLog(state.storage.sql, () => s.session, false).record("tools_unloaded", null, {
        names,
        reason: "row_limit",
      });
    });
    const ev = (await events(s)).find((e) => e.type === "tools_unloaded");
    expect(ev?.data.reason).toBe("row_limit");
    const kept = ev?.data.names as string[];
    expect(kept.length).toBeGreaterThan(0);
    expect(kept).toEqual(names.slice(0, kept.length));
    expect(ev?.data.names_omitted).toBe(5000 - kept.length);
    expect(JSON.stringify(ev?.data).length).toBeLessThanOrEqual(EVENT_BUDGET_BYTES);
  });
});

describe("debug cell-size check", () => {
  it("refuses a bound string over 2,000,000 bytes with a clear error", async () => {
    const s = await setup();
    await api(`/v1/sessions/${s.session}`, { key: s.key }); // the object exists and has set the check
    const error = await runInDurableObject(await sessionStub(s), (_i, state) => {
      try {
        write(state.storage.sql, "INSERT INTO meta (key, value) VALUES ('big', ?)", "z".repeat(MAX_CELL_BYTES + 1));
        return null;
      } catch (e) {
        return (e as Error).message;
      }
    });
    expect(error).toMatch(/^cell_too_large: parameter 1 is 2000001 bytes/);
  });

  it("refuses a write whose values together exceed 2,000,000 bytes", async () => {
    const s = await setup();
    await api(`/v1/sessions/${s.session}`, { key: s.key });
    const error = await runInDurableObject(await sessionStub(s), (_i, state) => {
      try {
        const half = "h".repeat(1_100_000);
        write(state.storage.sql, "INSERT INTO events (type, at, turn_id, data) VALUES ('x', ?, NULL, ?)", half, half);
        return null;
      } catch (e) {
        return (e as Error).message;
      }
    });
    expect(error).toMatch(/^row_too_large: the bound values of this write are 2200000 bytes/);
  });
});

/** Writes a turn cut off mid-tool-phase whose one finished result no longer reads as JSON. */
async function corruptRunningTurn(s: Setup): Promise<void> {
  await api(`/v1/sessions/${s.session}`, { key: s.key });
  await runInDurableObject(await sessionStub(s), (_i, state) => {
    const sql = state.storage.sql;
    const at = new Date().toISOString();
    sql.exec(
      `INSERT INTO turns (id, ord, status, kind, max_steps, log_start, segment_start, started_at)
       VALUES ('turn_corrupt', 1, 'running', 'message', 10, 0, 0, ?)`,
      at,
    );
    sql.exec(
      "INSERT INTO messages (role, origin, turn_id, parts, created_at) VALUES ('user', 'client', 'turn_corrupt', ?, ?)",
      JSON.stringify([{ type: "text", text: "go" }]),
      at,
    );
    const seq = sql
      .exec<{ seq: number }>(
        "INSERT INTO messages (role, origin, turn_id, parts, created_at) VALUES ('assistant', 'model', 'turn_corrupt', ?, ?) RETURNING seq",
        JSON.stringify([{ type: "tool_use", id: "toolu_corrupt", name: "lookup", input: {} }]),
        at,
      )
      .one().seq;
    sql.exec(
      `INSERT INTO tool_calls (id, message_seq, idx, turn_id, name, execution, state, result, created_at, updated_at)
       VALUES ('toolu_corrupt', ?, 0, 'turn_corrupt', 'lookup', 'http', 'resolved', '{not json', ?, ?)`,
      seq,
      at,
      at,
    );
  });
  // A crash: the next request builds a new instance, whose recovery meets the unreadable result.
  await abortAllDurableObjects();
}

describe("recovery never bricks the object", () => {
  it("a turn whose stored result cannot be read is marked interrupted, and the session keeps serving", async () => {
    const s = await setup();
    await corruptRunningTurn(s);
    const state = await apiJson<{ last_turn: { status: string; error: { code: string } }; pending_tool_calls: [] }>(
      `/v1/sessions/${s.session}`,
      { key: s.key },
    );
    expect(state.status).toBe(200);
    expect(state.body.last_turn).toMatchObject({ status: "interrupted", error: { code: "recovery_failed" } });
    expect(state.body.pending_tool_calls).toEqual([]);
    const failed = (await events(s)).find((e) => e.type === "recovery_failed");
    expect(failed?.data.synthesized_tool_use_ids).toEqual(["toolu_corrupt"]);
    await script(s.model, [{ reply: { text: "Back again." } }]);
    expect((await send(s, { content: "still there?" })).body.status).toBe("completed");
    expect(pairingProblems(await history(s))).toEqual([]);
    expect((await mockRequests(s.model)).filter((r) => r.rejected)).toEqual([]);
  });

  it("clear and DELETE work after a recovery failure", async () => {
    const s = await setup();
    await corruptRunningTurn(s);
    const cleared = await apiJson(`/v1/sessions/${s.session}/clear`, { method: "POST", key: s.key });
    expect(cleared.status).toBe(200);
    expect(await history(s)).toEqual([]);
    const deleted = await apiJson(`/v1/sessions/${s.session}`, { method: "DELETE", key: s.key });
    expect(deleted.status).toBe(200);
  });

  it("clear rebuilds an object whose migrations fail, keeping the session", async () => {
    const s = await setup();
    await api(`/v1/sessions/${s.session}`, { key: s.key });
    // Re-running the first migration over existing tables fails inside the constructor.
    await runInDurableObject(await sessionStub(s), (_i, state) => {
      state.storage.sql.exec("UPDATE meta SET value = '0' WHERE key = 'schema_version'");
    });
    await abortAllDurableObjects();
    expect((await apiJson(`/v1/sessions/${s.session}`, { key: s.key })).status).toBe(500);
    const cleared = await apiJson(`/v1/sessions/${s.session}/clear`, { method: "POST", key: s.key });
    expect(cleared.status).toBe(200);
    await script(s.model, [{ reply: { text: "Fresh." } }]);
    expect((await send(s, { content: "hello again" })).body.status).toBe("completed");
  });

  it("DELETE works on an object whose migrations fail", async () => {
    const s = await setup();
    await api(`/v1/sessions/${s.session}`, { key: s.key });
    await runInDurableObject(await sessionStub(s), (_i, state) => {
      state.storage.sql.exec("UPDATE meta SET value = '0' WHERE key = 'schema_version'");
    });
    await abortAllDurableObjects();
    const deleted = await apiJson(`/v1/sessions/${s.session}`, { method: "DELETE", key: s.key });
    expect(deleted.status).toBe(200);
    expect((await apiJson(`/v1/sessions/${s.session}`, { key: s.key })).status).toBe(404);
  });
});
