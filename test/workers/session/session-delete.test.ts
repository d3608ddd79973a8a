// The end of a session's storage (src/session/session-delete.ts) and the client streams open at that moment: a
// replay of a turn that is still paging when the session is deleted, or expires idle, ends there (the client sees
// its stream end, and a resume gets 404), where it stayed open forever, sent keep-alives and never its end. The
// rebuild of a broken object (its POST /clear) keeps the session, and its frame ids go on above those it handed out;
// it schedules the session's sweep (a rebuilt session left idle still expires), fails the runs it wiped with their
// callbacks, and refuses a session whose own record cannot be read, changing nothing.
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { api, apiJson, type Setup, script, send, sessionStub, setup, sseFrames, uid } from "../helpers";
import { ageEverything, sql, sweep } from "../retention-helpers";
import { deliveries, runSetup, runStub, sessionWithQueuedRuns, waitRun } from "../runs-helpers";

const PING_MS = Number(env.SWITCHBOARD_STREAM_PING_MS);

/** A session whose one turn answered 2 MB of text: its stream log holds several rows, a replay several pages. */
async function longTurn(): Promise<Setup> {
  const s = await setup();
  await script(s.model, [{ reply: { text: "x".repeat(2_000_000) } }]);
  expect((await send(s, { content: "say a lot" })).body.status).toBe("completed");
  return s;
}

/** A replay of the session's turn from its start, its first write read (more pages are left to read). */
async function replayStarted(s: Setup): Promise<ReadableStreamDefaultReader<Uint8Array>> {
  const res = await api(`/v1/sessions/${s.session}/stream`, { key: s.key, headers: { "last-event-id": "0" } });
  expect(res.status).toBe(200);
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  expect((await reader.read()).done).toBe(false);
  return reader;
}

/**
 * How the rest of a stream goes: "ended" (with [DONE] in it), "cut" (ended without [DONE]), "errored", or "still
 * open" once it has been sent two keep-alives (each after PING_MS with nothing sent): the stream outlived the end of
 * what it was replaying by about 2 × PING_MS and goes on being kept alive.
 */
async function restOf(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  let pings = 0;
  try {
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      const chunk = decoder.decode(r.value, { stream: true });
      text += chunk;
      pings += chunk.split(": ping").length - 1;
      if (pings >= 2) {
        await reader.cancel();
        return `still open (${PING_MS} ms keep-alives)`;
      }
    }
  } catch {
    return "errored";
  }
  return text.includes("[DONE]") ? "ended" : "cut";
}

describe("a replay open when its session is deleted", () => {
  it("ends with an error, not kept open with keep-alives, and a resume afterwards is 404", async () => {
    const s = await longTurn();
    const reader = await replayStarted(s);
    expect((await apiJson(`/v1/sessions/${s.session}`, { method: "DELETE", key: s.key })).status).toBe(200);
    expect(await restOf(reader)).toBe("errored");
    const resumed = await api(`/v1/sessions/${s.session}/stream`, { key: s.key, headers: { "last-event-id": "0" } });
    expect(resumed.status).toBe(404);
    await resumed.body?.cancel();
  });
});

describe("a replay open when its session expires idle", () => {
  it("ends with an error, not kept open with keep-alives", async () => {
    const s = await longTurn();
    const reader = await replayStarted(s);
    await ageEverything(s);
    await sweep(s);
    expect(await restOf(reader)).toBe("errored");
  });
});

/** A text turn's streamed answer: the ids of its frames. */
async function streamedIds(s: Setup, text: string): Promise<number[]> {
  await script(s.model, [{ reply: { text } }]);
  const res = await api(`/v1/sessions/${s.session}/messages`, { method: "POST", key: s.key, json: { content: "go" } });
  expect(res.status).toBe(200);
  return (await sseFrames(res)).map((f) => f.id as number);
}

/**
 * A schema its start cannot bring up (migration 1 again over its tables): the object wakes up broken. `session`, when
 * given, is written as its `meta.session` first. Every stub is aborted with the objects: ask for a new one after.
 */
async function breakObject(stub: DurableObjectStub, session?: string): Promise<void> {
  await runInDurableObject(stub, (_i, state) => {
    state.storage.sql.exec("UPDATE meta SET value = '0' WHERE key = 'schema_version'");
    if (session !== undefined) state.storage.sql.exec("UPDATE meta SET value = ? WHERE key = 'session'", session);
  });
  await abortAllDurableObjects();
}

const clear = (s: { session: string; key: string }) =>
  apiJson<{ error: { code: string; message: string } }>(`/v1/sessions/${s.session}/clear`, {
    method: "POST",
    key: s.key,
  });

/** The session's index row in D1, or null. */
async function indexRow(s: Setup): Promise<Record<string, unknown> | null> {
  return env.DB.prepare("SELECT * FROM sessions WHERE id = ?").bind(s.session).first();
}

