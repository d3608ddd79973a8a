/**
 * The scheduler remembers the earliest due job between `arm` calls (src/session/scheduler.ts): whatever writes
 * the jobs table, the alarm it sets must be the one a fresh read of the table asks for. Due times are an hour or
 * more ahead, so the session's own alarm handler never runs during a test.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { addJob, removeJob, Scheduler } from "../../../src/session/scheduler";
import { rollsBack, sessionStores, sessionStub, setup } from "../helpers";

const HOUR = 3_600_000;

describe("the scheduler's remembered due time", () => {
  it("a job added after the alarm was armed moves the alarm earlier", async () => {
    const stub = await sessionStub(await setup());
    const { first, second } = await runInDurableObject(stub, async (_i, state) => {
      const scheduler = new Scheduler(state.storage, () => false);
      const now = Date.now();
      scheduler.add("sweep", "scheduler-a", now + 3 * HOUR);
      scheduler.arm();
      const first = (await state.storage.getAlarm()) ?? 0;
      addJob(state.storage.sql, "sweep", "scheduler-b", now + 2 * HOUR);
      scheduler.arm();
      const second = (await state.storage.getAlarm()) ?? 0;
      await state.storage.deleteAlarm();
      return { first: first - now, second: second - now };
    });
    expect(first).toBe(3 * HOUR);
    expect(second).toBe(2 * HOUR);
  });

  it("a removal read back inside a rolled-back transaction leaves the job scheduled", async () => {
    const stub = await sessionStub(await setup());
    const alarm = await runInDurableObject(stub, async (_i, state) => {
      const stores = sessionStores(state.storage);
      const scheduler = new Scheduler(state.storage, () => false);
      const now = Date.now();
      scheduler.add("sweep", "scheduler-c", now + 4 * HOUR);
      rollsBack(stores, () => {
        removeJob(state.storage.sql, "sweep", "scheduler-c");
        expect(scheduler.next(now)).not.toBe(now + 4 * HOUR);
      });
      scheduler.arm();
      const alarm = (await state.storage.getAlarm()) ?? 0;
      await state.storage.deleteAlarm();
      return alarm - now;
    });
    expect(alarm).toBe(4 * HOUR);
  });
});
