// What a summary request reads (transcript.ts): a previous summary too long to carry, as transcript lines that no
// piece cuts, and a summary over its cap, cut with a note saying so.
import { describe, expect, it } from "vitest";
import { textTokens } from "../../../../src/session/compaction/estimate";
import {
  CAPPED_NOTE,
  capSummary,
  EARLIER_SUMMARY_HEADING,
  summaryLines,
  transcriptPieces,
} from "../../../../src/session/compaction/transcript";

describe("summaryLines", () => {
  it("gives transcriptPieces a previous summary it cuts nothing of, a line longer than a piece included", () => {
    const long = `- user: the long one ${"word ".repeat(2000)}end-of-long`;
    const summary = ["- user: first fact", "", long, "- user: last fact"].join("\n");
    const pieces = transcriptPieces(summaryLines(summary, 300), 300);
    expect(pieces.length).toBeGreaterThan(1);
    for (const piece of pieces) expect(textTokens(piece)).toBeLessThanOrEqual(300);
    const text = pieces.join("\n");
    expect(text.startsWith(EARLIER_SUMMARY_HEADING)).toBe(true);
    expect(text).not.toContain("more characters]");
    // The long line's parts are consecutive lines: joined, they are the line.
    expect(text.replaceAll("\n", "")).toContain(`- user: first fact${long}- user: last fact`);
  });
});

describe("capSummary", () => {
  it("keeps a summary within its cap whole", () => {
    expect(capSummary("- user: a fact", 100)).toBe("- user: a fact");
  });

  it("cuts a longer one to its head within the cap, ending with a note that it was cut", () => {
    const summary = Array.from({ length: 50 }, (_, i) => `- user: fact-${i}: ${"detail ".repeat(10)}`).join("\n");
    const capped = capSummary(summary, 200);
    expect(textTokens(capped)).toBeLessThanOrEqual(200);
    expect(capped.endsWith(`\n\n${CAPPED_NOTE}`)).toBe(true);
    expect(summary.startsWith(capped.slice(0, -CAPPED_NOTE.length).trimEnd())).toBe(true);
  });
});
