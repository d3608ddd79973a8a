// The web client's history read (web/src/session-reads.ts `loadHistory`): it reads every stored message by
// following each page's `next`, also when a page holds fewer messages than it asked for (a page also ends at the
// server's byte budget).
import { afterEach, describe, expect, it, vi } from "vitest";
import { loadHistory } from "../../../web/src/session-reads.ts";

afterEach(() => {
  vi.unstubAllGlobals();
});

const text = (seq: number) => ({
  seq,
  role: seq % 2 === 1 ? "user" : "assistant",
  origin: seq % 2 === 1 ? "client" : "model",
  turn_id: null,
  parts: [{ type: "text", text: `message ${seq}` }],
});

describe("loadHistory", () => {
  it("follows next past pages shorter than its limit until next is null, reading each message once", async () => {
    const pages: Record<string, { messages: unknown[]; next: number | null }> = {
      "0": { messages: [text(1)], next: 1 },
      "1": { messages: [text(2), text(3)], next: 3 },
      "3": { messages: [text(4)], next: null },
    };
    const read: string[] = [];
    vi.stubGlobal("fetch", async (input: RequestInfo | URL) => {
      const url = new URL(String(input), "http://app.test");
      if (!url.pathname.endsWith("/messages")) return Response.json({ last_turn: null, pause: null });
      const after = url.searchParams.get("after") ?? "";
      read.push(after);
      return Response.json({ ...pages[after], compactions: [], turns: [] });
    });
    const history = await loadHistory({ session: "ses_pages", token: "t" });
    expect(read).toEqual(["0", "1", "3"]);
    const shown = JSON.stringify(history.entries);
    for (let seq = 1; seq <= 4; seq++) expect(shown.split(`message ${seq}"`)).toHaveLength(2);
    expect(history.head).toBe(4);
  });
});
