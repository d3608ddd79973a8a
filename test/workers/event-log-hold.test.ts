// EventLog.hold/release: the admission path holds its events' log lines until the provider request has left;
// the rows are written at once and the lines come out unchanged, in order.
import { runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { EventLog } from "../../src/observability/events";
import { sessionStub, setup } from "./helpers";

afterEach(() => vi.restoreAllMocks());

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
