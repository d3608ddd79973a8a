// The web client's line under a turn that did not simply answer (outcomeNotice, outcomeNotices), and where it shows
// among the stored and live entries (withOutcomes).
import type { UIMessage } from "ai";
import { describe, expect, it } from "vitest";
import { fromHistory, type StoredMessage } from "../../../web/src/from-history.ts";
import { fromUiMessages } from "../../../web/src/from-live.ts";
import { outcomeNotice, outcomeNotices, withOutcomes } from "../../../web/src/turn-outcomes.ts";
import { history } from "./transcript-fixtures.ts";

describe("outcomeNotice", () => {
  it("names a stopped, failed or cut-off turn, and one ended by a limit", () => {
    expect(outcomeNotice({ status: "cancelled", finish_reason: "cancelled" })).toBe("Stopped.");
    expect(outcomeNotice({ status: "failed", error: { message: "provider_http_error: bad thing" } })).toBe(
      "The answer failed: provider_http_error: bad thing",
    );
    expect(outcomeNotice({ status: "interrupted" })).toMatch(/cut off: the session restarted/);
    expect(outcomeNotice({ status: "completed", finish_reason: "max_steps" })).toMatch(/step limit/);
    expect(outcomeNotice({ status: "completed", finish_reason: "max_tokens" })).toMatch(/output limit/);
  });

  it("says nothing for a plain answer or a turn that is not over", () => {
    expect(outcomeNotice({ status: "completed", finish_reason: "end_turn" })).toBeNull();
    expect(outcomeNotice({ status: "awaiting_approval" })).toBeNull();
    expect(outcomeNotice({ status: "running" })).toBeNull();
  });
});

describe("outcomeNotices", () => {
  it("gives every listed turn that did not simply answer its line, in order, each turn once", () => {
    const turns = [
      { id: "t1", status: "failed", error: { message: "provider_http_error: 500" } },
      { id: "t2", status: "completed", finish_reason: "end_turn" },
      { id: "t3", status: "cancelled", finish_reason: "cancelled" },
      { id: "t3", status: "cancelled", finish_reason: "cancelled" },
    ];
    expect(outcomeNotices(turns)).toEqual([
      { turnId: "t1", text: "The answer failed: provider_http_error: 500" },
      { turnId: "t3", text: "Stopped." },
    ]);
  });
});

describe("withOutcomes", () => {
  it("puts a turn's line after its last stored entry", () => {
    // The compaction notice splits t1's answer in two entries (h2, h4): the line goes after the second.
    const stored = fromHistory(history, null, null, [{ before_seq: 4 }]);
    const shown = withOutcomes(stored, [], new Map([["t1", "Stopped."]]));
    expect(shown.map((e) => e.id)).toEqual(["h1", "h2", "compaction-4", "h4", "h5", "h6"]);
    expect(shown[3]?.blocks.at(-1)).toEqual({ kind: "notice", text: "Stopped." });
    expect(shown[1]?.blocks.some((b) => b.kind === "notice")).toBe(false);
  });

  it("puts it after the live message of the turn (msg_<turn id>)", () => {
    const live = fromUiMessages([
      { id: "u1", role: "user", parts: [{ type: "text", text: "go" }] },
      { id: "msg_t9", role: "assistant", parts: [{ type: "text", text: "Half an ans" }] },
    ] as UIMessage[]);
    const shown = withOutcomes([], live, new Map([["t9", "Stopped."]]));
    expect(shown[1]?.blocks).toEqual([
      { kind: "text", text: "Half an ans" },
      { kind: "notice", text: "Stopped." },
    ]);
  });

  it("gives a turn that wrote nothing an entry of its own after its user message", () => {
    const stored: StoredMessage[] = [
      { seq: 1, role: "user", origin: "client", turn_id: "t1", parts: [{ type: "text", text: "hi" }] },
    ];
    const shown = withOutcomes(fromHistory(stored), [], new Map([["t1", "The answer failed: overloaded"]]));
    expect(shown.map((e) => [e.role, e.blocks])).toEqual([
      ["user", [{ kind: "text", text: "hi" }]],
      ["assistant", [{ kind: "notice", text: "The answer failed: overloaded" }]],
    ]);
  });
});

describe("withOutcomes and live entries", () => {
  it("puts the line of a stored turn that wrote nothing before the live entries, not below the newest turn", () => {
    const stored: StoredMessage[] = [
      { seq: 1, role: "user", origin: "client", turn_id: "t1", parts: [{ type: "text", text: "hi" }] },
      { seq: 2, role: "assistant", origin: "model", turn_id: "t1", parts: [{ type: "text", text: "Hello." }] },
    ];
    const live = fromUiMessages([
      { id: "u3", role: "user", parts: [{ type: "text", text: "charge 9" }] },
      { id: "msg_t3", role: "assistant", parts: [{ type: "text", text: "Asking first." }] },
    ] as UIMessage[]);
    // t2: a retry that failed before the model wrote anything (no entry of its own).
    const shown = withOutcomes(fromHistory(stored), live, new Map([["t2", "The answer failed: overloaded"]]));
    expect(shown.map((e) => e.id)).toEqual(["h1", "h2", "outcome-t2", "u3", "msg_t3"]);
  });
});