/** Everything the object holds: each table's rows, its key-value entries and its alarm. */
async function contents(stub: DurableObjectStub): Promise<Record<string, unknown>> {
  return runInDurableObject(stub, async (_i, state) => {
    const tables = state.storage.sql
      .exec<{ name: string }>(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' ORDER BY name",
      )
      .toArray()
      .map((t) => t.name);
    const rows = Object.fromEntries(tables.map((t) => [t, state.storage.sql.exec(`SELECT * FROM "${t}"`).toArray()]));
    return { rows, kv: Object.fromEntries(await state.storage.list()), alarm: await state.storage.getAlarm() };
  });
}

describe("the rebuild of a broken session (POST /clear)", () => {
  it("numbers the next turn's frames above the ids handed out before it", async () => {
    const s = await setup();
    const before = await streamedIds(s, "first answer");
    await breakObject(await sessionStub(s));
    expect((await send(s, { content: "hello?" })).status).toBe(500);
    expect((await apiJson(`/v1/sessions/${s.session}/clear`, { method: "POST", key: s.key })).status).toBe(200);

    const after = await streamedIds(s, "second answer");
    expect(after[0]).toBeGreaterThan(Math.max(...before));
  });
});

describe("a rebuilt session's retention (POST /clear of a broken session)", () => {
  it("has its sweep job and its alarm, as a created session has", async () => {
    const s = await setup();
    await breakObject(await sessionStub(s));
    expect((await clear(s)).status).toBe(200);
    expect(await sql(s, "SELECT id FROM jobs WHERE id = 'sweep:retention'")).toEqual([{ id: "sweep:retention" }]);
    expect(await runInDurableObject(await sessionStub(s), (_i, state) => state.storage.getAlarm())).not.toBeNull();
  });

  it("expires once idle past the retention: its alarm deletes it and its index row", async () => {
    const s = await setup();
    await breakObject(await sessionStub(s));
    expect((await clear(s)).status).toBe(200);
    const stub = await sessionStub(s);
    await ageEverything(s);
    // The clock reaching the job the rebuild scheduled (moved, never inserted here), then its alarm.
    await sql(s, "UPDATE jobs SET due_at = 0 WHERE id = 'sweep:retention'");
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect((await apiJson(`/v1/sessions/${s.session}`, { key: s.key })).status).toBe(404);
    expect(await indexRow(s)).toBeNull();
  });
});

describe("a run open in a broken session when POST /clear rebuilds it", () => {
  it("fails with session_rebuilt and sends its callback, where it vanished and GET answered 404", async () => {
    const s = await runSetup();
    const run = uid("run");
    const hook = uid("cb-rebuilt");
    const session = await sessionWithQueuedRuns(s, [run]);
    await runInDurableObject(runStub(s, session), (_i, state) => {
      state.storage.sql.exec(
        "UPDATE runs SET callback_url = ?, callback_status = 'pending' WHERE id = ?",
        `${env.MOCK_URL}/_callback/${hook}`,
        run,
      );
    });
    // Its D1 record, as an accepted run's: GET /v1/runs/{id} reads it, then asks the session.
    const now = new Date().toISOString();
    await env.DB.prepare(
      `INSERT INTO runs (id, tenant, agent, session_id, body_hash, auth, request, created_at, accepted_at)
       VALUES (?, ?, ?, ?, 'h', 'key', '{"input":[]}', ?, ?)`,
    )
      .bind(run, s.tenant, s.agent, session, now, now)
      .run();
    await breakObject(runStub(s, session));
    expect((await clear({ session, key: s.key })).status).toBe(200);

    const failed = await waitRun(s, run, (r) => r.callback?.status === "delivered");
    expect([failed.status, failed.error?.code]).toEqual(["failed", "session_rebuilt"]);
    const sent = await deliveries(hook);
    expect(sent.map((d) => JSON.parse(d.body) as { type: string; data: { run_id: string } })).toMatchObject([
      { type: "run.failed", data: { run_id: run, error: { code: "session_rebuilt" } } },
    ]);
  });
});

describe("the rebuild of a broken session whose own record cannot be read", () => {
  it("is refused with session_unreadable, the object and its index row unchanged, a second time alike", async () => {
    const s = await setup();
    await breakObject(await sessionStub(s), "{not json");
    const stub = await sessionStub(s);
    const row = await indexRow(s);
    const held = await contents(stub);
    for (const attempt of [1, 2]) {
      const refused = await clear(s);
      expect([attempt, refused.status, refused.body.error.code]).toEqual([attempt, 500, "session_unreadable"]);
      expect(refused.body.error.message).toContain("DELETE");
      expect(await contents(stub)).toEqual(held);
      expect(await indexRow(s)).toEqual(row);
    }
  });

  it("leaves DELETE to remove it, index row and all", async () => {
    const s = await setup();
    await breakObject(await sessionStub(s), "{not json");
    const stub = await sessionStub(s);
    expect((await clear(s)).status).toBe(500);
    expect((await apiJson(`/v1/sessions/${s.session}`, { method: "DELETE", key: s.key })).status).toBe(200);
    expect(await indexRow(s)).toBeNull();
    const tables = await runInDurableObject(stub, (_i, state) =>
      state.storage.sql.exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'meta'").toArray(),
    );
    expect(tables).toEqual([]);
  });
});
