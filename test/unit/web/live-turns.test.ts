// The web client's stored entries beside a turn useChat holds live (withoutLiveTurns): what the model wrote in it
// shows once.
import type { UIMessage } from "ai";
import { describe, expect, it } from "vitest";
import { fromHistory } from "../../../web/src/from-history.ts";
import { withoutLiveTurns } from "../../../web/src/live-turns.ts";
import { history } from "./transcript-fixtures.ts";

describe("withoutLiveTurns", () => {
  const live = [
    { id: "msg_t2", role: "assistant", parts: [{ type: "text", text: "Tomorrow is rainy." }] },
  ] as UIMessage[];

  it("leaves out what the model wrote in a turn useChat streams, keeping that turn's user message", () => {
    const shown = withoutLiveTurns(fromHistory(history), live, new Set());
    expect(shown.map((e) => e.id)).toEqual(["h1", "h2", "h5"]);
  });

  it("keeps the stored entries of a turn whose live message only continues them", () => {
    const entries = fromHistory(history);
    expect(withoutLiveTurns(entries, live, new Set(["t2"]))).toEqual(entries);
  });
});
