// Long sessions: compaction keeps every request inside the model's window, both protocols (README "Long sessions").
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ADMIN, apiJson, events, history, pairingProblems, type Setup, script, send, setup } from "./helpers";

const WINDOW = 8000;

const httpTool = (name: string, description: string, defer: boolean) => ({
  name,
  description,
  input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  defer,
  execution: { type: "http", url: `${env.MOCK_URL}/_tool` },
});

const TOOLS = [httpTool("echo_core", "Echo a city back", false), httpTool("lookup_order", "Look up an order", true)];

async function mockWindow(model: string, tokens: number | null): Promise<void> {
  const res = await fetch(`${env.MOCK_URL}/_mock/context_window`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model, tokens }),
  });
  if (!res.ok) throw new Error(`mock window: ${res.status}`);
}

async function mockStats(model: string) {
  const res = await fetch(`${env.MOCK_URL}/_mock/stats?model=${model}`);
  return ((await res.json()) as { model: Record<string, number> }).model;
}

async function allMessages(s: Setup) {
  const out: Array<{ seq: number; role: string; parts: Array<Record<string, unknown>> }> = [];
  const markers: Array<{ before_seq: number }> = [];
  let after = 0;
  for (;;) {
    const page = await apiJson<{
      messages: typeof out;
      next: number | null;
      compactions: typeof markers;
    }>(`/v1/sessions/${s.session}/messages?after=${after}&limit=50`, { key: s.key });
    out.push(...page.body.messages);
    markers.push(...page.body.compactions);
    if (page.body.next === null) return { messages: out, markers };
    after = page.body.next;
  }
}

/** ~1.2 KB of user text that names the turn. */
const userText = (i: number, extra = "") => `msg-${i}: ${extra}${"lorem ipsum dolor sit amet ".repeat(45)}`;

/** A session whose agent and mock model both have a `WINDOW`-token context window. */
async function longSession(provider: "anthropic" | "openai", agent: Record<string, unknown> = {}) {
  const s = await setup({}, provider);
  const put = await apiJson(`/v1/agents/${s.agent}`, {
    method: "PUT",
    key: ADMIN,
    json: { model: { provider, name: s.model, context_window: WINDOW }, tools: TOOLS, ...agent },
  });
  if (put.status >= 300) throw new Error(`agent: ${put.status} ${JSON.stringify(put.body)}`);
  await mockWindow(s.model, WINDOW);
  return s;
}

describe.each(["anthropic", "openai"] as const)("a 60-turn session about 4x the window (%s)", (provider) => {
  it("completes every turn with zero pairing rejections, keeps every user message readable, and the late deferred call works", async () => {
    const s = await longSession(provider);
    const statuses: string[] = [];
    let lateResult: Record<string, unknown> | undefined;
    for (let i = 1; i <= 60; i++) {
      let extra = "";
      if (i === 1) {
        await script(s.model, [
          {
            reply: { tool_calls: [{ id: `call_s${i}`, name: "tool_search", input: { query: "select:lookup_order" } }] },
          },
          { reply: { tool_calls: [{ id: `call_l${i}`, name: "lookup_order", input: { city: "Paris" } }] } },
          { reply: { text: "Order found." } },
        ]);
      } else if (i === 55) {
        await script(s.model, [
          { reply: { tool_calls: [{ id: "call_late", name: "lookup_order", input: { city: "Rome" } }] } },
          { reply: { text: "Late order found." } },
        ]);
      } else if (i % 10 === 5) extra = "please use echo_core now. ";
      const res = await send(s, { content: userText(i, extra) });
      statuses.push(res.body.status);
      if (i === 55) {
        for (const m of res.body.messages)
          for (const p of m.parts) if (p.type === "tool_result" && p.tool_use_id === "call_late") lateResult = p;
      }
    }
    expect(statuses.filter((x) => x !== "completed")).toEqual([]);
    const stats = await mockStats(s.model);
    expect(stats.rejected_p).toBe(0);
    expect(stats.rejected).toBe(0);
    expect(lateResult?.is_error).toBe(false);
    const { messages, markers } = await allMessages(s);
    const texts = messages.flatMap((m) => m.parts.filter((p) => p.type === "text").map((p) => String(p.text)));
    for (let i = 1; i <= 60; i++) expect(texts.some((t) => t.startsWith(`msg-${i}:`))).toBe(true);
    expect(markers.length).toBeGreaterThan(0);
    // The stored history is several windows long (4 bytes per token, as the mock counts).
    const bytes = messages.reduce((n, m) => n + JSON.stringify(m.parts).length, 0);
    expect(bytes / 4).toBeGreaterThan(3.5 * WINDOW);
    expect(pairingProblems(await history(s))).toEqual([]);
    const compacted = (await events(s)).filter((e) => e.type === "context_compacted");
    expect(compacted.length).toBeGreaterThan(0);
  });
});
