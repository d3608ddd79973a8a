// docs/API.md names every session event type GET /v1/sessions/{id}/events can return (SessionEventType).
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = new URL("../../../", import.meta.url).pathname;

/** The members of the SessionEventType union, read from its source (a type has no runtime list). */
function eventTypes(): string[] {
  const source = readFileSync(path.join(root, "src", "observability", "event-log.ts"), "utf8");
  const start = source.indexOf("export type SessionEventType =");
  const union = source.slice(start, source.indexOf(";", start));
  return [...union.matchAll(/"([a-z_]+)"/g)].map((m) => m[1] as string);
}

describe("docs/API.md's session events", () => {
  it("names every event type the event log records", () => {
    const doc = readFileSync(path.join(root, "docs", "API.md"), "utf8");
    const start = doc.indexOf("`GET /v1/sessions/{id}/events");
    const section = doc.slice(start, doc.indexOf("\n## ", start));
    const types = eventTypes();
    expect(types.length).toBeGreaterThan(20);
    expect(types.filter((t) => !section.includes(`\`${t}\``))).toEqual([]);
  });
});
