// The session's event log (src/observability/event-log.ts) as GET /events pages it: by count and by bytes, `next`
// leading through every event.
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { EventLog } from "../../../src/observability/event-log";
import { jsonBytes } from "../../../src/storage/fit";
import { EVENT_BUDGET_BYTES, PAGE_BUDGET_BYTES } from "../../../src/storage/limits";
import { apiJson, type Setup, seqPages, sessionStub, setup } from "../helpers";

/** Records `count` events through the log's own write path, each cut to its 64 KiB budget. */
async function recordLargeEvents(s: Setup, count: number): Promise<void> {
  const text = "e".repeat(EVENT_BUDGET_BYTES + 1_000);
  await runInDurableObject(await sessionStub(s), (_instance, state) => {
    const log = new EventLog(state.storage.sql, () => s.session, false);
    for (let i = 0; i < count; i++) log.record("stream_error", null, { message: text, index: i });
  });
}

interface EventsPage {
  events: Array<{ seq: number; data: unknown }>;
  next: number | null;
}

/** Bytes of the page's events as stored (their data's JSON), which the page budget counts. */
const storedBytes = (page: EventsPage) => page.events.reduce((n, e) => n + jsonBytes(e.data), 0);

describe("a page of GET /events over large events", () => {
  // 600 events hold ~39 MB: one page of all of them would be over the 32 MiB an RPC answer may be.
  it("answers 200 within the page budget, with a next", async () => {
    const s = await setup();
    await recordLargeEvents(s, 600);
    const res = await apiJson<EventsPage>(`/v1/sessions/${s.session}/events?limit=1000`, { key: s.key });
    expect(res.status).toBe(200);
    expect(res.body.events.length).toBeGreaterThan(0);
    expect(storedBytes(res.body)).toBeLessThanOrEqual(PAGE_BUDGET_BYTES);
    expect(res.body.next).toBe(res.body.events.at(-1)?.seq);
  });

  it("leads through every event once, in order, when its next is followed", async () => {
    const s = await setup();
    await recordLargeEvents(s, 600);
    const pages = await seqPages<EventsPage>(s, "events", 1000);
    expect(pages.map((p) => p.status)).toEqual(pages.map(() => 200));
    for (const p of pages) expect(storedBytes(p.body)).toBeLessThanOrEqual(PAGE_BUDGET_BYTES);
    const indexes = pages.flatMap((p) => p.body.events.map((e) => (e.data as { index?: number }).index));
    expect(indexes).toEqual(Array.from({ length: 600 }, (_, i) => i));
    expect(pages.length).toBeGreaterThan(1);
  });
});
