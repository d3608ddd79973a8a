// The provider view after a native compaction (native-view.ts): the provider ignores everything before its
// compaction block, so only the opening note and the tool baseline precede it; what the model must read follows it.
import { describe, expect, it } from "vitest";
import type { Message, Part } from "../../../../src/model/message";
import { NATIVE_NOTE, nativeView, opaqueCompaction } from "../../../../src/session/compaction/native-view";

let seq = 100;
const m = (role: "user" | "assistant", parts: Part[]): Message => ({
  seq: ++seq,
  role,
  parts,
  origin: role === "user" ? "client" : "model",
  turn_id: "t",
  created_at: "",
});

const preamble = (extra: Part[]): Message => ({
  seq: 0,
  role: "user",
  origin: "system",
  turn_id: null,
  created_at: "",
  parts: [
    { type: "text", text: NATIVE_NOTE },
    { type: "notice", kind: "tools_baseline", text: "", tools: ["a"], listing: "" },
    ...extra,
  ],
});

const block: Part = { type: "compaction", provider: "anthropic", content: "summary", encrypted: "x" };
const removed: Part = { type: "text", text: "<tools_removed>b</tools_removed>" };
const decl: Part = { type: "tool_declarations", tools: [{ name: "c", description: "c", input_schema: {} }] };

describe("nativeView", () => {
  it("puts the note and the baseline before the compaction message and the rest after the tool results", () => {
    const compacted = m("assistant", [block, { type: "tool_use", id: "u1", name: "a", input: { q: 1 } }]);
    const results = m("user", [{ type: "tool_result", tool_use_id: "u1", content: "ok", is_error: false }]);
    const view = nativeView(preamble([removed, decl]), [compacted, results]);
    expect(view.map((x) => x.role)).toEqual(["user", "assistant", "user"]);
    expect(view[0]?.parts.map((p) => p.type)).toEqual(["text", "notice"]);
    expect(view[1]).toBe(compacted);
    // Results stay first in their message (pairing), the announcement and declarations after them.
    expect(view[2]?.parts).toEqual([...results.parts, removed, decl]);
    expect(results.parts).toHaveLength(1);
  });

  it("with no user message after the compaction yet, what follows it is a message of its own at the end", () => {
    const compacted = m("assistant", [block, { type: "text", text: "done" }]);
    const view = nativeView(preamble([removed]), [compacted]);
    expect(view.map((x) => x.role)).toEqual(["user", "assistant", "user"]);
    expect(view[2]?.parts).toEqual([removed]);
  });

  it("with nothing to announce, the view is the lead and the stored messages", () => {
    const compacted = m("assistant", [block]);
    const next = m("user", [{ type: "text", text: "hi" }]);
    expect(nativeView(preamble([]), [compacted, next])).toEqual([preamble([]), compacted, next]);
  });
});

describe("opaqueCompaction", () => {
  const item: Part = { type: "compaction", provider: "openai", content: "", encrypted: "enc-oc1" };
  const history = () => [
    m("user", [{ type: "text", text: "(compacted)" }]),
    m("assistant", [item, { type: "text", text: "answer" }]),
    m("user", [{ type: "text", text: "next" }]),
  ];

  it("gives a Responses agent's summary request the provider's opaque compaction item to open with", () => {
    expect(opaqueCompaction(history(), "openai-responses")).toEqual(item);
  });

  it("gives an agent moved to another provider none: its projection drops the item, so no note may claim it", () => {
    expect(opaqueCompaction(history(), "anthropic")).toBeUndefined();
    expect(opaqueCompaction(history(), "openai")).toBeUndefined();
  });
});
