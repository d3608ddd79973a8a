// The compaction preamble (records.ts preambleOf): what the model reads in place of the summarised history.
import { describe, expect, it } from "vitest";
import type { Message } from "../../../../src/model/message";
import {
  CARRIED_NOTE,
  type CompactionRecord,
  EARLIER_REQUEST_NOTE,
  preambleOf,
} from "../../../../src/session/compaction/records";
import { utf8Bytes } from "../../../../src/storage/fit";
import { NOTICE_NAMES_BUDGET_BYTES } from "../../../../src/storage/limits";

const record = (dropped: string[]): CompactionRecord => ({
  id: 1,
  boundary_seq: 10,
  summary: "What happened so far.",
  tokens_before: 9000,
  tokens_after: 1000,
  tools: { kept: [], dropped, baseline: null, declarations: [] },
  native: false,
  turn_id: null,
  carried_seq: null,
  created_at: "",
});

const removedLine = (rec: CompactionRecord): string => {
  const part = preambleOf(rec).parts.find((p) => p.type === "text" && p.text.startsWith("<tools_removed>"));
  return part?.type === "text" ? part.text : "";
};

describe("preambleOf", () => {
  it("names every tool the compaction unloaded when they fit", () => {
    expect(removedLine(record(["alpha", "beta"]))).toMatch(/^<tools_removed>alpha, beta<\/tools_removed>\n/);
  });

  it("names as many unloaded tools as the notice budget holds and counts the rest, as every request carries it", () => {
    const dropped = Array.from({ length: 5000 }, (_, i) => `tool_${String(i).padStart(4, "0")}_${"x".repeat(50)}`);
    const line = removedLine(record(dropped));
    expect(utf8Bytes(line)).toBeLessThan(NOTICE_NAMES_BUDGET_BYTES);
    expect(line).toContain(dropped[0]);
    expect(line).toMatch(/\.\.\.and \d+ more<\/tools_removed>/);
  });

  const request: Message = {
    seq: 7,
    role: "user",
    origin: "client",
    turn_id: "turn_1",
    parts: [
      { type: "tool_result", tool_use_id: "call_1", content: "an earlier turn's result", is_error: false },
      { type: "notice", kind: "tools_changed", text: "<tools_added>x</tools_added>", added: ["x"] },
      { type: "text", text: "echo 25 cities, one per step" },
    ],
    created_at: "",
  };

  it("ends with the request a cut inside a turn carries: the user's own parts verbatim, without results or notices", () => {
    const parts = preambleOf({ ...record([]), carried_seq: 7 }, { message: request, current: true }).parts;
    expect(parts.slice(-2)).toEqual([
      { type: "text", text: CARRIED_NOTE },
      { type: "text", text: "echo 25 cities, one per step" },
    ]);
    expect(parts.filter((p) => p.type === "tool_result" || p.type === "notice")).toEqual([]);
  });

  it("introduces a carried request the user has written after as an earlier one, still verbatim", () => {
    const parts = preambleOf({ ...record([]), carried_seq: 7 }, { message: request, current: false }).parts;
    expect(parts.slice(-2)).toEqual([
      { type: "text", text: EARLIER_REQUEST_NOTE },
      { type: "text", text: "echo 25 cities, one per step" },
    ]);
    expect(JSON.stringify(parts)).not.toContain("still working on");
  });
});
