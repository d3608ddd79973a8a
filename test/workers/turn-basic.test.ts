// A basic turn through the HTTP API: a text answer, a pause for a client tool, the answer's form by Accept, and the
// history page.
import { describe, expect, it } from "vitest";
import { api, apiJson, clientTool, mockRequests, script, setup } from "./helpers";

describe("a basic turn", () => {
  it("answers a text message and stores both messages", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { text: "Hello there." } }]);
    const res = await apiJson<{ status: string; messages: Array<{ role: string; parts: unknown[] }> }>(
      `/v1/sessions/${s.session}/messages`,
      { method: "POST", key: s.key, json: { content: "hi" } },
    );
    expect(res.status).toBe(201);
    expect(res.body.status).toBe("completed");
    expect(res.body.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(res.body.messages[1]?.parts).toEqual([{ type: "text", text: "Hello there." }]);
  });

  it("pauses for a client tool and continues with /tool-results", async () => {
    const s = await setup({ tools: [clientTool("ask_user")] });
    await script(s.model, [
      {
        reply: {
          text: "Let me ask.",
          tool_calls: [{ id: "toolu_client_1", name: "ask_user", input: { q: "color?" } }],
        },
      },
      { reply: { text: "Blue it is." } },
    ]);
    const first = await apiJson<{ status: string; pending_tool_calls: Array<{ id: string }> }>(
      `/v1/sessions/${s.session}/messages`,
      { method: "POST", key: s.key, json: { content: "pick a color" } },
    );
    expect(first.body.status).toBe("awaiting_tool_results");
    expect(first.body.pending_tool_calls).toEqual([{ id: "toolu_client_1", name: "ask_user" }]);
    const second = await apiJson<{ status: string }>(`/v1/sessions/${s.session}/tool-results`, {
      method: "POST",
      key: s.key,
      json: { results: [{ tool_use_id: "toolu_client_1", content: "blue" }] },
    });
    expect(second.body.status).toBe("completed");
    const reqs = await mockRequests(s.model);
    expect(reqs.every((r) => r.rejected === null)).toBe(true);
    expect(reqs).toHaveLength(2);
  });
});

describe("the answer's form, by Accept", () => {
  /** Sends "hi" with this Accept header (none when undefined); returns the answer's status and content type. */
  async function answerFor(accept: string | undefined): Promise<[number, string]> {
    const s = await setup();
    await script(s.model, [{ reply: { text: "Hello there." } }]);
    const res = await api(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "hi" },
      ...(accept === undefined ? {} : { headers: { accept } }),
    });
    await res.text();
    return [res.status, res.headers.get("content-type") ?? ""];
  }

  it("streams for a mixed Accept that prefers text/event-stream, although it lists application/json", async () => {
    const [status, type] = await answerFor("text/event-stream, application/json;q=0.1");
    expect([status, type.split(";")[0]]).toEqual([200, "text/event-stream"]);
  });

  it("answers JSON for a mixed Accept that prefers application/json", async () => {
    const [status, type] = await answerFor("text/event-stream;q=0.5, application/json");
    expect([status, type.split(";")[0]]).toEqual([201, "application/json"]);
  });

  it("streams without an Accept header and for */*", async () => {
    const answers = [await answerFor(undefined), await answerFor("*/*")];
    expect(answers.map(([status, type]) => [status, type.split(";")[0]])).toEqual([
      [200, "text/event-stream"],
      [200, "text/event-stream"],
    ]);
  });
});

describe("the history page", () => {
  it("says how each ended turn with a message on it ended, oldest first", async () => {
    const s = await setup();
    await script(s.model, [
      { error: { status: 400, message: "history page refusal" } },
      { reply: { text: "Fine." } },
      { reply: { text: "Second." } },
    ]);
    const failed = await apiJson<{ turn_id: string; status: string }>(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "first" },
    });
    expect(failed.body.status).toBe("failed");
    await apiJson(`/v1/sessions/${s.session}/messages`, { method: "POST", key: s.key, json: { content: "second" } });
    await apiJson(`/v1/sessions/${s.session}/messages`, { method: "POST", key: s.key, json: { content: "third" } });
    type Page = {
      messages: Array<{ seq: number }>;
      next: number | null;
      turns: Array<{ id: string; status: string; finish_reason: string | null; error: { message: string } | null }>;
    };
    const whole = await apiJson<Page>(`/v1/sessions/${s.session}/messages?limit=100`, { key: s.key });
    expect(whole.body.turns.map((t) => t.status)).toEqual(["failed", "completed", "completed"]);
    expect(whole.body.turns[0]).toMatchObject({ id: failed.body.turn_id, finish_reason: "error" });
    expect(whole.body.turns[0]?.error?.message).toContain("history page refusal");
    // A page lists only the turns whose messages it holds: the first (the failed turn's user message) the first.
    const first = await apiJson<Page>(`/v1/sessions/${s.session}/messages?limit=1`, { key: s.key });
    expect(first.body.turns.map((t) => t.id)).toEqual([failed.body.turn_id]);
  });
});
