// What a summary request reads (transcript.ts): messages rendered as lines and lines grouped into pieces of one
// request each, with no text the user wrote left out; a tool call and its result named by the call's id, which the
// summary is asked to keep when a `$tool` reference can pass it; a previous summary too long to carry, as transcript
// lines that no piece cuts, and a summary over its cap, cut with a note saying so.
import { describe, expect, it } from "vitest";
import type { Message } from "../../../../src/model/message";
import { textTokens } from "../../../../src/session/compaction/estimate";
import {
  CAPPED_NOTE,
  capSummary,
  EARLIER_SUMMARY_HEADING,
  IDS_INSTRUCTION,
  LINE_CONTINUED,
  LINE_CONTINUES,
  NOT_PASSABLE,
  summaryLines,
  summaryPrompt,
  transcriptLines,
  transcriptPieces,
} from "../../../../src/session/compaction/transcript";

/** The lines again from `pieces`: joined as they were, each split line's marks taken out. */
function rejoin(pieces: readonly string[]): string {
  return pieces.join("\n").replaceAll(`${LINE_CONTINUES}\n${LINE_CONTINUED}`, "");
}

const REQUEST = "MY REQUEST: translate clause 7 into German.";

describe("transcriptPieces", () => {
  it("splits a line longer than a piece across consecutive pieces: without the marks they are the line", () => {
    const long = `User: ${"Clause text of the contract, read carefully. ".repeat(440)}${REQUEST}`;
    const lines = ["User: hello", "Assistant: Send the contract.", long, "Assistant: Noted."];
    const pieces = transcriptPieces(lines, 330);
    expect(pieces.length).toBeGreaterThan(10);
    expect(rejoin(pieces)).toBe(lines.join("\n"));
    expect(pieces.some((p) => p.includes(REQUEST))).toBe(true);
  });

  it("keeps every piece within its size, splitting text of any script without losing a character", () => {
    const lines = [
      `User: ${"契約第7条をドイツ語に翻訳してください。".repeat(120)}`,
      "Assistant: 了解しました。",
      `User: ${"🙂 emoji and words ".repeat(300)}`,
      `Result of lookup: ${"x".repeat(5000)}`,
      "User: short",
    ];
    for (const size of [50, 77, 120, 333, 1000]) {
      const pieces = transcriptPieces(lines, size);
      expect(rejoin(pieces)).toBe(lines.join("\n"));
      for (const piece of pieces) expect(textTokens(piece)).toBeLessThanOrEqual(size);
    }
  });
});

describe("transcriptLines", () => {
  const turn = (name: string, answer: string): Message[] => [
    { seq: 1, role: "user", origin: "client", turn_id: "t1", parts: [{ type: "text", text: "go" }], created_at: "" },
    {
      seq: 2,
      role: "assistant",
      origin: "model",
      turn_id: "t1",
      parts: [{ type: "tool_use", id: "c1", name, input: { question: "Which clause?" } }],
      created_at: "",
    },
    {
      seq: 3,
      role: "user",
      origin: "client",
      turn_id: "t2",
      parts: [{ type: "tool_result", tool_use_id: "c1", content: answer, is_error: false }],
      created_at: "",
    },
  ];
  const answer = `${"The clause about delivery dates and penalties. ".repeat(80)}${REQUEST}`;

  it("renders a client tool's answer whole: it holds the user's own words", () => {
    const lines = transcriptLines(turn("ask_user", answer), (name) => name === "ask_user");
    expect(lines).toContain(`Result of ask_user [id c1]: ${answer}`);
  });

  it("keeps a server tool's result bounded", () => {
    const lines = transcriptLines(turn("lookup", answer), (name) => name === "ask_user");
    const result = lines.find((l) => l.startsWith("Result of lookup [id c1]: ")) ?? "";
    expect(result).not.toContain(REQUEST);
    expect(result).toMatch(/… \[\d+ more characters\]$/);
  });

  it("names the call's id on the call's line and on its result's line, the id a `$tool` reference passes", () => {
    const lines = transcriptLines(turn("lookup", "42 orders"));
    expect(lines).toEqual([
      "User: go",
      'Assistant called lookup [id c1]({"question":"Which clause?"})',
      "Result of lookup [id c1]: 42 orders",
    ]);
  });

  it("marks a result no `$tool` reference passes (cut when stored), when the model is told of references", () => {
    const lines = transcriptLines(turn("lookup", "42 orders"), undefined, (id) => id !== "c1");
    expect(lines).toContain(`Result of lookup [id c1] ${NOT_PASSABLE}: 42 orders`);
  });
});

describe("summaryPrompt", () => {
  it("asks the summary to keep the ids of results only when the model is told of `$tool` references", () => {
    expect(summaryPrompt("", "User: go", true)).toContain(IDS_INSTRUCTION);
    expect(summaryPrompt("", "User: go", false)).not.toContain(IDS_INSTRUCTION);
  });
});

describe("summaryLines", () => {
  it("gives transcriptPieces a previous summary it cuts nothing of, a line longer than a piece included", () => {
    const long = `- user: the long one ${"word ".repeat(2000)}end-of-long`;
    const summary = ["- user: first fact", "", long, "- user: last fact"].join("\n");
    const pieces = transcriptPieces(summaryLines(summary), 300);
    expect(pieces.length).toBeGreaterThan(1);
    for (const piece of pieces) expect(textTokens(piece)).toBeLessThanOrEqual(300);
    expect(rejoin(pieces)).toBe([EARLIER_SUMMARY_HEADING, "- user: first fact", long, "- user: last fact"].join("\n"));
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
