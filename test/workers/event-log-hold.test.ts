// EventLog.hold/release: the admission path holds its events' log lines until the provider's answer is on its way
// (or its request has returned); the rows are written at once and the lines come out unchanged, in order.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { EventLog } from "../../src/observability/event-log";
import { patch, recordStream, restorePatches, script, send, sessionStub, setup } from "./helpers";

afterEach(() => {
  vi.restoreAllMocks();
  restorePatches();
});

const lineEvents = (spy: { mock: { calls: unknown[][] } }) =>
  spy.mock.calls.map((c) => JSON.parse(String(c[0])) as { msg: string; turn_id: string | null; session: string });

describe("event log lines held during admission", () => {
  it("held lines wait for release while their rows are written at once", async () => {
    const heldSetup = await setup();
    await runInDurableObject(await sessionStub(heldSetup), (_i, state) => {
      const heldLog = new EventLog(state.storage.sql, () => "held-session", true);
      const before = state.storage.sql.exec("SELECT count(*) AS n FROM events").one().n as number;
      const heldSpy = vi.spyOn(console, "log").mockImplementation(() => {});
      heldLog.hold();
      heldLog.record("turn_started", "turn_held", { kind: "message" });
      heldLog.record("tool_result_synthesized", "turn_held", { tool_use_ids: ["toolu_1"] });
      expect(heldSpy).not.toHaveBeenCalled();
      expect(state.storage.sql.exec("SELECT count(*) AS n FROM events").one().n).toBe(before + 2);
      heldLog.release();
      expect(lineEvents(heldSpy).map((l) => [l.msg, l.turn_id, l.session])).toEqual([
        ["turn_started", "turn_held", "held-session"],
        ["tool_result_synthesized", "turn_held", "held-session"],
      ]);
    });
  });

  it("without hold a line goes out when its event is recorded", async () => {
    const directSetup = await setup();
    await runInDurableObject(await sessionStub(directSetup), (_i, state) => {
      const directLog = new EventLog(state.storage.sql, () => "direct-session", true);
      const directSpy = vi.spyOn(console, "log").mockImplementation(() => {});
      directLog.release();
      directLog.record("turn_finished", "turn_direct", { status: "completed" });
      expect(lineEvents(directSpy).map((l) => l.msg)).toEqual(["turn_finished"]);
    });
  });
});

describe("a turn's admission lines", () => {
  it("are out once the first provider request has returned, though its step streamed no delta", async () => {
    const s = await setup({
      tools: [
        {
          name: "ping",
          description: "Takes no arguments",
          input_schema: { type: "object" },
          execution: { type: "http", url: `${env.MOCK_URL}/_tool` },
        },
      ],
    });
    // This suite writes no event lines (SWITCHBOARD_LOG_EVENTS=false): whether the log holds them is what is seen.
    let holding = false;
    const { hold, release, record } = EventLog.prototype;
    patch(EventLog.prototype, "hold", function (this: EventLog) {
      holding = true;
      hold.call(this);
    });
    patch(EventLog.prototype, "release", function (this: EventLog) {
      holding = false;
      release.call(this);
    });
    // Whether lines were still held when the step's tool call was recorded as executed (before the second step).
    let heldAtTool: boolean | null = null;
    patch(EventLog.prototype, "record", function (this: EventLog, type, turnId, data) {
      if (type === "tool_executed") heldAtTool ??= holding;
      return record.call(this, type, turnId, data);
    });
    // An argument-less call as providers stream it: its one input delta is empty, so the step streams no delta.
    const recorded = await recordStream("anthropic", {
      tool_calls: [{ id: "toolu_hold_ping", name: "ping", input: {} }],
    });
    const body = recorded.replaceAll('"partial_json":"{}"', '"partial_json":""');
    expect(body).not.toBe(recorded);
    await script(s.model, [{ raw: body, content_type: "text/event-stream" }, { reply: { text: "Pong." } }]);
    expect((await send(s, { content: "ping it" })).body.status).toBe("completed");
    expect(heldAtTool).toBe(false);
  });
});
